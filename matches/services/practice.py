"""Practice matches a team or a guest starts itself (docs/api.md, "Practice"): against a
built-in player of a chosen level, or against whoever asks next for the same game.

The server's setting `PRACTICE` says who may: `off` (a contest venue's default), `teams`
(a holder of a team token an organiser issued: a match's, a tournament's or one made for
practice by `manage.py createpractice`) or `open` (anyone, under a guest name).
Every practice match is made by the one service that makes matches (`match_make`) and
is public live, as on the community server; it counts in no tournament. A built-in
player's seat is played by `services/seats.py`. Caps bound the practice matches at once,
in all and per caller; a guest's match is taken down `PRACTICE_GUEST_HOURS` after it is
made.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction

from matches.access import team_by_authorization
from matches.boards.specs import BoardError, board_spec_data, board_spec_fixed
from matches.bots import levels
from matches.models import Board, Entrant, Match, PracticeTeam, Team, new_token, token_hash
from matches.rules import GAMES, LIVE_GAMES, rules_for
from matches.rules.checks import RecordError
from matches.rules.turns import is_protocol_played
from matches.services.boards import (
    ChosenBoard,
    board_choose,
    board_offered,
    board_store,
    boards_offered,
)
from matches.services.clock import clock_wake
from matches.services.ladder import ladder_forget
from matches.services.matches import Timing, TimingError, match_make

LEVELS = ("level-1", "level-2", "level-3", "level-4")
ANYONE = "anyone"
NOBODY = "none"  # a seat nobody plays: its agents stay (to try one's moves alone)
WAITING = "waiting"  # the seat of a match opened for "anyone", until someone takes it
OPPONENTS = (*LEVELS, ANYONE, NOBODY)
# How soon a practice match starts once both seats are taken.
START_SECONDS = 3.0
# What a caller may ask for (the official ranges, roomier where practice needs it).
TURNS = (1, 200)
STRATEGY_SECONDS = (0.5, 60.0)
TRANSITION_SECONDS = (0.0, 10.0)
CLOCK_SECONDS = (10.0, 1800.0)
AGENTS = (1, 30)
NAME_LENGTH = 40
# A match opened for "anyone" waits this long for a second caller.
WAIT_SECONDS = 600


class PracticeError(Exception):
    """A refusal: its HTTP status, a short code and a sentence saying why."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


@dataclass(frozen=True)
class Ask:
    """A request for a practice match, as the caller sent it (checked by `practice_start`)."""

    game: Any
    opponent: Any
    board: Any = None
    turns: Any = None
    strategy_seconds: Any = None
    transition_seconds: Any = None
    clock: Any = None
    first: Any = None
    name: Any = None
    agents: Any = None


@dataclass(frozen=True)
class Started:
    match: Match
    token: str
    team: int
    waiting: bool  # opened for "anyone": it starts when a second caller takes the seat


def practice_setting() -> str:
    return getattr(settings, "PRACTICE", "off")


def practice_start(ask: Ask, by: str, team_name: str | None, now: datetime) -> Started:
    """Make (or, for "anyone", join) a practice match for a caller: `by` names it for the
    caps ("address:<ip>" or "team:<digest>"), `team_name` is its team's name (None: a
    guest). PracticeError with the status and words of a refusal."""
    game = _game(ask.game)
    rules = rules_for(game)
    opponent = ask.opponent
    if opponent not in OPPONENTS:
        raise PracticeError(400, "bad_opponent", f"opponent: expected one of "
                            f"{', '.join(OPPONENTS)}, got {_shown(opponent)}")
    name = _name(ask.name, team_name)
    first = ask.first
    if first is not None and type(first) is not bool:
        raise PracticeError(400, "bad_first", f"first: expected true or false, got {_shown(first)}")
    timing = Timing(turns=_number(ask.turns, "turns", TURNS, whole=True),
                    strategy_seconds=_number(ask.strategy_seconds, "strategy_seconds",
                                             STRATEGY_SECONDS),
                    transition_seconds=_number(ask.transition_seconds, "transition_seconds",
                                               TRANSITION_SECONDS),
                    clock_seconds=_number(ask.clock, "clock", CLOCK_SECONDS),
                    between_seconds=5.0)
    agents = _number(ask.agents, "agents", AGENTS, whole=True)
    try:
        timing.checked(rules)
    except TimingError as error:
        field = {"clock_seconds": "clock"}.get(error.field, error.field)
        raise PracticeError(400, f"bad_{field}", f"{field}: {error}; leave {field} out") \
            from None
    with transaction.atomic():
        _one_at_a_time()
        _caps(by, now)
        if opponent == ANYONE and ask.board is None:
            joined = _join_waiting(game, by, name, now)
            if joined is not None:
                return joined
        board = _board(game, ask.board)
        if agents is not None:  # as the game's rules take a record's agents on this board
            try:
                rules.check_agents(agents, board.board.data)
            except RecordError as error:
                raise PracticeError(400, "bad_agents", f"{error} ({rules.title} takes its "
                                    "agents from its board: leave agents out)") from None
        caller = 0 if first is not False else 1
        names = [name, name]
        names[1 - caller] = {ANYONE: WAITING, NOBODY: "Nobody"}.get(opponent) or \
            f"Level {opponent[-1]}"
        if names[0] == names[1]:
            names[caller] += " (you)"
        start = now + timedelta(seconds=START_SECONDS if opponent != ANYONE else WAIT_SECONDS)
        try:
            made = match_make(game=game, team_names=names, start_at=start, boards=[board],
                              timing=timing, title=f"Practice: {names[0]} vs {names[1]}",
                              public_live=True, agents=agents)
        except RecordError as error:
            raise PracticeError(400, "bad_request", str(error)) from None
        guest = team_name is None
        expires = now + timedelta(hours=settings.PRACTICE_GUEST_HOURS) if guest else None
        ids = [game_.pk for game_ in made.games]
        Match.objects.filter(pk__in=ids).update(practice_by=by, expires_at=expires)
        seat = {ANYONE: WAITING}.get(opponent, opponent)
        Team.objects.filter(match_id__in=ids, index=1 - caller).update(seat=seat)
        match = Match.objects.get(pk=made.games[0].pk)
    return Started(match, made.tokens[caller], caller, waiting=opponent == ANYONE)


def practice_caller(authorization: str, address: str | None) -> tuple[str, str | None]:
    """Who asks for practice, by the server's setting: ("team:<digest>", its team's name)
    for a team token, ("address:<ip>", None) for a guest. A token practice itself gave
    (a practice match's team's) is a guest's: it counts against the address that sends
    it, under a guest's caps, not as a team of its own (a chain of practice requests,
    each with the token the last one gave, is one guest). PracticeError where practice
    is off, where it is for teams and no team's token came, or for a token that is no
    team's."""
    setting = practice_setting()
    if setting == "off":
        raise PracticeError(404, "practice_off", "this server offers no practice matches")
    _throttle(address)
    scheme, _, token = authorization.strip().partition(" ")
    team = team_by_authorization(authorization) if authorization.strip() else None
    if authorization.strip() and team is None and token.strip():
        team = PracticeTeam.objects.filter(token_hash=token_hash(token.strip())).first()
    if authorization.strip() and team is None:
        raise PracticeError(401, "unauthorized", "this token is no team's")
    if team is None or _of_practice(team):
        if setting == "teams":
            raise PracticeError(401, "unauthorized",
                                "practice here is for teams: send your team token (a "
                                "practice match's token starts no other)")
        return f"address:{address}", None
    return f"team:{token_hash(token.strip())[:32]}", team.name


def _of_practice(team: Any) -> bool:
    """Whether a token's team is a practice match's (a token practice gave)."""
    match_id = getattr(team, "match_id", None)
    return match_id is not None and Match.objects.filter(pk=match_id).exclude(
        practice_by="").exists()


# Practice requests one address may make a minute, refused or not (each reads the
# database): a flood is answered 429 from the cache alone.
REQUESTS_A_MINUTE = 30


def _throttle(address: str | None) -> None:
    key = f"practice:{address}:{int(time.time() // 60)}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # gone meanwhile (the cache evicted it): count afresh
        cache.set(key, 1, timeout=120)
        count = 1
    if count > REQUESTS_A_MINUTE:
        raise PracticeError(429, "rate_limited", f"at most {REQUESTS_A_MINUTE} practice "
                            "requests a minute from one address")


def playable_games() -> list[str]:
    """The games practised through the API and the page (those with built-in levels)."""
    return [g for g in LIVE_GAMES if levels(g) and not is_protocol_played(rules_for(g))]


def rated_games() -> list[str]:
    """The games with a practice ladder: those practised here, and those whose practice
    server (a protocol's own: docs/chaser-server.md) seats the levels' programs."""
    return [g for g in GAMES if levels(g)]


def _game(game: Any) -> str:
    playable = playable_games()
    if game not in LIVE_GAMES:
        raise PracticeError(400, "bad_game",
                            f"game: expected one of {', '.join(playable)}, got {_shown(game)}")
    if game not in playable:
        raise PracticeError(400, "bad_game", f"game: {rules_for(game).title} is practised on "
                            "its own server (docs/chaser-server.md), not through this API")
    return game


def _name(name: Any, team_name: str | None) -> str:
    if team_name is not None:
        return team_name
    if name is None:
        return "Guest"
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_LENGTH or any(
            ord(c) < 32 or 0xD800 <= ord(c) < 0xE000 for c in name):
        raise PracticeError(400, "bad_name", f"name: a guest name of 1 to {NAME_LENGTH} "
                            "characters, without control characters")
    if any(unicodedata.category(c) == "Cf" for c in name):  # zero-width and the like
        raise PracticeError(400, "bad_name", "name: without invisible characters")
    seen = unicodedata.normalize("NFKC", name).strip()  # as a reader sees it: one width
    if RESERVED_NAME.fullmatch(seen):
        raise PracticeError(400, "bad_name", "name: the built-in players' names are theirs")
    if PracticeTeam.objects.filter(name__iexact=seen).exists() or \
            Entrant.objects.filter(name__iexact=seen).exists():
        raise PracticeError(400, "bad_name", "name: a registered team's; a guest plays "
                            "under a name of its own (a team sends its token)")
    return name.strip()


# The names of the seats the server plays (a guest may not pass for one on the ladder).
RESERVED_NAME = re.compile(r"(?i)(level[ -]?\d+|nobody|waiting)")


def _number(value: Any, field: str, bounds: tuple[float, float], whole: bool = False):
    if value is None:
        return None
    kinds = (int,) if whole else (int, float)
    if type(value) not in kinds or not bounds[0] <= value <= bounds[1]:
        kind = "a whole number" if whole else "a number"
        raise PracticeError(400, f"bad_{field}", f"{field}: {kind} from {bounds[0]:g} to "
                            f"{bounds[1]:g}, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _board(game: str, board: Any) -> ChosenBoard:
    """A shipped board by name, "random", or a board's JSON (a field file's content)."""
    if board_spec_fixed(game) is not None:
        if board is not None:
            raise PracticeError(400, "bad_board", f"board: {rules_for(game).title} has one "
                                "board only; leave board out")
        return board_choose(game, None)
    if board is None or board == "random":
        return board_choose(game, "random")
    if isinstance(board, str):
        if not board_offered(game, board):  # a private saved board is no board here
            known = ", ".join(["random", *boards_offered(game)])
            raise PracticeError(400, "bad_board", f"board: expected one of {known}, or a "
                                f"board's JSON; got {_shown(board)}")
        return board_choose(game, board)
    try:
        spec, hints = board_spec_data(game, board, "board")
    except BoardError as error:
        raise PracticeError(400, "bad_board", str(error)) from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        raise PracticeError(400, "bad_board", "board: not a board of this game (a public "
                            "boards file's entry, a Procon field or a match record)") from None
    return ChosenBoard(board_store("practice field", spec, SENT, game), hints)


SENT = "sent for practice"  # the source of a board a caller sent (kept while a match is on it)


PRACTICE_LOCK = 0x70726163  # PostgreSQL's advisory lock of practice_start ("prac")


def _one_at_a_time() -> None:
    """Make the caps' count and the match it allows one step: in the transaction,
    practice starts one at a time. SQLite's transactions here begin IMMEDIATE (one
    writer at a time already, spectator/settings.py); PostgreSQL's take a lock that
    ends with the transaction."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PRACTICE_LOCK])


def _caps(by: str, now: datetime) -> None:
    """Refuse beyond the practice matches allowed at once: in all, for the guests together
    (their share of them: guests from any number of addresses never take them all from
    the teams), and for this caller."""
    running = Match.objects.unfinished().exclude(practice_by="").filter(first_game=None)
    if running.count() >= settings.PRACTICE_MAX_MATCHES:
        raise PracticeError(429, "practice_full", "the server's practice matches are all in "
                            "use; try again when one has ended")
    if by.startswith(GUEST) and running.filter(practice_by__startswith=GUEST).count() >= \
            guests_cap():
        raise PracticeError(429, "practice_full", "the practice matches guests may play are "
                            "all in use (a team's token may still start one); try again when "
                            "one has ended")
    if running.filter(practice_by=by).count() >= settings.PRACTICE_MAX_PER_CALLER:
        raise PracticeError(429, "too_many_practice_matches",
                            f"at most {settings.PRACTICE_MAX_PER_CALLER} practice matches at "
                            "once for one team or address; wait until one has ended")


GUEST = "address:"  # a guest's `by`: its address (a team's: "team:<digest>")


def guests_cap() -> int:
    """The practice matches guests may have at once, together (at least one)."""
    return max(1, math.floor(settings.PRACTICE_MAX_MATCHES * settings.PRACTICE_GUEST_SHARE))


def _join_waiting(game: str, by: str, name: str, now: datetime) -> Started | None:
    """Take the seat of the oldest match of the game opened for "anyone" by another
    caller: it starts now. None when none waits."""
    seat = (Team.objects.select_for_update().filter(
                seat=WAITING, match__game=game, match__first_game=None,
                match__start_at__gt=now, match__resolved_turns=0)
            .exclude(match__practice_by=by).order_by("match__created_at").first())
    if seat is None:
        return None
    token = new_token()
    match = seat.match
    other = match.teams.exclude(index=seat.index).values_list("name", flat=True).first()
    name = f"{name} 2" if name == other else name
    games = [match, *match.later_games.order_by("start_at", "pk")]
    shift = now + timedelta(seconds=START_SECONDS) - match.start_at
    for each in games:
        Match.objects.filter(pk=each.pk).update(start_at=each.start_at + shift,
                                                title=each.title.replace(WAITING, name))
    Team.objects.filter(match__in=games, index=seat.index).update(seat="", name=name)
    # the token names the first game's team; it serves the later games too
    Team.objects.filter(pk=seat.pk).update(token_hash=token_hash(token))
    clock_wake()
    return Started(Match.objects.get(pk=match.pk), token, seat.index, waiting=False)


def practice_sweep(now: datetime) -> int:
    """Take down the guests' practice matches whose time is up, and the matches opened
    for "anyone" that nobody joined; how many were."""
    expired = Match.objects.filter(expires_at__lte=now).exclude(practice_by="")
    unjoined = Match.objects.filter(teams__seat=WAITING, start_at__lte=now, first_game=None)
    count = 0
    for query in (expired, unjoined):
        ids = list(query.values_list("pk", flat=True)[:100])
        if ids:
            ladder_forget(ids, now)  # their ids out of the ladder's latest games
            count += Match.objects.filter(pk__in=ids).delete()[1].get("matches.Match", 0)
    # the boards callers sent that no match is on any more (some 16 KB each)
    unused = Board.objects.filter(source=SENT, matches__isnull=True).values_list("pk", flat=True)
    Board.objects.filter(pk__in=list(unused[:500])).delete()
    return count
