"""Who is at the other end of a websocket: checked once, at the handshake.

`HandshakeGuard` decides whether a handshake may go on at all (docs/live-protocol.md,
"Who may connect"). A browser always sends `Origin`, and with it the visitor's session
cookie, which another site's page could otherwise use behind the visitor's back: so a
handshake with an `Origin` goes on only when that origin is the server's own (the Host
header's host and port) or a trusted one. A team's program sends no `Origin` and no
cookie, only `Authorization: Bearer <token>`: such a handshake goes on when the token is
a team's, and the token alone speaks for it. Anything else is refused with HTTP 403.
A team's page in a browser (the play page), which cannot set that header, offers its
token as the subprotocols `["bearer", <token>]`, which the socket answers with `bearer`.

Channels' `SessionMiddleware` wraps the socket's `send` so that it can save a changed
session and set its cookie with the handshake's answer. A websocket here never
changes the session (logging in and out are pages), yet that wrapper runs for every
message sent: for a turn going out to 5,000 sockets it was about a sixth of the
servers' work. `SessionReader` only reads: it puts the cookie's session in the scope
for `AuthMiddleware` and passes `send` on untouched.
"""

from __future__ import annotations

import json
from importlib import import_module
from urllib.parse import urlsplit

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host

from matches.access import team_by_authorization
from matches.admission import CLOSE_TOO_MANY, GATES, client_address, tarpit
from matches.models import Team
from matches.security import allowed_hosts

DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_parts(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an Origin header; None for "null" or anything malformed."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def _trusted(scheme: str, host: str, port: int) -> bool:
    """Whether CSRF_TRUSTED_ORIGINS names the origin ("https://*.example.com" names every
    subdomain of example.com), scheme and port included, as Django's CSRF check reads it."""
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        parts = _origin_parts(trusted)
        if parts is None or (parts[0], parts[2]) != (scheme, port):
            continue
        if parts[1] == host or (parts[1].startswith("*.") and host.endswith(parts[1][1:])):
            return True
    return False


def origin_allowed(origin: str, host: str) -> bool:
    """An Origin is the server's own when its host and port are the Host header's (a host
    of ALLOWED_HOSTS; a Host without a port has the default port of the Origin's scheme),
    or when CSRF_TRUSTED_ORIGINS names it (a proxy that changes the Host, say)."""
    parts = _origin_parts(origin)
    if parts is None:
        return False
    scheme, origin_host, origin_port = parts
    if _trusted(scheme, origin_host, origin_port):
        return True
    domain, port = split_domain_port(host)
    if not domain or not validate_host(domain, allowed_hosts()):
        return False
    return (domain.strip("[]"), int(port or DEFAULT_PORTS[scheme])) == (origin_host, origin_port)


@database_sync_to_async
def _team(authorization: bytes | None) -> Team | None:
    return team_by_authorization(authorization.decode("latin-1")) if authorization else None


BEARER = "bearer"  # the subprotocol a browser's page offers its team's token with


def _offered_token(scope) -> bytes | None:
    """A page's token, offered as the subprotocols ["bearer", <token>] (a browser's
    WebSocket cannot send an Authorization header), as the header would say it."""
    offered = list(scope.get("subprotocols") or ())
    if BEARER not in offered or offered.index(BEARER) + 1 >= len(offered):
        return None
    return f"Bearer {offered[offered.index(BEARER) + 1]}".encode("latin-1", "replace")


async def _refuse(receive, send) -> None:
    """A close before the accept: the server answers the handshake with HTTP 403."""
    if (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.close"})


async def _too_many(receive, send) -> None:
    """Over the sockets' caps: opened and closed at once with 4429 and a reason, before
    any work is done for it (docs/live-protocol.md, "Caps")."""
    if (await receive())["type"] != "websocket.connect":
        return
    await tarpit()  # one that opens again at once does so once a second
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps({
        "type": "error", "error": "too_many_sockets",
        "detail": "too many sockets are open from this address; close some and retry"})})
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY})


class HandshakeGuard:
    """Refuses a handshake whose Origin is not the server's own, and one without an Origin
    that carries no team's token; puts the token's team (or None) in `scope["team"]`.
    Every socket holds a place at the sockets' gate while it is open; over the caps it
    is closed at once with 4429."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        ticket = GATES["sockets"].enter(client_address(scope))
        if ticket is None:
            return await _too_many(receive, send)
        try:
            return await self._guard(scope, receive, send)
        finally:
            ticket.release()

    async def _guard(self, scope, receive, send):
        headers = dict(scope.get("headers") or ())
        token = headers.get(b"authorization") or _offered_token(scope)
        # (no thread hop without a token: a crowd's handshakes do not queue on it)
        team = await _team(token) if token else None
        origin = headers.get(b"origin")
        if origin is not None:
            allowed = origin_allowed(origin.decode("latin-1"),
                                     headers.get(b"host", b"").decode("latin-1"))
        else:  # not a browser: the token speaks for it, and no cookie does
            allowed = team is not None
            scope = dict(scope, headers=[(name, value) for name, value in scope["headers"]
                                         if name != b"cookie"])
        if not allowed:
            return await _refuse(receive, send)
        return await self.inner(dict(scope, team=team), receive, send)


class SessionReader:
    def __init__(self, inner):
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        key = scope["cookies"].get(settings.SESSION_COOKIE_NAME)
        # A lazy store: the session is loaded on first use, by AuthMiddleware's lookup.
        return await self.inner(dict(scope, session=self.store(key)), receive, send)


class ReadAuth(AuthMiddleware):
    """Channels' `AuthMiddleware`, asking nothing of the database for a handshake
    without a session cookie: no one is signed in on it (a crowd's handshakes do not
    queue on the database thread)."""

    async def resolve_scope(self, scope):
        if scope["session"].session_key is None:
            scope["user"]._wrapped = AnonymousUser()
        else:
            await super().resolve_scope(scope)


def ReadSessionAuthStack(inner):  # noqa: N802 (named like channels' AuthMiddlewareStack)
    """The user of the handshake's session cookie in `scope["user"]`, read only."""
    return CookieMiddleware(SessionReader(ReadAuth(inner)))
