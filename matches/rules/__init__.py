"""The rules of every game the system runs: pure Python and numpy, no Django.

`rules_for(game)` returns the game's rules object (see `base.GameRules`).
"""

from __future__ import annotations

from matches.rules.base import GameRules
from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.chaser import ChaserRules
from matches.rules.kakomimasu import KakomimasuRules
from matches.rules.procon2020 import Procon2020Rules

_REGISTRY: dict[str, GameRules] = {
    rules.game: rules
    for rules in (KakomimasuRules(), Procon2020Rules(), ChaserRules(), BlokusDuoRules())
}

GAMES: tuple[str, ...] = tuple(_REGISTRY)
# The games whose matches can be created and played live.
LIVE_GAMES: tuple[str, ...] = tuple(game for game, rules in _REGISTRY.items() if rules.live)
# (game id, title) pairs, for model and form choices.
GAME_CHOICES: list[tuple[str, str]] = [(rules.game, rules.title) for rules in _REGISTRY.values()]


class UnknownGame(KeyError):
    """A game id that no rules module implements."""


def rules_for(game: str) -> GameRules:
    try:
        return _REGISTRY[game]
    except KeyError:
        raise UnknownGame(game) from None
