"""The strategy step: a team's program submits its actions for the open turn.

Every request is stored as a Submission before it is answered, accepted or not. A
request that carries a token of its match's own team is judged and stored with its
match row locked; the clock's claim of a turn updates that row, so a submission either
lands before its turn is resolved (and counts) or sees the turn resolved (and is
refused): never lost in between. It keeps its whole body (up to 64 KiB).

Any other request (no token, an unknown one, one of another match, a match that does
not exist) is a stranger's: refused, and stored with its size, its SHA-256 and its
first KEPT_OF_STRANGERS bytes only, so that a flood costs little room. So is a request
refused for the rate limit.

Rate limits, over a sliding window of RATE_WINDOW, refused requests included:
RATE_LIMIT requests per team token, and ADDRESS_LIMIT strangers' requests per source
address (a team's own requests never count toward its address). Answered 429 with
`Retry-After`. With Redis configured the windows are sorted sets in Redis, otherwise
counts of the stored submissions; either way a team's window is read under its match
lock, so its limit holds exactly across any number of server processes.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import connection, transaction

from matches.access import team_by_authorization, teams_forget
from matches.models import Match, Submission, Team, storable_id
from matches.rules import rules_for
from matches.rules.base import team_named
from matches.selectors import epoch_ms, move_clock
from matches.services import turns

MAX_BODY = 64 * 1024
MAX_ACTIONS = 256
KEPT_OF_STRANGERS = 256  # bytes kept of a stranger's or a rate-limited request
RATE_LIMIT = 20  # requests a token may send within RATE_WINDOW
ADDRESS_LIMIT = 20  # strangers' requests an address may send within RATE_WINDOW
RATE_WINDOW = timedelta(seconds=1)
WINDOWS = "spectator:answers:"  # the Redis keys of the rate-limit windows
# What PostgreSQL cannot store in text or jsonb: kept out of accepted actions.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    """What arrived, as the view saw it."""

    match_id: int
    authorization: str
    body: bytes
    body_size: int
    content_type: str
    remote_addr: str | None
    received_at: datetime
    entered_by: str = ""  # a judge's user name: an offline entry, not the team's program
    note: str = ""
    # A dialect of another server's API (matches/dialects/): its name, and its reader of
    # a body into the native (actions, turn meant), raising Refusal as parse_submission.
    dialect: str = ""
    read: Callable[[str, bytes], tuple[list[dict[str, Any]], int | None]] | None = None
    output: bool = False  # lines a team's program printed that are no move: kept, not judged


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class Refusal(Exception):
    def __init__(self, status: int, error: str, detail: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail
        self.headers = headers or {}


def submission_receive(request: Request) -> Reply:
    """Judge one request, store it, and say what to answer."""
    team = team_by_authorization(request.authorization, request.match_id)
    if isinstance(team, Team) and team.match_id == request.match_id:
        try:
            return _judge(request, team)
        except Match.DoesNotExist:  # the match has gone since this process kept its team
            teams_forget()
    return _refuse_stranger(request, team)


def submission_enter(team: Team, body: bytes, judge: str, note: str, received_at: datetime,
                     remote_addr: str | None = None) -> Reply:
    """A judge enters a team's actions by hand (offline operation): judged and stored
    exactly as if the team had sent them, marked with the judge's name and note, and
    never rate limited."""
    request = Request(match_id=team.match_id, authorization="", body=body,
                      body_size=len(body), content_type="application/json",
                      remote_addr=remote_addr, received_at=received_at,
                      entered_by=judge, note=note)
    return _judge(request, team)


def submission_by_bot(team: Team, body: dict[str, Any], received_at: datetime,
                      bot: str) -> Reply:
    """A built-in bot's answer for a team it plays (a tournament run with bots): judged
    and stored as the team's program's would be, its API named `bot:<name>`."""
    raw = json.dumps(body).encode()
    request = Request(match_id=team.match_id, authorization="", body=raw,
                      body_size=len(raw), content_type="application/json",
                      remote_addr=None, received_at=received_at, dialect=f"bot:{bot}"[:20])
    return _judge(request, team)


def _refuse_stranger(request: Request, team: Team | None) -> Reply:
    """A request without a token of its match's teams (`team`: of another match, if any)."""
    match = (Match.objects.filter(pk=request.match_id).first()
             if storable_id(request.match_id) else None)
    refusal = _address_limited(request) or _stranger_refusal(request, match, team)
    return _store(request, match, None, None, refusal)


def _stranger_refusal(request: Request, match: Match | None, team: Team | None) -> Refusal:
    if match is None:
        return Refusal(404, "not_found", f"there is no match {request.match_id}")
    if team is not None:
        return Refusal(403, "forbidden",
                       f"this token belongs to another match, not {request.match_id}")
    if not request.authorization.strip():
        return Refusal(401, "unauthorized",
                       "send the team token as 'Authorization: Bearer <token>'")
    return Refusal(401, "unauthorized", "the Authorization header carries no team token "
                                        "(expected 'Bearer <token>')")


def parse_submission(game: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """The body must be {"actions": [action, ...], "turn": n} in UTF-8 (a BOM is allowed),
    `turn` optional, with no key twice in an object; each action well-formed for the game.
    The actions, and the turn the team meant them for (None: whichever is open)."""
    data = json_read(body)
    if not isinstance(data, dict) or "actions" not in data:
        raise Refusal(400, "invalid_actions", 'the body must be an object {"actions": [...]}')
    return _actions(game, data["actions"]), _turn(data.get("turn"))


def _turn(turn: Any) -> int | None:
    """None, or a whole number from 1 (3.0 is 3, as JSON Schema's "integer" has it)."""
    if type(turn) is float and turn.is_integer():
        turn = int(turn)
    if turn is not None and (type(turn) is not int or turn < 1):
        raise Refusal(400, "invalid_actions", "turn: expected a whole number from 1")
    return turn


def parse_actions(game: str, body: bytes) -> list[dict[str, Any]]:
    """The actions of a body, as `parse_submission` reads them."""
    return parse_submission(game, body)[0]


def json_read(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8-sig"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as error:
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: not UTF-8 "
                                             f"({error.reason} at byte {error.start})") from None
    except RecursionError:
        raise Refusal(400, "malformed_json", "the body is not valid JSON: nested too deeply"
                      ) from None
    except ValueError as error:  # bad JSON, NaN, a repeated key, a number too long to read
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: {error}") from None


def _actions(game: str, actions: Any) -> list[dict[str, Any]]:
    if not isinstance(actions, list):
        raise Refusal(400, "invalid_actions", "actions: expected a list")
    if len(actions) > MAX_ACTIONS:
        raise Refusal(400, "invalid_actions", f"actions: at most {MAX_ACTIONS} actions")
    rules = rules_for(game)
    parsed = []
    for index, action in enumerate(actions):
        problem = rules.action_problem(action)
        if problem:
            raise Refusal(400, "invalid_actions", f"actions[{index}]{problem}")
        fields = rules.action_fields(action)
        for key, value in fields.items():
            if isinstance(value, str) and UNSTORABLE.search(value):
                raise Refusal(400, "invalid_actions", f"actions[{index}].{key}: a NUL character "
                                                      "or a lone surrogate")
        parsed.append(fields)
    return parsed


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {json.dumps(key)} appears twice in an object")
        seen.add(key)
    return dict(pairs)


def _judge(request: Request, team: Team) -> Reply:
    """A request of the match's own team: judged and stored with its match row locked
    (Match.DoesNotExist if the match has gone)."""
    with transaction.atomic():
        match = _lock(team.match_id)
        turn = match.strategy_turn(request.received_at)
        limited = _rate_limited(request, team)
        if limited:
            return _store(request, match, team, None, limited)
        if request.output:
            return _output(request, match, team, turn)
        try:
            actions, meant = _read(request, match.game)
        except Refusal as problem:
            return _store(request, match, team, None, problem)
        refusal = (_protocol_played(match) or _closed(match, turn, request.received_at)
                   or _wrong_turn(turn, meant))
        if refusal:
            return _store(request, match, team, actions, refusal)
        if match.alternating:
            return _move(request, match, team, turn, actions)
        _create(request, match, team, turn, actions, 202)
    body = {"turn": turn, "received_at": epoch_ms(request.received_at), "actions": len(actions)}
    return Reply(202, body)


def _output(request: Request, match: Match, team: Team, turn: int | None) -> Reply:
    """What a team's program printed besides its moves (through `playprogram`): kept
    for the audit (status 200), as text of at most MAX_BODY bytes."""
    if request.body_size > MAX_BODY:
        return _store(request, match, team, None, Refusal(
            413, "too_large", f"the body is {request.body_size} bytes; at most {MAX_BODY}"))
    try:
        text = request.body.decode("utf-8")
    except UnicodeDecodeError as error:
        return _store(request, match, team, None, Refusal(
            400, "not_text", f"the output is not UTF-8 text (byte {error.start})"))
    lines = len(text.splitlines())
    if not lines:
        return _store(request, match, team, None, Refusal(400, "empty", "the output is empty"))
    _create(request, match, team, turn, None, 200, detail=f"program output: {lines} lines")
    return Reply(200, {"turn": turn, "lines": lines})


def _move(request: Request, match: Match, team: Team, turn: int,
          actions: list[dict[str, Any]]) -> Reply:
    """An alternating game's move (the match row locked): refused unless it is the
    team's move, its time has not run out and the move is legal; else stored, counted
    and its turn resolved at once (the passes of a team left without a move after it
    too): the turn message follows at once."""
    rules = rules_for(match.game)
    mover = rules.mover(turn)
    if team.index != mover:
        return _store(request, match, team, actions, Refusal(
            409, "not_your_move", f"turn {turn} is {team_named(mover)}'s move"))
    clock = move_clock(match, request.received_at)
    if clock["remaining_ms"][team.index] <= 0:
        return _store(request, match, team, actions, Refusal(
            409, "time_over", "the team's thinking time has run out: the game is lost on time"))
    played_on = turns.state_before(Match.objects.select_related("board").get(pk=match.pk), turn)
    reason = rules.move_refusal(played_on, team.index, actions)
    if reason:
        return _store(request, match, team, actions, Refusal(400, "illegal_move", reason))
    stored = rules.move_as_stored(actions)
    _create(request, match, team, turn, stored, 202)
    turns.move_resolve(match_id=match.pk, number=turn, now=request.received_at)
    return Reply(202, {"turn": turn, "received_at": epoch_ms(request.received_at),
                       "actions": len(stored)})


def _protocol_played(match: Match) -> Refusal | None:
    """A game its own protocol server plays (CHaser over TCP) takes no answers here."""
    if match.protocol_played:
        return Refusal(409, "wrong_protocol", "this game is played over its own protocol "
                                              "server (docs/chaser-server.md), not this API")
    return None


def _read(request: Request, game: str) -> tuple[list[dict[str, Any]], int | None]:
    if request.entered_by and not request.note.strip():
        raise Refusal(400, "note_required", "an offline entry needs a note saying why")
    if request.body_size > MAX_BODY:
        raise Refusal(413, "too_large", f"the body is {request.body_size} bytes; at most 64 KiB "
                                        f"({MAX_BODY} bytes) are accepted")
    return (request.read or parse_submission)(game, request.body)


def _rate_limited(request: Request, team: Team) -> Refusal | None:
    """429 if the token sent RATE_LIMIT other requests in the window up to this one.

    Every request of the token counts, refused ones and 429s included: a token that keeps
    flooding stays refused while it floods, and is answered again at most a second after
    its last request. Judges' offline entries neither count nor wait.
    """
    if request.entered_by:
        return None
    now = request.received_at
    recent = _window_count(f"token:{team.token_hash[:32]}", now,
                           lambda: Submission.objects.filter(team=team, entered_by=""))
    if recent < RATE_LIMIT:
        return None
    logger.warning("rate limited: match %s, team %s (%s): %d requests within a second",
                   team.match_id, team.name, team.letter, recent + 1)
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests within a second; a token may send {RATE_LIMIT}",
                   {"Retry-After": "1"})


def _address_limited(request: Request) -> Refusal | None:
    """429 if this address sent ADDRESS_LIMIT other strangers' requests in the window."""
    now, address = request.received_at, _address(request.remote_addr)
    recent = _window_count(f"address:{address}", now,
                           lambda: Submission.objects.filter(team=None, remote_addr=address))
    if recent < ADDRESS_LIMIT:
        return None
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests without a team token from {address} within a "
                   f"second; an address may send {ADDRESS_LIMIT}", {"Retry-After": "1"})


def _window_count(key: str, now: datetime, stored: Any) -> int:
    """How many requests of `key` arrived in the window up to `now`, this one not counted;
    this one is counted for the next. From Redis when configured (one round trip), else
    from `stored()`, that key's submissions stored so far."""
    client = _redis()
    if client is not None:
        try:
            return _redis_window(client, f"{WINDOWS}{key}", now.timestamp())
        except redis.RedisError:  # Redis down: the stored submissions still know
            logger.warning("rate windows: Redis did not answer; counting in the database")
    return stored().filter(received_at__lte=now, received_at__gt=now - RATE_WINDOW).count()


def _redis_window(client: Any, name: str, score: float) -> int:
    """Count the window's scores before `score`, add this one, drop the long gone."""
    seconds = RATE_WINDOW.total_seconds()
    pipe = client.pipeline(transaction=True)
    pipe.zremrangebyscore(name, "-inf", score - 10 * seconds)
    pipe.zcount(name, f"({score - seconds}", score)
    pipe.zadd(name, {secrets.token_hex(8): score})
    pipe.expire(name, 60)
    return pipe.execute()[1]


def rate_windows_reset() -> None:
    """Forget every rate-limit window kept in Redis (tests; an operator after an incident).
    Those counted from stored submissions stay."""
    client = _redis()
    keys = client.keys(f"{WINDOWS}*") if client is not None else []
    if keys:
        client.delete(*keys)


@functools.cache
def _redis() -> Any:
    """This process's Redis client for the rate windows, if Redis is configured."""
    return redis.Redis.from_url(settings.REDIS_URL) if settings.REDIS_URL else None


def _closed(match: Match, turn: int | None, now: datetime) -> Refusal | None:
    if match.over:
        return Refusal(409, "not_running", "the match is finished")
    if now < match.start_at:
        return Refusal(409, "not_running",
                       f"the match starts at {epoch_ms(match.start_at)} (epoch ms)")
    if turn is None or match.resolved_turns >= turn:
        upcoming = turn + 1 if turn else match.next_turn_to_open(now)
        opens = (f"; turn {upcoming} opens at {epoch_ms(match.opens_at(upcoming))} (epoch ms)"
                 if upcoming <= match.turns else "")
        return Refusal(409, "step_over", f"the strategy step is over{opens}")
    return None


def _wrong_turn(turn: int, meant: int | None) -> Refusal | None:
    if meant is None or meant == turn:
        return None
    return Refusal(409, "wrong_turn", f"the open strategy step is turn {turn}, not {meant}")


def _store(request: Request, match: Match | None, team: Team | None, actions: Any,
           refusal: Refusal) -> Reply:
    turn = match.strategy_turn(request.received_at) if match else None
    _create(request, match, team, turn, actions, refusal.status, refusal.error, refusal.detail)
    return Reply(refusal.status, {"error": refusal.error, "detail": refusal.detail},
                 refusal.headers)


def _create(request: Request, match: Match | None, team: Team | None, turn: int | None,
            actions: Any, status: int, error: str = "", detail: str = "") -> None:
    """Stored whole (up to MAX_BODY) for the match's own team, bounded for anyone else
    and for a 429, which would otherwise let a flood fill the disk."""
    whole = team is not None and status != 429
    body = request.body[:MAX_BODY]
    _insert(
        match=match.pk if match else None, team=team.pk if team else None, turn=turn,
        received_at=request.received_at, remote_addr=_address(request.remote_addr),
        content_type=UNSTORABLE.sub("\ufffd", request.content_type[:200]),
        body=body if whole else body[:KEPT_OF_STRANGERS], body_size=request.body_size,
        body_sha256=hashlib.sha256(body).hexdigest(), actions=actions,
        status_code=status, error=error, detail=detail, counted=False,
        entered_by=request.entered_by, note=UNSTORABLE.sub("\ufffd", request.note),
        dialect=request.dialect,
    )


# The lock and the insert of every request, as two plain statements written once per
# process: the ORM's select_for_update().get() and create() cost about three times
# their CPU, and this path runs for both teams of every match at every deadline.
LOCKED = ("game", "turns", "strategy_ms", "transition_ms", "start_at", "resolved_turns",
          "closed", "clock_ms")


def _lock(match_id: int) -> Match:
    """The match's row, locked until the transaction ends (Match.DoesNotExist if gone):
    the fields that say whether and for which turn it takes actions."""
    with connection.cursor() as cursor:
        cursor.execute(_statements()[0], [match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"there is no match {match_id}")
    fields = dict(zip(LOCKED, row, strict=True))
    if getattr(fields["start_at"], "tzinfo", None) is None:  # SQLite's: text, or naive
        fields["start_at"] = connection.ops.convert_datetimefield_value(
            fields["start_at"], None, connection)
    return Match(pk=match_id, **fields | {"closed": bool(fields["closed"])})


def _insert(**values: Any) -> None:
    """One Submission row; each value prepared by its model field, as the ORM would."""
    params = [Submission._meta.get_field(name).get_db_prep_save(values[name], connection)
              for name in INSERTED]
    with connection.cursor() as cursor:
        cursor.execute(_statements()[1], params)


@functools.cache
def _statements() -> tuple[str, str]:
    """The lock's and the insert's SQL. SQLite has no FOR UPDATE (a writing transaction
    holds the whole database)."""
    quote = connection.ops.quote_name
    match_table, table = quote(Match._meta.db_table), quote(Submission._meta.db_table)
    columns = ", ".join(quote(Match._meta.get_field(name).column) for name in LOCKED)
    lock = f"SELECT {columns} FROM {match_table} WHERE {quote('id')} = %s" + (
        " FOR UPDATE" if connection.features.has_select_for_update else "")
    stored = [Submission._meta.get_field(name).column for name in INSERTED]
    insert = (f"INSERT INTO {table} ({', '.join(quote(c) for c in stored)}) "
              f"VALUES ({', '.join(['%s'] * len(stored))})")
    return lock, insert


INSERTED = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
            "body_size", "body_sha256", "actions", "status_code", "error", "detail", "counted",
            "entered_by", "note", "dialect")


def _address(remote_addr: str | None) -> str | None:
    """The client's IP address; None for anything else (a unix socket, say)."""
    try:
        return str(ipaddress.ip_address(remote_addr or ""))
    except ValueError:
        return None
