"""One GET sent straight to an ASGI application in this process (no socket): what a test
and bench/requests.py use to drive the project's handlers."""

import asyncio


async def asgi_get(app, path: str, query: bytes = b"") -> tuple[int, dict, bytes]:
    """(status, headers by lower-case name, body) of a GET from 127.0.0.1."""
    sent, requests = [], [{"type": "http.request", "body": b""}]

    async def receive():  # the request, then no disconnect
        if requests:
            return requests.pop()
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    await app({"type": "http", "method": "GET", "path": path, "query_string": query,
               "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 4000),
               "server": ("127.0.0.1", 80), "scheme": "http", "http_version": "1.1",
               "asgi": {"version": "3.0"}}, receive, send)
    headers = {name.decode().lower(): value.decode() for name, value in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])
