"""Protocol servers: the games whose programs speak a protocol of their own instead of
the answer API (their rules' `turn_kind` is PROTOCOL, matches/rules/turns.py) each have
a server package here, named after the game, which drives each game step by step and
stores it through `matches.services.protocol`. The package offers `board_problem(name)`
(why a board named by an organiser cannot be played) and a `demo(stop, tell)`
coroutine that keeps a match of built-in programs going for `make demo`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from matches.rules import GAMES, rules_for
from matches.rules.turns import is_protocol_played


def server_modules() -> list[ModuleType]:
    """The server module of every game played over its own protocol."""
    return [importlib.import_module(f"{__name__}.{game.replace('-', '_')}")
            for game in GAMES if is_protocol_played(rules_for(game))]


def server_for(game: str) -> ModuleType:
    """The server module of a game played over its own protocol."""
    return importlib.import_module(f"{__name__}.{game.replace('-', '_')}")
