"""The practice ladder as it is read: a page of a game's standings, best first, shown on
/practice/ and by GET /api/practice/ladder (docs/api.md, "Practice"). The standings are
kept in a table that each practice game's end moves (matches/models/ladder.py, written by
matches/services/ladder.py), so that a page costs one query on its index, however many
games were played.

A rating is OpenSkill's (the Plackett-Luce model, from the `openskill` library), shown
as its estimate μ (25 for a newcomer), as chess sites show theirs (lichess's Glicko
rating): a team that beats the levels stands above them. A team whose σ is still over
PROVISIONAL_SIGMA (its first games, about six) is marked provisional ("?"), as lichess
marks its own: its place may still move a long way (a newcomer beaten twice by level 1
is still above it, at about 15, until more games say where it stands). The ordinal
μ − 3σ shown before kept a team that had beaten levels 2 to 4 below level 2 for its
first games. The built-in levels have fixed ratings, never moved by their games, so a
team sees where it stands between them. Teams are rated by name (a guest's too, until
its games are taken down); a game against the seat nobody plays, or not played to its
end, or void, rates nobody. Practice counts in no tournament, and tournaments count nowhere here.
"""

from __future__ import annotations

from typing import Any

from matches.models import LadderStanding

# The levels' fixed ratings (μ, with σ = LEVEL_SIGMA), spaced as the ladder's results
# between them (bench/ladder.py) suggest.
LEVEL_MU = {1: 10.0, 2: 20.0, 3: 27.0, 4: 33.0}
LEVEL_SIGMA = 1.0
PROVISIONAL_SIGMA = 6.5  # a team's rating is provisional while its σ is above this
RECENT = 5  # the games listed beside a rating
PAGE_ROWS = 50  # a page of the ladder unless asked otherwise
PAGE_ROWS_MAX = 100


def practice_ladder(game: str, *, offset: int = 0, limit: int = PAGE_ROWS) -> list[dict[str, Any]]:
    """Rows `offset` to `offset + limit` of the game's ladder, best first: the built-in
    levels among the teams that finished a practice game against a level or another team
    (equal ratings in the order they came to the ladder)."""
    page = list(LadderStanding.objects.filter(game=game)
                .order_by("-rating", "pk")[offset:offset + limit])
    if not page and not LadderStanding.objects.filter(game=game).exists():
        # nothing rated in this game yet: the levels alone, as they stand before any game
        page = sorted(level_standings(game), key=lambda s: -s.rating)[offset:offset + limit]
    return [standing_row(standing) for standing in page]


def standing_row(standing: LadderStanding) -> dict[str, Any]:
    return {"name": standing.name, "level": standing.level, "rating": round(standing.rating, 1),
            "provisional": standing.level is None and standing.sigma > PROVISIONAL_SIGMA,
            "mu": round(standing.mu, 2), "sigma": round(standing.sigma, 2),
            "games": standing.games, "wins": standing.wins, "draws": standing.draws,
            "losses": standing.losses, "recent": standing.recent[:RECENT]}


def level_standings(game: str) -> list[LadderStanding]:
    """The game's built-in levels before any game (not stored): their fixed ratings, in
    the order of the levels."""
    return [LadderStanding(game=game, kind=LadderStanding.LEVEL, name=level_name(level),
                           level=level, mu=mu, sigma=LEVEL_SIGMA, rating=mu,
                           recent=[])
            for level, mu in LEVEL_MU.items()]


def level_name(level: int) -> str:
    return f"Level {level}"


PROGRAM_SEAT = "program:"  # a hosted program's seat ("program:<version id>")


def ladder_key(seat: str, name: str) -> tuple[str, str] | None:
    """Who a rated game's team (its `seat` and `name`) is on the ladder: (kind, name) of
    a level or of a team by its name (a team's hosted program is its team's), or None
    for a seat that rates nobody (nobody plays it, or nobody came)."""
    if seat.startswith("level-") and seat[6:].isdigit():
        level = int(seat[6:])
        return (LadderStanding.LEVEL, level_name(level)) if level in LEVEL_MU else None
    if seat.startswith(PROGRAM_SEAT):  # a team's hosted program: rated as its team
        return (LadderStanding.TEAM, name)
    if seat:
        return None
    return (LadderStanding.TEAM, name)
