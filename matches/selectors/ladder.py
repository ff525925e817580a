"""The practice ladder: each game's ratings from its finished practice matches, shown on
/practice/ (docs/api.md, "Practice").

A rating is OpenSkill's (the Plackett-Luce model, from the `openskill` library), shown
as its ordinal (μ − 3σ: 0 for a newcomer, rising as its games make it surer). The
built-in levels have fixed ratings, never moved by their games, so a team sees where it
stands between them. Teams are rated by name (a guest's too, while its matches are
kept); a game against the seat nobody plays, or not played to its end, rates nobody.
Practice counts in no tournament, and tournaments count nowhere here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from matches.models import Match

# The levels' fixed ratings (μ, with σ = LEVEL_SIGMA): their ordinals 7, 17, 24 and 30,
# spaced as the ladder's results between them (bench/ladder.py) suggest.
LEVEL_MU = {1: 10.0, 2: 20.0, 3: 27.0, 4: 33.0}
LEVEL_SIGMA = 1.0
MATCHES_READ = 5000  # the most recent finished practice matches a ladder is made from
RECENT = 5  # the games listed beside a rating


@dataclass
class Standing:
    name: str
    level: int | None  # a built-in level, or None for a team
    rating: Any
    wins: int = 0
    draws: int = 0
    losses: int = 0
    recent: list[int] = field(default_factory=list)  # match ids, the latest first

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "level": self.level,
                "rating": round(self.rating.ordinal(), 1), "mu": round(self.rating.mu, 2),
                "sigma": round(self.rating.sigma, 2), "games": self.wins + self.draws + self.losses,
                "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "recent": self.recent[:RECENT]}


def practice_ladder(game: str) -> list[dict[str, Any]]:
    """The game's ladder, best first: the built-in levels and every team that finished a
    practice game against a level or another team."""
    model = PlackettLuce()
    standings: dict[tuple[str, Any], Standing] = {
        ("level", level): Standing(f"Level {level}", level,
                                   model.rating(mu=mu, sigma=LEVEL_SIGMA))
        for level, mu in LEVEL_MU.items()}
    matches = (Match.objects.filter(game=game, result__isnull=False).exclude(practice_by="")
               .order_by("-pk").prefetch_related("teams")[:MATCHES_READ])
    for match in sorted(matches, key=lambda m: m.pk):
        teams = sorted(match.teams.all(), key=lambda team: team.index)
        keys = [_key(team) for team in teams]
        if None in keys or match.result.get("winner", "?") not in (0, 1, None) or \
                match.result.get("decided_by") == "void":  # a void match counts nowhere
            continue
        sides = [standings.setdefault(key, Standing(team.name, None, model.rating()))
                 for key, team in zip(keys, teams, strict=True)]
        winner = match.result["winner"]
        ranks = [0, 0] if winner is None else [0 if winner == 0 else 1, 0 if winner == 1 else 1]
        rated = model.rate([[side.rating] for side in sides], ranks=ranks)
        for index, side in enumerate(sides):
            if side.level is None:  # a level's rating stays as it is
                side.rating = rated[index][0]
            if winner is None:
                side.draws += 1
            elif winner == index:
                side.wins += 1
            else:
                side.losses += 1
            side.recent.insert(0, match.pk)
    return [standing.row() for standing in
            sorted(standings.values(), key=lambda s: -s.rating.ordinal())]


def _key(team) -> tuple[str, Any] | None:
    """Who a practice team is for the ladder: a level, a team by its name, or None for a
    seat that rates nobody (nobody plays it, or nobody came)."""
    if team.seat.startswith("level-") and team.seat[6:].isdigit():
        level = int(team.seat[6:])
        return ("level", level) if level in LEVEL_MU else None
    if team.seat:
        return None
    return ("team", team.name)
