"""Who is at the other end of a websocket: the session, read once at the handshake.

Channels' `SessionMiddleware` wraps the socket's `send` so that it can save a changed
session and set its cookie with the handshake's answer. A websocket here never
changes the session (logging in and out are pages), yet that wrapper runs for every
message sent: for a turn going out to 5,000 sockets it was about a sixth of the
servers' work. This one only reads: it puts the cookie's session in the scope for
`AuthMiddleware` and passes `send` on untouched.
"""

from importlib import import_module

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware
from django.conf import settings


class SessionReader:
    def __init__(self, inner):
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        key = scope["cookies"].get(settings.SESSION_COOKIE_NAME)
        # A lazy store: the session is loaded on first use, by AuthMiddleware's lookup.
        return await self.inner(dict(scope, session=self.store(key)), receive, send)


def ReadSessionAuthStack(inner):  # noqa: N802 (named like channels' AuthMiddlewareStack)
    """The user of the handshake's session cookie in `scope["user"]`, read only."""
    return CookieMiddleware(SessionReader(AuthMiddleware(inner)))
