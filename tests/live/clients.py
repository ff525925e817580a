"""The handshakes the live tests open sockets with, as a browser or a team's program."""

import json

from channels.testing import WebsocketCommunicator

from spectator.asgi import application

# A page of the server itself at http://127.0.0.1 (port 80) asks for the socket.
BROWSER = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def browser_socket(path: str, cookie: bytes = b"", token: str | None = None):
    headers = list(BROWSER)
    if cookie:
        headers.append((b"cookie", cookie))
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def first_answer(communicator) -> tuple[str, object]:
    """How an opening socket was answered: ("403", None) for a refused handshake (a close
    before the accept, which a server sends as HTTP 403), ("closed", code) for a socket
    accepted and then closed at once, ("message", the first message) otherwise."""
    connected, _ = await communicator.connect()
    if not connected:
        return "403", None
    output = await communicator.receive_output(timeout=3)
    if output["type"] == "websocket.close":
        return "closed", output.get("code")
    return "message", json.loads(output["text"])
