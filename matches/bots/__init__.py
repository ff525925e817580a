"""The built-in players of every live game, for the demo and the tests: each game's
bots in its own module, each a pure function of the public match state (as the API
gives it), a team index and a random generator, returning that team's actions.

`bots_for(game)` gives a game's bots by name ("random", "greedy", "tactical",
"searching"); `levels(game)` names them by strength, level 1 (random legal moves) to
level 4 (the strongest), each measured against the one below by bench/ladder.py. Every
bot answers quickly by default; one that can use more time takes a `budget` keyword
(seconds), given only through `ask` (and `seat_answer`), which gives it only to bots
that take it. A game
played over a protocol of its own has programs instead, which connect to its server as
contest programs do (chaser.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from matches.bots import blokus_duo, chaser, kakomimasu, procon2020

Bot = Callable[..., list[dict[str, Any]]]
_MODULES = (kakomimasu, procon2020, blokus_duo)
_BY_GAME: dict[str, dict[str, Bot]] = {module.GAME: module.BOTS for module in _MODULES}
_LEVELS: dict[str, tuple[str, ...]] = {module.GAME: module.LEVELS
                                       for module in (*_MODULES, chaser)}


def bots_for(game: str) -> dict[str, Bot]:
    """The game's bots by name; none for a game that has no built-in players."""
    return _BY_GAME.get(game, {})


def bot_names(game: str) -> list[str]:
    """The built-in players a tournament's `--bots` seats in turn: a game's levels, level
    1 first (each seated at its team as a practice match's level is, and played by the
    same driver: services/seats.py), or the programs that play it over its own protocol
    (matches/bots/chaser.py's DEMO)."""
    programs = {chaser.GAME: chaser.DEMO}
    return list(programs.get(game) or levels(game))


def level_seat(game: str, name: str) -> str:
    """The seat ("level-3") of the game's bot `name`, or "" for a player no seat takes
    (a program that plays over its game's own protocol)."""
    names = levels(game) if game in _BY_GAME else ()
    return f"level-{names.index(name) + 1}" if name in names else ""


def levels(game: str) -> tuple[str, ...]:
    """The game's bots by level, level 1 first (none for a game without bots)."""
    return _LEVELS.get(game, ())


def level_bot(game: str, seat: str) -> Bot | None:
    """The bot of a seat ("level-3"), or None for a seat no built-in player takes."""
    names = levels(game)
    if not seat.startswith("level-") or not seat[6:].isdigit():
        return None
    level = int(seat[6:])
    return _BY_GAME.get(game, {}).get(names[level - 1]) if 1 <= level <= len(names) else None


def takes_budget(bot: Bot) -> bool:
    """The bot accepts `budget=` (the seconds it may think): a bot written before that
    keyword is never given it."""
    known = _TAKES_BUDGET.get(bot)
    if known is None:
        try:
            parameters = inspect.signature(bot).parameters
        except (TypeError, ValueError):
            parameters = {}
        known = _TAKES_BUDGET[bot] = "budget" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    return known


_TAKES_BUDGET: dict[Any, bool] = {}


def ask(bot: Bot, public: dict[str, Any], team: int, rng: Any,
        budget: float | None = None) -> list[dict[str, Any]]:
    """The bot's actions, with `budget` seconds to think where it takes one (None: its
    quick default). The one way callers give a bot a budget."""
    if budget is not None and takes_budget(bot):
        return bot(public, team, rng, budget=budget)
    return bot(public, team, rng)


def seat_answer(game: str, seat: str, state: str, index: int, seed: str,
                budget: float | None = None) -> list[dict[str, Any]]:
    """A seated level's actions for a public state given as JSON text, its generator
    seeded by `seed`, with `budget` seconds to think: what services/seats.py asks of the
    process the levels think in (this package needs no Django, so that process imports
    only the bots and rules)."""
    import json
    import random

    return ask(level_bot(game, seat), json.loads(state), index, random.Random(seed), budget)


def warm_up() -> None:
    """What the levels' process runs as it starts: the imports a first answer would
    otherwise pay for out of its budget (the area scoring of Procon 2020)."""
    from scipy import ndimage  # noqa: F401
