"""The strategy step: a team's program submits its actions for the open turn.

Every request is stored as a Submission before it is answered, accepted or not. A
request that carries a token of its match's own team is judged and stored with its
match row locked; the clock's claim of a turn updates that row, so a submission either
lands before its turn is resolved (and counts) or sees the turn resolved (and is
refused): never lost in between. What is kept of it (docs/api.md, "Limits and what is
kept"):

- an accepted request (or a program's output) of the match's own team: its whole body
  (up to 64 KiB), until the team's bodies kept in the match reach its storage budget
  (settings.TEAM_BODY_BUDGET); past it, like a refused one;
- a refused request of the team: its size, its SHA-256 and its first KEPT_HEAD bytes;
- any other request (no token, an unknown one, one of another match, a match that does
  not exist) is a stranger's: refused, and kept like a refused one. So is a 429;
- but a source's strangers' requests and 429s beyond the first STORED_A_MINUTE of a
  minute are counted, not stored: one RequestTally row per source and minute holds
  their count, their bytes and the first few heads and hashes, so a flood costs bytes
  per minute, not per request.

A refusal's `detail` quotes at most an excerpt of what was sent (DETAIL_LIMIT).

Rate limits, over a sliding window of RATE_WINDOW, refused requests included:
RATE_LIMIT requests per team token, and ADDRESS_LIMIT strangers' requests per source
address (a team's own requests never count toward its address). Answered 429 with
`Retry-After`. With Redis configured the windows are sorted sets in Redis, shared by
every server process; otherwise (the embedded default's one process, or Redis not
answering) they are kept in this process's memory (`windows`).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import re
import secrets
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import connection, transaction

from matches.access import team_by_authorization, teams_forget
from matches.models import Match, RequestTally, Submission, Team, storable_id
from matches.rules import rules_for
from matches.rules.base import team_named
from matches.selectors import epoch_ms, move_clock
from matches.services import turns

MAX_BODY = 64 * 1024
MAX_ACTIONS = 256
KEPT_HEAD = 256  # bytes kept of a refused, a stranger's, a 429 or an over-budget request
STORED_A_MINUTE = 5  # a source's strangers' requests and 429s stored one by one a minute
TALLY_SAMPLES = 3  # heads and hashes a tally keeps of the requests it only counts
DETAIL_LIMIT = 300  # characters of a refusal's detail
RATE_LIMIT = 20  # requests a token may send within RATE_WINDOW
ADDRESS_LIMIT = 20  # strangers' requests an address may send within RATE_WINDOW
RATE_WINDOW = timedelta(seconds=1)
WINDOWS = "spectator:answers:"  # the Redis keys of the rate-limit windows
# What PostgreSQL cannot store in text or jsonb: kept out of accepted actions.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    """What arrived, as a door saw it (`Request.arrived` builds it from what it read)."""

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
    game: str = ""  # the one game a dialect serves: a match of another is refused
    output: bool = False  # lines a team's program printed that are no move: kept, not judged

    @classmethod
    def arrived(cls, *, match_id: int, headers: Mapping[str, str], body: bytes, received: int,
                remote_addr: str | None, received_at: datetime, **kind: Any) -> Request:
        """The request as any door read it: its `headers` (a mapping that finds lower-case
        names), the first MAX_BODY + 1 bytes of its body and how many bytes arrived in all.
        Its size is the larger of that and its Content-Length, so that a client that claims
        more than it sends is recorded as it claimed. `kind` sets the other fields (a
        dialect's `authorization`, found where it carries its token)."""
        declared = headers.get("content-length", "")
        fields = {"authorization": headers.get("authorization", ""), **kind}
        return cls(
            match_id=match_id, body=body,
            body_size=max(received, int(declared) if _whole_number(declared) else 0),
            content_type=headers.get("content-type", "").split(";")[0].strip().lower(),
            remote_addr=remote_addr, received_at=received_at, **fields)


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class Refusal(Exception):
    def __init__(self, status: int, error: str, detail: str,
                 headers: dict[str, str] | None = None) -> None:
        if len(detail) > DETAIL_LIMIT:  # a reason never carries a whole body back
            detail = detail[:DETAIL_LIMIT - 1] + "…"
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail
        self.headers = headers or {}


class DryRun(Refusal):
    """A dialect's "check, do nothing" (Kakomimasu v1's dryRun): raised by its reader with
    the actions it read; answered 200 `dry_run` where the same request would have been
    accepted, and refused as that request would have been otherwise. Never played."""

    def __init__(self, actions: list[dict[str, Any]], meant: int | None) -> None:
        super().__init__(200, "dry_run", "a dry run: the actions are well formed, and not "
                                         "played")
        self.actions, self.meant = actions, meant


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
    if _tallied(f"address:{_address(request.remote_addr) or '-'}", request, match, None,
                refusal):
        return _reply(refusal)
    return _store(request, match, None, None, refusal)


def _stranger_refusal(request: Request, match: Match | None, team: Team | None) -> Refusal:
    # Without a team's token the answer is the same whether the match exists or not
    # (a private match is not told from a missing one).
    if team is None and not request.authorization.strip():
        return Refusal(401, "unauthorized",
                       "send the team token as 'Authorization: Bearer <token>'")
    if team is None:
        return Refusal(401, "unauthorized", "the Authorization header carries no team token "
                                            "(expected 'Bearer <token>')")
    if match is None:
        return Refusal(404, "not_found", f"there is no match {request.match_id}")
    return Refusal(403, "forbidden",
                   f"this token belongs to another match, not {request.match_id}")


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
            if _tallied(f"team:{team.pk}", request, match, team, limited):
                return _reply(limited)
            return _store(request, match, team, None, limited)
        if request.output:
            return _output(request, match, team, turn)
        # Before its start a match takes nothing, and its body is not even read: what a
        # refusal of it would say (a secret board's agents) is not told early.
        early = _closed(match, turn, request.received_at) if request.received_at < \
            match.start_at else None
        if early:
            return _store(request, match, team, None, early)
        dry_run = None
        try:
            actions, meant = _read(request, match.game)
        except DryRun as checked:  # well formed; answered as a real one would be, below
            actions, meant, dry_run = checked.actions, checked.meant, checked
        except Refusal as problem:
            return _store(request, match, team, None, problem)
        refusal = (_protocol_played(match) or _closed(match, turn, request.received_at)
                   or _wrong_turn(turn, meant) or dry_run)
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
    if request.game and request.game != game:
        raise Refusal(400, "wrong_dialect", f"match {request.match_id} is not a "
                                            f"{rules_for(request.game).title} match: the "
                                            f"{request.dialect} API serves those only")
    actions, meant = (request.read or parse_submission)(game, request.body)
    if len(actions) > MAX_ACTIONS:  # a dialect's list too
        raise Refusal(400, "invalid_actions", f"actions: at most {MAX_ACTIONS} actions")
    return actions, meant


def _rate_limited(request: Request, team: Team) -> Refusal | None:
    """429 if the token sent RATE_LIMIT other requests in the window up to this one.

    Every request of the token counts, refused ones and 429s included: a token that keeps
    flooding stays refused while it floods, and is answered again at most a second after
    its last request. Judges' offline entries neither count nor wait.
    """
    if request.entered_by:
        return None
    now = request.received_at
    recent = _window_count(f"token:{team.token_hash[:32]}", now)
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
    recent = _window_count(f"address:{address}", now)
    if recent < ADDRESS_LIMIT:
        return None
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests without a team token from {address} within a "
                   f"second; an address may send {ADDRESS_LIMIT}", {"Retry-After": "1"})


def _window_count(key: str, now: datetime) -> int:
    """How many requests of `key` arrived in the window up to `now`, this one not counted;
    this one is counted for the next. From Redis when configured (one round trip), else
    from this process's windows."""
    client = _redis()
    if client is not None:
        try:
            return _redis_window(client, f"{WINDOWS}{key}", now.timestamp())
        except redis.RedisError:  # Redis down: this process still counts
            logger.warning("rate windows: Redis did not answer; counting in this process")
    return windows.count(key, now.timestamp())


class Windows:
    """Sliding windows of request times per key, in this process's memory; thread-safe.
    Keys whose window has emptied are dropped now and then, so a flood of addresses
    leaves nothing behind."""

    def __init__(self) -> None:
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._swept = 0.0

    def count(self, key: str, now: float) -> int:
        span = RATE_WINDOW.total_seconds()
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - span:
                times.popleft()
            recent = sum(1 for moment in times if moment <= now)
            times.append(now)
            if now - self._swept > 10 * span:
                self._sweep(now - span)
        return recent

    def _sweep(self, before: float) -> None:
        self._swept = before
        for key in [key for key, times in self._times.items() if not times or
                    times[-1] <= before]:
            del self._times[key]

    def reset(self) -> None:
        with self._lock:
            self._times.clear()


windows = Windows()


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
    """Forget every rate-limit window, this process's and those kept in Redis (tests; an
    operator after an incident)."""
    windows.reset()
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


def _reply(refusal: Refusal) -> Reply:
    return Reply(refusal.status, {"error": refusal.error, "detail": refusal.detail},
                 refusal.headers)


def _store(request: Request, match: Match | None, team: Team | None, actions: Any,
           refusal: Refusal) -> Reply:
    turn = match.strategy_turn(request.received_at) if match else None
    _create(request, match, team, turn, actions, refusal.status, refusal.error, refusal.detail)
    return _reply(refusal)


def _create(request: Request, match: Match | None, team: Team | None, turn: int | None,
            actions: Any, status: int, error: str = "", detail: str = "") -> None:
    """Stored whole (up to MAX_BODY) when it is the match's own team's and was taken,
    within the team's budget; only its head otherwise (docstring above)."""
    body = request.body[:MAX_BODY]
    whole = team is not None and status in (200, 202) and _budget_take(team, len(body))
    _insert(
        match=match.pk if match else None, team=team.pk if team else None, turn=turn,
        received_at=request.received_at, remote_addr=_address(request.remote_addr),
        content_type=UNSTORABLE.sub("\ufffd", request.content_type[:200]),
        body=body if whole else body[:KEPT_HEAD], body_size=request.body_size,
        body_sha256=hashlib.sha256(body).hexdigest(), actions=actions,
        status_code=status, error=error, detail=detail, counted=False,
        entered_by=request.entered_by, note=UNSTORABLE.sub("\ufffd", request.note),
        dialect=request.dialect,
    )


def _budget_take(team: Team, size: int) -> bool:
    """Count `size` bytes against the team's storage budget in its match, if they fit
    (one statement: the match row lock orders a team's requests)."""
    with connection.cursor() as cursor:
        cursor.execute(_statements()[2], [size, team.pk, size, settings.TEAM_BODY_BUDGET])
        return cursor.rowcount == 1


def _tallied(source: str, request: Request, match: Match | None, team: Team | None,
             refusal: Refusal) -> bool:
    """Count the request in its source's tally of the minute; True when the source has
    had its STORED_A_MINUTE rows this minute already, so that this one is only counted
    (its head and hash kept among the tally's first samples)."""
    minute = request.received_at.replace(second=0, microsecond=0)
    field = RequestTally._meta.get_field("minute")
    with connection.cursor() as cursor:
        cursor.execute(_statements()[3], [
            source[:80], field.get_db_prep_save(minute, connection),
            match.pk if match else None, team.pk if team else None, request.body_size])
        count = cursor.fetchone()[0]
    if count <= STORED_A_MINUTE:
        return False
    if count <= STORED_A_MINUTE + TALLY_SAMPLES:
        tally = RequestTally.objects.get(source=source[:80], minute=minute)
        body = request.body[:MAX_BODY]
        tally.samples = [*tally.samples, {
            "received_at": request.received_at.isoformat(timespec="milliseconds"),
            "status": refusal.status, "error": refusal.error, "size": request.body_size,
            "sha256": hashlib.sha256(body).hexdigest(),
            "head": UNSTORABLE.sub("\ufffd", body[:KEPT_HEAD].decode(
                "utf-8", errors="backslashreplace")),
        }][:TALLY_SAMPLES]
        tally.save(update_fields=["samples"])
    return True


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
def _statements() -> tuple[str, str, str, str]:
    """The lock's, the insert's, the budget's and the tally's SQL. SQLite has no FOR
    UPDATE (a writing transaction holds the whole database); both take the tally's
    upsert with RETURNING."""
    quote = connection.ops.quote_name
    match_table, table = quote(Match._meta.db_table), quote(Submission._meta.db_table)
    columns = ", ".join(quote(Match._meta.get_field(name).column) for name in LOCKED)
    lock = f"SELECT {columns} FROM {match_table} WHERE {quote('id')} = %s" + (
        " FOR UPDATE" if connection.features.has_select_for_update else "")
    stored = [Submission._meta.get_field(name).column for name in INSERTED]
    insert = (f"INSERT INTO {table} ({', '.join(quote(c) for c in stored)}) "
              f"VALUES ({', '.join(['%s'] * len(stored))})")
    kept = quote("kept_bytes")
    budget = (f"UPDATE {quote(Team._meta.db_table)} SET {kept} = {kept} + %s "
              f"WHERE {quote('id')} = %s AND {kept} + %s <= %s")
    tallies = quote(RequestTally._meta.db_table)
    count, size = quote("count"), quote("body_bytes")
    tally = (f"INSERT INTO {tallies} ({quote('source')}, {quote('minute')}, "
             f"{quote('match_id')}, {quote('team_id')}, {count}, {size}, {quote('samples')}) "
             f"VALUES (%s, %s, %s, %s, 1, %s, '[]') "
             f"ON CONFLICT ({quote('source')}, {quote('minute')}) DO UPDATE SET "
             f"{count} = {tallies}.{count} + 1, {size} = {tallies}.{size} + excluded.{size} "
             f"RETURNING {count}")
    return lock, insert, budget, tally


INSERTED = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
            "body_size", "body_sha256", "actions", "status_code", "error", "detail", "counted",
            "entered_by", "note", "dialect")


def _whole_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _address(remote_addr: str | None) -> str | None:
    """The client's IP address; None for anything else (a unix socket, say)."""
    try:
        return str(ipaddress.ip_address(remote_addr or ""))
    except ValueError:
        return None
