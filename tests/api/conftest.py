"""The answer API is served two ways, and every submission test runs on both.

`ninja`: Django's test client through the django-ninja operation (the schema's own
view). `asgi`: the ASGI answer endpoint that daphne serves the route with. Its
service runs thread-sensitive, which under the test's `async_to_sync` is the test's
own thread, so it sees the test's transaction as it sees its own connection.

`clock`: the time both paths stamp requests with, held still and moved by the test,
so that windows of time are tested without sleeping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.utils import timezone


@dataclass
class Answer:
    status_code: int
    headers: dict[str, str]
    content: bytes

    def json(self):
        return json.loads(self.content)


class AsgiClient:
    """Just enough of Django's test client (`post`) to drive an ASGI application."""

    CHUNK = 16 * 1024  # bodies arrive in several messages, as from a socket

    def __init__(self, application) -> None:
        self.application = application

    def get(self, path: str, **meta: str) -> Answer:
        """As `post`, with no body."""
        return self.post(path, method="GET", CONTENT_LENGTH="0", **meta)

    def post(self, path: str, data: bytes | str = b"", content_type: str = "",
             HTTP_AUTHORIZATION: str | None = None, host: str = "testserver",
             CONTENT_LENGTH: str | None = None, REMOTE_ADDR: str = "127.0.0.1",
             secure: bool = False, method: str = "POST", **meta: str) -> Answer:
        """As the test client's: no content type sends none; CONTENT_LENGTH may lie;
        `secure` is https; other headers as HTTP_X_NAME=value."""
        body = data.encode() if isinstance(data, str) else data
        length = str(len(body)) if CONTENT_LENGTH is None else CONTENT_LENGTH
        headers = [(b"host", host.encode()), (b"content-length", length.encode())]
        if content_type:
            headers.append((b"content-type", content_type.encode()))
        if HTTP_AUTHORIZATION is not None:
            headers.append((b"authorization", HTTP_AUTHORIZATION.encode("latin-1")))
        headers += [(name.removeprefix("HTTP_").replace("_", "-").lower().encode(),
                     value.encode("latin-1")) for name, value in meta.items()]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": method, "scheme": "https" if secure else "http",
                 "path": path, "raw_path": path.encode(),
                 "query_string": b"", "headers": headers, "client": (REMOTE_ADDR, 50000),
                 "server": ("testserver", 80)}
        return async_to_sync(self._exchange)(scope, body)

    async def _exchange(self, scope: dict, body: bytes) -> Answer:
        communicator = ApplicationCommunicator(self.application, scope)
        chunks = [body[i:i + self.CHUNK] for i in range(0, len(body), self.CHUNK)] or [b""]
        for index, chunk in enumerate(chunks):
            await communicator.send_input({"type": "http.request", "body": chunk,
                                           "more_body": index < len(chunks) - 1})
        start = await communicator.receive_output(10)
        content = b""
        while True:
            message = await communicator.receive_output(10)
            content += message.get("body", b"")
            if not message.get("more_body"):
                break
        await communicator.wait(10)
        headers = {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}
        return Answer(start["status"], headers, content)


async def refuse(scope, receive, send):
    raise AssertionError(f"the answer endpoint handed on {scope['method']} {scope['path']}")


@pytest.fixture(autouse=True)
def fresh_rate_windows():
    """Every test starts with empty rate-limit windows: the rolled-back database gives
    them that, Redis (when configured) keeps them across tests."""
    from matches.services.submissions import rate_windows_reset

    rate_windows_reset()


@pytest.fixture(autouse=True)
def answers_on_this_thread(monkeypatch):
    """The answer endpoint's service (and a team's own reads) on the test's thread,
    inside its transaction: daphne runs it on the answers' own thread (the reads'),
    which would not see the test's uncommitted rows."""
    from matches import api_asgi

    here = sync_to_async(api_asgi._receive, thread_sensitive=True)
    monkeypatch.setattr(api_asgi, "receive_in_thread", lambda request, known: here(request))
    monkeypatch.setattr(api_asgi, "read_in_thread",
                        sync_to_async(api_asgi._read, thread_sensitive=True))


@pytest.fixture(params=["ninja", "asgi"])
def api(request, db):
    if request.param == "ninja":
        return request.getfixturevalue("client")
    from matches.api_asgi import AnswerEndpoint

    return AsgiClient(AnswerEndpoint(refuse))


class Clock:
    def __init__(self, now: datetime) -> None:
        self.time = now

    def now(self) -> datetime:
        return self.time

    def advance(self, seconds: float) -> None:
        self.time += timedelta(seconds=seconds)

    def to_next_minute(self) -> None:
        """To a second past the next whole minute: a test that counts what is stored of
        a source's minute (STORED_A_MINUTE) then sends all of it within one minute, as it
        would not if it began at :57 (seen once)."""
        self.time = self.time.replace(second=1, microsecond=0) + timedelta(minutes=1)


@pytest.fixture
def clock(monkeypatch):
    """Hold the answer API's clock (both paths) at now; `clock.advance(s)` moves it."""
    from matches import api as ninja_api
    from matches import api_asgi as answers

    clock = Clock(timezone.now())
    for module in (answers, ninja_api):
        monkeypatch.setattr(module, "timezone", clock)
    return clock
