"""The strategy step: a team's program submits its actions for the open turn.

Every request is stored as a Submission before it is answered, accepted or not.
Once the token is known, the request is judged and stored with its match row
locked; the clock's claim of a turn updates that row, so a submission either lands
before its turn is resolved (and counts) or sees the turn resolved (and is refused):
never lost in between.

A token may send RATE_LIMIT requests within a second; more are answered 429. They
are counted from the stored submissions under the same lock, so the limit holds
exactly across any number of server processes.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from matches.access import team_by_digest
from matches.models import Match, Submission, Team, token_hash
from matches.rules import rules_for
from matches.selectors import epoch_ms

MAX_BODY = 64 * 1024
MAX_ACTIONS = 256
RATE_LIMIT = 20  # requests a token may send within RATE_WINDOW
RATE_WINDOW = timedelta(seconds=1)
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


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    submission: Submission | None = field(default=None, repr=False)
    headers: dict[str, str] = field(default_factory=dict)


class Refusal(Exception):
    def __init__(self, status: int, error: str, detail: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail
        self.headers = headers or {}


def submission_receive(request: Request) -> Reply:
    """Judge one request, store it, and say what to answer."""
    try:
        team = _authenticate(request.match_id, request.authorization)
    except Refusal as refusal:
        return _store(request, None, None, None, refusal)
    return _judge(request, team)


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


def _authenticate(match_id: int, authorization: str) -> Team:
    """The team whose token this is; refusals for every other case."""
    scheme, _, token = authorization.partition(" ")
    digest = token_hash(token.strip()) if token.strip() else ""
    team = team_by_digest(digest) if digest else None
    foreign = team is None or team.match_id != match_id
    if foreign and not Match.objects.filter(pk=match_id).exists():
        raise Refusal(404, "not_found", f"there is no match {match_id}")
    if scheme.lower() != "bearer" or not digest:
        raise Refusal(401, "unauthorized", "send the team token as 'Authorization: Bearer <token>'")
    if team is None or not hmac.compare_digest(team.token_hash, digest):
        raise Refusal(401, "unauthorized", "the token is not a team token")
    if team.match_id != match_id:
        raise Refusal(403, "forbidden", f"this token belongs to another match, not {match_id}")
    return team


def parse_actions(game: str, body: bytes) -> list[dict[str, Any]]:
    """The body must be {"actions": [action, ...]} in UTF-8 (a BOM is allowed), with no
    key twice in an object; each action well-formed for the game."""
    try:
        data = json.loads(body.decode("utf-8-sig"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as error:
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: not UTF-8 "
                                             f"({error.reason} at byte {error.start})") from None
    except RecursionError:
        raise Refusal(400, "malformed_json", "the body is not valid JSON: nested too deeply"
                      ) from None
    except ValueError as error:  # bad JSON, NaN, a repeated key, a number too long to read
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: {error}") from None
    if not isinstance(data, dict) or "actions" not in data:
        raise Refusal(400, "invalid_actions", 'the body must be an object {"actions": [...]}')
    actions = data["actions"]
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
    """A request of a known team: read, judged and stored with its match row locked."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=team.match_id)
        actions, problem = None, None
        try:
            actions = _read(request, match.game)
        except Refusal as refusal:
            problem = refusal
        turn = match.strategy_turn(request.received_at)
        refusal = (_rate_limited(request, team) or problem
                   or _closed(match, turn, request.received_at))
        if refusal:
            return _store(request, match, team, actions, refusal)
        submission = _create(request, match, team, turn, actions, 202)
    body = {"turn": turn, "received_at": epoch_ms(request.received_at), "actions": len(actions)}
    return Reply(202, body, submission)


def _read(request: Request, game: str) -> list[dict[str, Any]]:
    if request.entered_by and not request.note.strip():
        raise Refusal(400, "note_required", "an offline entry needs a note saying why")
    if request.body_size > MAX_BODY:
        raise Refusal(413, "too_large", f"the body is {request.body_size} bytes; at most 64 KiB "
                                        f"({MAX_BODY} bytes) are accepted")
    return parse_actions(game, request.body)


def _rate_limited(request: Request, team: Team) -> Refusal | None:
    """429 if the token sent RATE_LIMIT other requests in the second up to this one.

    Every stored request of the token counts, refused ones and 429s included: a token
    that keeps flooding stays refused while it floods, and is answered again at most a
    second after its last request. Judges' offline entries neither count nor wait.
    """
    if request.entered_by:
        return None
    now = request.received_at
    recent = Submission.objects.filter(team=team, entered_by="", received_at__lte=now,
                                       received_at__gt=now - RATE_WINDOW).count()
    if recent < RATE_LIMIT:
        return None
    logger.warning("rate limited: match %s, team %s (%s): %d requests within a second",
                   team.match_id, team.name, team.letter, recent + 1)
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests within a second; a token may send {RATE_LIMIT}",
                   {"Retry-After": "1"})


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


def _store(request: Request, match: Match | None, team: Team | None, actions: Any,
           refusal: Refusal) -> Reply:
    if match is None:  # refused before the team was known: file it under its match
        match = Match.objects.filter(pk=request.match_id).first()
    turn = match.strategy_turn(request.received_at) if match else None
    submission = _create(request, match, team, turn, actions, refusal.status,
                         refusal.error, refusal.detail)
    return Reply(refusal.status, {"error": refusal.error, "detail": refusal.detail}, submission,
                 refusal.headers)


def _create(request: Request, match: Match | None, team: Team | None, turn: int | None,
            actions: Any, status: int, error: str = "", detail: str = "") -> Submission:
    return Submission.objects.create(
        match=match, team=team, turn=turn, received_at=request.received_at,
        remote_addr=_address(request.remote_addr),
        content_type=UNSTORABLE.sub("\ufffd", request.content_type[:200]),
        body=request.body[:MAX_BODY], body_size=request.body_size, actions=actions,
        status_code=status, error=error, detail=detail, entered_by=request.entered_by,
        note=UNSTORABLE.sub("\ufffd", request.note),
    )


def _address(remote_addr: str | None) -> str | None:
    """The client's IP address; None for anything else (a unix socket, say)."""
    try:
        return str(ipaddress.ip_address(remote_addr or ""))
    except ValueError:
        return None
