"""A tournament's table from its fixtures' results, ranked by its game's contest rules
(`ranking`, a `matches.rules.base.Ranking`): pure functions, no Django.

A fixture result names its two teams, its winner (or None: a draw) and what each team
scored over its games (`points`: the headline numbers the tie-breaks add up, e.g.
{"total", "wall", "territory"} or {"items", "games"}). A bye counts as a win.
Teams equal on every key of the ranking share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matches.rules.base import Ranking


@dataclass(frozen=True)
class FixtureResult:
    teams: tuple[int, int]
    winner: int | None  # a team number, or None for a draw
    points: tuple[dict[str, int], dict[str, int]] = ({}, {})


@dataclass
class Row:
    team: int
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    score: float = 0.0
    sums: dict[str, int] = field(default_factory=dict)  # points over all fixtures
    opponents: list[int] = field(default_factory=list)
    beaten: list[int] = field(default_factory=list)
    tiebreaks: dict[str, float] = field(default_factory=dict)
    rank: int = 0

    def public(self) -> dict[str, Any]:
        return {"rank": self.rank, "team": self.team, "played": self.played,
                "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "byes": self.byes, "score": self.score, "tiebreaks": self.tiebreaks}


def standings(teams: int, results: Sequence[FixtureResult], ranking: Ranking,
              byes: Sequence[int] = ()) -> list[Row]:
    """Every team's row, best first, ranked by `ranking`."""
    rows = [Row(team) for team in range(teams)]
    for result in results:
        for side, team in enumerate(result.teams):
            row, other = rows[team], result.teams[1 - side]
            row.played += 1
            row.opponents.append(other)
            for key, value in result.points[side].items():
                row.sums[key] = row.sums.get(key, 0) + value
            if result.winner is None:
                row.draws += 1
            elif result.winner == team:
                row.wins += 1
                row.beaten.append(other)
            else:
                row.losses += 1
    for team in byes:
        rows[team].byes += 1
        rows[team].wins += 1
        rows[team].played += 1  # a round it was in: its wins, draws and losses add up
    for row in rows:
        row.score = row.wins + row.draws / 2 if ranking.half_draws else row.wins
    scores = {row.team: row.score for row in rows}
    for row in rows:
        row.tiebreaks = {name: _tiebreak(row, source, scores)
                         for name, source in ranking.tiebreaks}

    def key(row: Row) -> tuple[float, ...]:
        return tuple(_value(row, name) for name in ranking.order)

    ordered = sorted(rows, key=lambda row: (key(row), -row.team), reverse=True)
    for place, row in enumerate(ordered):
        tied = place and key(row) == key(ordered[place - 1])
        row.rank = ordered[place - 1].rank if tied else place + 1
    return ordered


def _tiebreak(row: Row, source: str, scores: dict[int, float]) -> float:
    if source == "solkoff":  # the scores of every opponent met
        return sum(scores[other] for other in row.opponents)
    if source == "sb":  # the scores of the opponents beaten
        return sum(scores[other] for other in row.beaten)
    return row.sums.get(source, 0)


def _value(row: Row, name: str) -> float:
    if name == "fewer losses":
        return -row.losses
    if name in ("score", "wins", "draws"):
        return getattr(row, name)
    return row.tiebreaks[name]
