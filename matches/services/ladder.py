"""The practice ladder's writes (docs/api.md, "Practice"): a game's standings
(matches/models/ladder.py) are moved when one of its practice games or of its hosted
programs' games (each rated as its team: docs/programs.md, "The ladder") ends, and kept, so
that reading the ladder is reading a page of them (matches/selectors/ladder.py), not
rating every game again.

- `ladder_record`: told of every match's end (the `match_ended` signal, after the end's
  transaction commits: its last turn, a time-out, the judges' void), it rates a practice
  game once, on the standings as they are. A game told twice rates nobody the second
  time. A rated game the judges void since sends its game's ladder to `ladder_rebuild`,
  since an OpenSkill move cannot be taken back on its own.
- `ladder_rebuild`: a game's ladder made again from its kept finished practice games, in
  the order they ended (`manage.py rebuildladder`, after an upgrade from the version that
  rated them all on every read).
- `ladder_forget`: before practice games are taken down (a guest's, after some hours):
  they leave the latest-games lists, and a standing all of whose games are gone goes.

The built-in levels keep their fixed ratings; only their results and latest games move.
One game's ladder is written by one transaction at a time: PostgreSQL's take an advisory
lock for the game (a standing not stored yet has no row to lock) and lock the rows they
move; SQLite's transactions here are one writer at a time already.
"""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.dispatch import receiver
from django.utils import timezone
from openskill.models import PlackettLuce

from matches.models import LadderGame, LadderStanding, Match, Team
from matches.selectors.ladder import (
    LEVEL_MU,
    LEVEL_SIGMA,
    PROGRAM_SEAT,
    RECENT,
    ladder_key,
    level_standings,
)
from matches.services.control import is_void
from matches.services.transition import match_ended

MODEL = PlackettLuce()
LADDER_LOCK = 0x6C616464  # PostgreSQL's advisory lock of a game's ladder ("ladd"), by game
# A rebuild rates afterwards the games that ended this long before it began and were not
# among those it read (they ended while it read).
LATE = timedelta(minutes=1)

Key = tuple[str, str]  # (kind, name): matches/selectors/ladder.py's `ladder_key`


@receiver(match_ended)
def _match_ended(sender: Any, match: Match, **kwargs: Any) -> None:
    """A practice game or a hosted program's game ended, or was voided: its ladder moves
    now."""
    if match.practice_by or Team.objects.filter(
            match_id=match.pk, seat__startswith=PROGRAM_SEAT).exists():
        ladder_record(match)


def ladder_record(match: Match) -> None:
    """Rate the ended practice game `match` if nobody has yet (and, `match` being the first
    game of a match of several voided together, see to its later games); a rated game
    since voided has its game's ladder rebuilt without it."""
    with transaction.atomic():
        _lock(match.game)
        games = list(_ended(match.game).filter(Q(pk=match.pk) | Q(first_game_id=match.pk)))
        rated = set(LadderGame.objects.filter(match__in=games).values_list("match_id", flat=True))
        voided = any(is_void(game) and game.pk in rated for game in games)
        if not voided:
            for game in games:
                if game.pk not in rated:
                    _rate(game, timezone.now())
    if voided:
        ladder_rebuild(match.game)


def ladder_rebuild(game: str) -> int:
    """Make the game's ladder again from every kept finished practice game, in the order
    they ended; how many games it rated. The games are read and rated outside the lock
    (the clock may end another meanwhile), then stored at once."""
    began = timezone.now()
    standings, rated = _replayed(game, began)
    with transaction.atomic():
        _lock(game)
        LadderStanding.objects.filter(game=game).delete()
        LadderGame.objects.filter(match__game=game).delete()
        LadderStanding.objects.bulk_create(standings.values())
        LadderGame.objects.bulk_create([LadderGame(match_id=pk, rated_at=began) for pk in rated],
                                       batch_size=1000)
        done = set(rated)
        late = [match for match in _ended(game).filter(ended_at__gte=began - LATE)
                if match.pk not in done]
        caught = sum(_rate(match, timezone.now()) for match in late)
    return len(rated) + caught


def ladder_forget(match_ids: list[int], now: datetime) -> None:
    """Before the practice games `match_ids` are taken down: out of the latest-games lists
    of the standings they were rated on; and the standings all of whose games have been
    taken down by `now` go."""
    gone = set(LadderGame.objects.filter(match_id__in=match_ids)
               .values_list("match_id", flat=True))
    keys: dict[str, set[Key]] = {}
    for game, seat, name in Team.objects.filter(match_id__in=gone).values_list(
            "match__game", "seat", "name"):
        key = ladder_key(seat, name)
        if key is not None:
            keys.setdefault(game, set()).add(key)
    for game, held in keys.items():
        with transaction.atomic():
            _lock(game)
            rows = [row for row in _locked(game, held) if set(row.recent) & gone]
            for row in rows:
                row.recent = [pk for pk in row.recent if pk not in gone]
            LadderStanding.objects.bulk_update(rows, ["recent"])
    LadderStanding.objects.filter(expires_at__lte=now).delete()


def _lock(game: str) -> None:
    """The game's ladder is this transaction's until it ends (PostgreSQL; SQLite's
    transactions here begin IMMEDIATE, one writer at a time)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)",
                           [LADDER_LOCK << 32 | zlib.crc32(game.encode())])


def _ended(game: str) -> QuerySet[Match]:
    """The game's ended practice games, in the order they ended (those ended before the
    end was kept, by id, first), each with its teams."""
    teams = Team.objects.only("match_id", "index", "name", "seat")
    rated = Match.objects.filter(Q(pk__in=Team.objects.filter(
        seat__startswith=PROGRAM_SEAT).values("match_id")) | ~Q(practice_by=""))
    return (rated.filter(game=game, result__isnull=False)
            .only("pk", "game", "result", "expires_at", "ended_at")
            .order_by(F("ended_at").asc(nulls_first=True), "pk")
            .prefetch_related(Prefetch("teams", queryset=teams)))


def _sides(match: Match) -> list[Key] | None:
    """The two sides a finished game rates, team A's first; None where it rates nobody
    (void, a seat nobody plays, a result that names no winner)."""
    if is_void(match) or match.result.get("winner", "?") not in (0, 1, None):
        return None
    teams = sorted(match.teams.all(), key=lambda team: team.index)
    keys = [ladder_key(team.seat, team.name) for team in teams]
    return None if len(keys) != 2 or None in keys else keys


def _rate(match: Match, now: datetime) -> bool:
    """Rate one ended game on the stored standings (in the caller's transaction, the
    game's ladder locked); False where it rates nobody."""
    sides = _sides(match)
    if sides is None:
        return False
    standings = _stored(match.game, sides, now)
    _move([standings[key] for key in sides], match)
    for standing in standings.values():
        standing.updated_at = now
    LadderStanding.objects.bulk_update(standings.values(), [
        "mu", "sigma", "rating", "wins", "draws", "losses", "recent", "expires_at",
        "updated_at"])
    LadderGame.objects.create(match=match, rated_at=now)
    return True


def _stored(game: str, keys: list[Key], now: datetime) -> dict[Key, LadderStanding]:
    """The standings of `keys`, their rows locked; made where they are not stored yet (a
    game's levels all at its first rated game, then the team that is new)."""
    stored = set(LadderStanding.objects.filter(game=game, kind=LadderStanding.LEVEL)
                 .values_list("name", flat=True))
    LadderStanding.objects.bulk_create([
        _newcomer(game, (level.kind, level.name), now) for level in level_standings(game)
        if level.name not in stored])
    found = {(row.kind, row.name): row for row in _locked(game, set(keys))}
    for key in keys:
        if key not in found:
            found[key] = _newcomer(game, key, now)
            found[key].save()
    for row in found.values():
        if row.level is not None:  # its fixed rating, whatever was stored
            row.mu, row.sigma = LEVEL_MU[row.level], LEVEL_SIGMA
            row.rating = row.mu
    return found


def _locked(game: str, keys: set[Key]) -> list[LadderStanding]:
    rows = (LadderStanding.objects.select_for_update()
            .filter(game=game, name__in={name for _, name in keys}).order_by("pk"))
    return [row for row in rows if (row.kind, row.name) in keys]


def _newcomer(game: str, key: Key, now: datetime) -> LadderStanding:
    """A standing before its first game: a level's fixed rating, a team's OpenSkill's
    rating of a newcomer."""
    levels = {(level.kind, level.name): level for level in level_standings(game)}
    if key in levels:
        levels[key].updated_at = now
        return levels[key]
    rating = MODEL.rating()
    return LadderStanding(game=game, kind=key[0], name=key[1], mu=rating.mu,
                          sigma=rating.sigma, rating=rating.mu, recent=[],
                          updated_at=now)


def _move(sides: list[LadderStanding], match: Match) -> None:
    """One game's result on its two sides' standings (team A's first): the teams' ratings
    moved, the levels' kept; results, latest games and how long they are kept."""
    winner = match.result["winner"]
    ranks = [0, 0] if winner is None else [0 if winner == 0 else 1, 0 if winner == 1 else 1]
    rated = MODEL.rate([[MODEL.rating(mu=side.mu, sigma=side.sigma)] for side in sides],
                       ranks=ranks)
    for index, side in enumerate(sides):
        side.expires_at = _kept_until(side, match.expires_at)
        if side.level is None:
            side.mu, side.sigma = rated[index][0].mu, rated[index][0].sigma
            side.rating = rated[index][0].mu
        if winner is None:
            side.draws += 1
        elif winner == index:
            side.wins += 1
        else:
            side.losses += 1
        side.recent = [match.pk, *side.recent][:RECENT]


def _kept_until(side: LadderStanding, expires: datetime | None) -> datetime | None:
    """Until when a standing is kept, one more of its games being kept until `expires`
    (None: for good): as long as the longest kept of its games."""
    if side.level is not None:
        return None
    if side.games == 0:
        return expires
    if side.expires_at is None or expires is None:
        return None
    return max(side.expires_at, expires)


def _replayed(game: str, now: datetime) -> tuple[dict[Key, LadderStanding], list[int]]:
    """The game's standings made from its ended practice games (not stored), in the order
    they came to the ladder, and the games rated, in order."""
    standings = {(level.kind, level.name): _newcomer(game, (level.kind, level.name), now)
                 for level in level_standings(game)}
    rated = []
    for match in _ended(game).iterator(chunk_size=1000):
        sides = _sides(match)
        if sides is None:
            continue
        for key in sides:
            if key not in standings:
                standings[key] = _newcomer(game, key, now)
        _move([standings[key] for key in sides], match)
        rated.append(match.pk)
    return standings, rated
