"""The answer endpoint, `POST /api/matches/<id>/actions`, and a team's read of its own
match, `GET /api/matches/<id>`, served straight from ASGI.

At every deadline all teams' programs post at once, so this one route skips Django's
request machinery. Under ASGI Django runs each request in a context of its own: a
new thread, hence a new database connection, every request, and every synchronous
step of the middleware chain hops threads. Here the body is read on the event loop
and `submission_receive` runs on the answers' own thread (ANSWERS), which keeps its
database connection and which nothing else uses (a stranger's request runs on another):
a team's answer never waits behind a page, a picture, a socket's opening, a stream or a
flood of strangers' posts (docs/architecture.md, "Time apart from reads"). The match
row lock inside the service still orders submissions against the clock.

A team's program reads its match's state between its answers, as often as it likes
(the community's clients every 50-500 ms): in a hosted league, two programs a match,
most of what a server does. Under Django's handler each read was a new thread and a new
database connection (a quarter of its time on SQLite: SQLite's functions registered
anew, its settings run anew). A read with a token this process knows (`token_known`) is
served here on the reads' own threads (OWN_READS, their connections kept) when the token's
team plays in that match (`matches.api.own_state_text`, which the django-ninja operation
answers it with too); anything else (a visitor's read, a judge's, another match's
token, no such match) is handed on to Django unchanged.

The django-ninja operation in `matches.api` is the same endpoint for the OpenAPI
schema and for any server that is not ASGI; both build their `Request` with
`Request.arrived`, as the dialects do, and call the same service, so they answer alike.
What Django's stack would decide before and after is read from its settings through
matches/security.py: a host it would refuse is handed on to it (its own 400), and each
answer carries the security headers its middleware would add.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.db import connection
from django.utils import timezone

from matches.access import TokenRefused, bearer_holder, reads_own, token_known
from matches.admission import tarpit
from matches.security import host_allowed, is_secure, security_headers
from matches.services.submissions import MAX_BODY, Reply, Request, submission_receive

# One thread for every team's answer in this process: answers are short (a lock, a few
# statements), and one connection keeps SQLite's writes in one place. Requests whose
# token this process has not seen a team for (strangers', and a team's very first) go
# to a thread of their own: a flood of them never queues before a team's answer.
ANSWERS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="answers")
STRANGERS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="strangers")
ROUTE = re.compile(r"/api/matches/(\d{1,18})/actions/?")
# A team's reads of its own match: two threads, each with its database connection (one
# may build a turn's text while the other answers from the kept ones).
OWN_READS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="own-reads")
READ_ROUTE = re.compile(r"/api/matches/(\d{1,18})")


class AnswerEndpoint:
    """ASGI middleware: answer POSTs to the actions route, hand everything else on."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        found = ROUTE.fullmatch(path)
        if found is None or scope["method"] != "POST":
            read = READ_ROUTE.fullmatch(path) if scope.get("method") == "GET" else None
            if read is None or not await _own_read(scope, int(read.group(1)), send):
                return await self.application(scope, receive, send)
            return None
        headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                   for name, value in scope["headers"]}
        if not host_allowed(headers.get("host", "")):  # Django answers it with its 400
            return await self.application(scope, receive, send)
        received_at = timezone.now()
        body, size = await _read_body(receive)
        request = Request.arrived(
            match_id=int(found.group(1)), headers=headers, body=body, received=size,
            remote_addr=(scope.get("client") or [None])[0], received_at=received_at)
        known = token_known(request.authorization)
        reply = await receive_in_thread(request, known)
        if reply.status == 429 and not known:
            await tarpit()  # a stranger flooding asks once a second, not at once
        await _answer(send, reply, is_secure(scope.get("scheme", "http"), headers))


def _receive(request: Request) -> Reply:
    """Run the service; drop a connection that an error has left unusable."""
    try:
        return submission_receive(request)
    finally:
        if connection.errors_occurred:
            connection.close_if_unusable_or_obsolete()


_ANSWERED = sync_to_async(_receive, thread_sensitive=False, executor=ANSWERS)
_REFUSED = sync_to_async(_receive, thread_sensitive=False, executor=STRANGERS)


async def receive_in_thread(request: Request, known: bool) -> Reply:
    """The service on the answers' thread, or the strangers'. (Tests inside a database
    transaction of their own thread put a thread-sensitive call here instead, to see
    their uncommitted rows.)"""
    return await (_ANSWERED if known else _REFUSED)(request)


async def _own_read(scope: dict, match_id: int, send: Any) -> bool:
    """A team's read of its own match answered (True), or nothing sent (False: it is
    Django's)."""
    headers = {name.decode("latin-1").lower(): value.decode("latin-1")
               for name, value in scope["headers"]}
    authorization = headers.get("authorization", "")
    if not token_known(authorization) or not host_allowed(headers.get("host", "")):
        return False
    text = await read_in_thread(match_id, authorization)
    if text is None:
        return False
    secure = is_secure(scope.get("scheme", "http"), headers)
    response = [("content-type", "application/json; charset=utf-8"),
                ("content-length", str(len(text))), *security_headers(secure)]
    await send({"type": "http.response.start", "status": 200,
                "headers": [(name.lower().encode(), value.encode())
                            for name, value in response]})
    await send({"type": "http.response.body", "body": text})
    return True



def _read(match_id: int, authorization: str) -> bytes | None:
    """The state text of a team's own match (`matches.api.own_state_text`); None when
    this is not a team's read of its own match, or there is no such match."""
    from matches.api import own_state_text

    try:
        try:
            holder = bearer_holder(authorization, match_id)
        except TokenRefused:
            return None
        if not reads_own(holder, match_id):
            return None
        return own_state_text(holder, match_id)
    finally:
        if connection.errors_occurred:
            connection.close_if_unusable_or_obsolete()


_OWN_READ = sync_to_async(_read, thread_sensitive=False, executor=OWN_READS)


async def read_in_thread(match_id: int, authorization: str) -> bytes | None:
    """`_read` on the reads' own thread. (Tests inside a database transaction put a
    thread-sensitive call here instead, as for the answers.)"""
    return await _OWN_READ(match_id, authorization)


async def _read_body(receive: Any) -> tuple[bytes, int]:
    """The first MAX_BODY + 1 bytes, and how many bytes arrived in all."""
    kept, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        if size <= MAX_BODY:
            kept.append(chunk[: MAX_BODY + 1 - size])
        size += len(chunk)
        more = message.get("more_body", False)
    return b"".join(kept), size


async def _answer(send: Any, reply: Reply, secure: bool) -> None:
    """The reply in JSON, with the security headers Django's middleware would have added."""
    body = json.dumps(reply.body).encode()
    headers = [("content-type", "application/json"), *security_headers(secure),
               ("cache-control", "no-store"), ("content-length", str(len(body))),
               *reply.headers.items()]
    await send({"type": "http.response.start", "status": reply.status,
                "headers": [(name.lower().encode(), value.encode()) for name, value in headers]})
    await send({"type": "http.response.body", "body": body})
