"""The websocket stack reads the handshake's session and leaves `send` alone: no
wrapper runs for each of the thousands of messages a turn sends."""

import pytest
from channels.auth import AuthMiddlewareStack
from channels.testing import WebsocketCommunicator

from spectator.sessions import ReadSessionAuthStack
from tests.live.test_socket_privacy import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


class Echo:
    """Accepts, then sends who it sees in the scope and whether the `send` it was given
    is the server's own (`expected`)."""

    expected = None

    async def __call__(self, scope, receive, send):
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        name = scope["user"].username or "anonymous"
        await send({"type": "websocket.send", "text": f"{name} {send == self.expected}"})
        await receive()


async def answer(stack, cookie: bytes | None) -> str:
    app = Echo()
    headers = [(b"cookie", cookie)] if cookie else []
    communicator = WebsocketCommunicator(stack(app), "/ws/x/", headers=headers)
    app.expected = communicator.output_queue.put  # what the testing server passes as send
    connected, _ = await communicator.connect()
    assert connected
    text = await communicator.receive_from(timeout=3)
    await communicator.disconnect()
    return text


async def test_the_user_of_the_session_cookie_is_in_the_scope_and_send_is_the_servers():
    assert await answer(ReadSessionAuthStack, await session_cookie(judge=True)) == "judy True"


async def test_no_cookie_or_an_unknown_session_is_an_anonymous_user():
    assert await answer(ReadSessionAuthStack, None) == "anonymous True"
    assert await answer(ReadSessionAuthStack, b"sessionid=nonsense") == "anonymous True"


async def test_channels_own_stack_wraps_send_which_is_what_this_one_avoids():
    # The contrast that makes the first test mean something.
    assert await answer(AuthMiddlewareStack, await session_cookie(judge=True)) == "judy False"
