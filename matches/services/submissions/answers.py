"""What a request is and what it is answered: every door to the answer service (the
API, the lean ASGI path, the dialects, the judges' entry, the bots) builds a `Request`
and gets a `Reply`; a check that refuses raises or returns a `Refusal`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

DETAIL_LIMIT = 300  # characters of a refusal's detail


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
    client_time: datetime | None = None  # the program's clock, where it said (clock_said)

    @classmethod
    def arrived(cls, *, match_id: int, headers: Mapping[str, str], body: bytes, received: int,
                remote_addr: str | None, received_at: datetime, **kind: Any) -> Request:
        """The request as any door read it: its `headers` (a mapping that finds lower-case
        names), the first MAX_BODY + 1 bytes of its body and how many bytes arrived in all.
        Its size is the larger of that and its Content-Length, so that a client that claims
        more than it sends is recorded as it claimed. `kind` sets the other fields (a
        dialect's `authorization`, found where it carries its token)."""
        declared = headers.get("content-length", "")
        fields = {"authorization": headers.get("authorization", ""),
                  "client_time": clock_said(headers), **kind}
        return cls(
            match_id=match_id, body=body,
            body_size=max(received, int(declared) if _whole_number(declared) else 0),
            content_type=headers.get("content-type", "").split(";")[0].strip().lower(),
            remote_addr=remote_addr, received_at=received_at, **fields)


def clock_said(headers: Mapping[str, str]) -> datetime | None:
    """The time a team's program said it sent its request at: `X-Client-Time` (epoch
    milliseconds), else the HTTP `Date` header (whole seconds: read as the middle of
    its second); None if neither, or neither is a time (docs/api.md, "Your clock")."""
    said = headers.get("x-client-time", "").strip()
    if said.isdigit() and len(said) <= 15:
        return datetime.fromtimestamp(int(said) / 1000, tz=UTC)
    date = headers.get("date", "")
    if date:
        try:
            moment = parsedate_to_datetime(date)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        return moment + HALF_SECOND if moment.tzinfo is not None else None
    return None


HALF_SECOND = timedelta(milliseconds=500)


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


def refusal_reply(refusal: Refusal) -> Reply:
    return Reply(refusal.status, {"error": refusal.error, "detail": refusal.detail},
                 refusal.headers)


def client_address(remote_addr: str | None) -> str | None:
    """The client's IP address; None for anything else (a unix socket, say)."""
    try:
        return str(ipaddress.ip_address(remote_addr or ""))
    except ValueError:
        return None


def _whole_number(text: str) -> bool:
    return text.isascii() and text.isdigit()
