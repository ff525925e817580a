"""The replay's analysis of a match (`GET /api/matches/{id}/analysis`): each team's
figure after every turn as the game's rules measure a position (`Presentation.analysis`:
Blokus Duo, each player's legal moves, as Pentobi's analysis plots them). Computed by
replaying the match's record, once per turn played (`ANALYSES`)."""

from __future__ import annotations

from matches.caches import Kept, identity
from matches.models import Match
from matches.rules import rules_for
from matches.rules.timeline import states
from matches.selectors.records import match_record

ANALYSES = Kept("analyses", entries=64, limit=8 << 20)


def has_analysis(game: str) -> bool:
    return rules_for(game).analysis_name is not None


def match_analysis(match: Match) -> list[list[int]]:
    """Each team's figure at turn 0 and after every turn played."""
    rules = rules_for(match.game)

    def build() -> list[list[int]]:
        return [rules.analysis(state) for state, _ in states(match_record(match))]

    return ANALYSES.get((identity(match), match.resolved_turns), build)
