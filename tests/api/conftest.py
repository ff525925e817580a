"""The answer API is served two ways, and every submission test runs on both.

`ninja`: Django's test client through the django-ninja operation (the schema's own
view). `asgi`: the ASGI answer endpoint that daphne serves the route with. Its
service runs thread-sensitive, which under the test's `async_to_sync` is the test's
own thread, so it sees the test's transaction as it sees its own connection.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator


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

    def post(self, path: str, data: bytes | str = b"", content_type: str = "",
             HTTP_AUTHORIZATION: str | None = None, host: str = "testserver") -> Answer:
        body = data.encode() if isinstance(data, str) else data
        headers = [(b"host", host.encode()), (b"content-type", content_type.encode()),
                   (b"content-length", str(len(body)).encode())]
        if HTTP_AUTHORIZATION is not None:
            headers.append((b"authorization", HTTP_AUTHORIZATION.encode()))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "query_string": b"", "headers": headers, "client": ("127.0.0.1", 50000),
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


@pytest.fixture(params=["ninja", "asgi"])
def api(request, db):
    if request.param == "ninja":
        return request.getfixturevalue("client")
    from matches.answers import AnswerEndpoint

    return AsgiClient(AnswerEndpoint(refuse))
