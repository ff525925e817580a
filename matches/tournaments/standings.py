"""A tournament's table from its fixtures' results, ranked by each contest's own rules:
pure functions, no Django.

A fixture result names its two teams, its winner (or None: a draw) and what each team
scored over its games (`points`: the headline numbers the tie-breaks use, e.g.
{"total", "wall", "territory"} or {"items", "games"}). A bye counts as a win.

The ways to rank (a game's rules name theirs):
- `gpcc` (GPCC 2009, Blokus Duo): score = wins + draws / 2; then Solkoff, the sum of
  all its opponents' scores; then SB, the sum of the scores of the opponents it beat.
- `kakomimasu` (the community ranking): wins, then draws, then fewer losses, then
  points, wall points and territory points over all fixtures.
- `procon`: wins, then total points over all fixtures.
- `chaser`: match wins, then game wins, then items.
Teams equal on every key share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


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


def standings(teams: int, results: Sequence[FixtureResult], scheme: str,
              byes: Sequence[int] = ()) -> list[Row]:
    """Every team's row, best first, ranked by `scheme`."""
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
        row.score = row.wins + row.draws / 2 if scheme == "gpcc" else row.wins
    key = SCHEMES[scheme](rows)
    ordered = sorted(rows, key=lambda row: (key(row), -row.team), reverse=True)
    for place, row in enumerate(ordered):
        tied = place and key(row) == key(ordered[place - 1])
        row.rank = ordered[place - 1].rank if tied else place + 1
    return ordered


def _gpcc(rows: list[Row]):
    scores = {row.team: row.score for row in rows}
    for row in rows:
        row.tiebreaks = {"solkoff": sum(scores[o] for o in row.opponents),
                         "sb": sum(scores[o] for o in row.beaten)}
    return lambda row: (row.score, row.tiebreaks["solkoff"], row.tiebreaks["sb"])


def _kakomimasu(rows: list[Row]):
    for row in rows:
        row.tiebreaks = {"points": row.sums.get("total", 0), "wall": row.sums.get("wall", 0),
                         "territory": row.sums.get("territory", 0)}
    return lambda row: (row.wins, row.draws, -row.losses, row.tiebreaks["points"],
                        row.tiebreaks["wall"], row.tiebreaks["territory"])


def _procon(rows: list[Row]):
    for row in rows:
        row.tiebreaks = {"points": row.sums.get("total", 0)}
    return lambda row: (row.wins, row.tiebreaks["points"])


def _chaser(rows: list[Row]):
    for row in rows:
        row.tiebreaks = {"games": row.sums.get("games", 0), "items": row.sums.get("items", 0)}
    return lambda row: (row.wins, row.tiebreaks["games"], row.tiebreaks["items"])


SCHEMES = {"gpcc": _gpcc, "kakomimasu": _kakomimasu, "procon": _procon, "chaser": _chaser}
