"""What is kept of each request (the package's docstring says what, and why): a
Submission row, whole or its head, or only a count in its source's tally of the minute.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.db import connection

from matches.live.broadcast import room_heard
from matches.models import Match, RequestTally, Team
from matches.services.submissions.answers import (
    Refusal,
    Reply,
    Request,
    client_address,
    refusal_reply,
)
from matches.services.submissions.parsing import MAX_BODY, UNSTORABLE
from matches.services.submissions.sql import statements, submission_insert

KEPT_HEAD = 256  # bytes kept of a refused, a stranger's, a 429 or an over-budget request
STORED_A_MINUTE = 5  # a source's strangers' requests and 429s stored one by one a minute
TALLY_SAMPLES = 3  # heads and hashes a tally keeps of the requests it only counts


def store(request: Request, match: Match | None, team: Team | None, actions: Any,
          refusal: Refusal) -> Reply:
    turn = match.strategy_turn(request.received_at) if match else None
    create(request, match, team, turn, actions, refusal.status, refusal.error, refusal.detail)
    return refusal_reply(refusal)


def create(request: Request, match: Match | None, team: Team | None, turn: int | None,
           actions: Any, status: int, error: str = "", detail: str = "", *,
           debug: tuple[str, Any] | None = None) -> bool:
    """Stored whole (up to MAX_BODY) when it is the match's own team's and was taken,
    within the team's budget; only its head otherwise (the package's docstring). Its
    `debug` text and marks are kept with a whole body only (they are part of it).
    Whether it was kept whole."""
    body = request.body[:MAX_BODY]
    whole = team is not None and status in (200, 202) and budget_take(team, len(body))
    text, marks = debug if debug is not None and whole else ("", None)
    submission_insert(
        match=match.pk if match else None, team=team.pk if team else None, turn=turn,
        received_at=request.received_at, remote_addr=client_address(request.remote_addr),
        content_type=UNSTORABLE.sub("\ufffd", request.content_type[:200]),
        body=body if whole else body[:KEPT_HEAD], body_size=request.body_size,
        body_sha256=hashlib.sha256(body).hexdigest(), actions=actions,
        status_code=status, error=error, detail=detail, counted=False,
        entered_by=request.entered_by, note=UNSTORABLE.sub("\ufffd", request.note),
        dialect=request.dialect, client_offset_ms=clock_offset(request),
        debug=text, marks=marks,
    )
    if team is not None and match is not None:  # its health in the control room
        room_heard(team.pk)
    return whole


OFFSET_LIMIT_MS = 86_400_000  # a clock further off than a day is no clock: not kept


def clock_offset(request: Request) -> int | None:
    """How far the program's clock was ahead of the server's (ms) when it sent this,
    where it said its time (the time on the wire, a few ms on a LAN, counts in it)."""
    if request.client_time is None:
        return None
    offset = round((request.client_time - request.received_at).total_seconds() * 1000)
    return offset if abs(offset) <= OFFSET_LIMIT_MS else None


def budget_take(team: Team, size: int) -> bool:
    """Count `size` bytes against the team's storage budget in its match, if they fit
    (one statement: the match row lock orders a team's requests)."""
    with connection.cursor() as cursor:
        cursor.execute(statements()[2], [size, team.pk, size, settings.TEAM_BODY_BUDGET])
        return cursor.rowcount == 1


def tallied(source: str, request: Request, match: Match | None, team: Team | None,
            refusal: Refusal) -> bool:
    """Count the request in its source's tally of the minute; True when the source has
    had its STORED_A_MINUTE rows this minute already, so that this one is only counted
    (its head and hash kept among the tally's first samples)."""
    minute = request.received_at.replace(second=0, microsecond=0)
    field = RequestTally._meta.get_field("minute")
    with connection.cursor() as cursor:
        cursor.execute(statements()[3], [
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
