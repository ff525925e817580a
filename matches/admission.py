"""Caps on what a visitor may hold at once, so that no visitor can delay the clock or a
team's answer (docs/api.md, "Limits and what is kept"; docs/live-protocol.md, "Caps").

Every long-lived or heavy thing a visitor can open passes a gate: a count of what is
open now, per source address and in all, in this process. Over either count the
request is refused at once (HTTP 429 with `Retry-After`, or close code 4429 for a
websocket), never queued: a refusal costs a few bytes, a queue would cost time.

- `sockets`: open websockets (the venue, wall, TV, replay and list screens).
- `streams`: open event streams (Kakomimasu v1's `GET /v1/matches/stream`).
- `heavy`: reads that can cost much to build or send, in flight: board pictures, a
  match's whole state, records, timelines, the replay, exports, the dialects' match
  reads.
- `pages`: every other read in flight (pages, small API reads, static files).

Writes (a team's answer, a judge's form) pass no gate: the answer service has rate
limits of its own per token and address, and must never wait behind a visitor.

A venue has many screens behind one address: addresses in SPECTATOR_TRUSTED_NETWORKS
(CIDR blocks, comma-separated) get the trusted caps per address instead. The caps are
per server process: with N daphne processes behind nginx an address may hold N times as
much, which is still a budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core import checks
from django.utils.deprecation import MiddlewareMixin

from matches.caches import resettable

RETRY_AFTER = 1  # seconds a refused client is asked to wait
CLOSE_TOO_MANY = 4429  # a websocket over its caps: docs/live-protocol.md


@dataclass(frozen=True)
class Caps:
    per_address: int
    trusted: int  # per address of a trusted network
    in_all: int
    # opened per second per address, beyond a burst of `per_address` (None: no such
    # cap; never for a trusted network): a client that closes and opens again at once
    # costs a refusal, not a handshake's work
    rate: float | None = None


def _caps(name: str, per_address: int, trusted: int, in_all: int,
          rate: float | None = None) -> Caps:
    """A gate's caps, each one overridable: SPECTATOR_CAP_<NAME>=per,trusted,all."""
    given = os.environ.get(f"SPECTATOR_CAP_{name.upper()}", "")
    numbers = [int(part) for part in given.split(",") if part.strip().isdigit()]
    if len(numbers) == 3:
        per_address, trusted, in_all = numbers
    return Caps(per_address, trusted, in_all, rate)


class Gate:
    """What is open now, per key (a source address) and in all; thread-safe."""

    def __init__(self, name: str, caps: Caps) -> None:
        self.name, self.caps = name, caps
        self.open: dict[str, int] = {}
        self.total = 0
        self.refused = 0
        self.buckets: dict[str, tuple[float, float]] = {}  # address -> (openings left, when)
        self._lock = threading.Lock()

    def enter(self, address: str | None) -> Ticket | None:
        """A ticket to hold while the thing is open, or None: over a cap (or, for the
        heavy reads and the sockets, over the address's byte budget)."""
        key = address or "-"
        trusted = is_trusted(address)
        limit = self.caps.trusted if trusted else self.caps.per_address
        if self.name in BUDGETED and BYTES.used_up(address):
            with self._lock:
                self.refused += 1
            return None
        with self._lock:
            held = self.open.get(key, 0)
            if held >= limit or self.total >= self.caps.in_all or (
                    not trusted and not self._may_open(key)):
                self.refused += 1
                return None
            self.open[key] = held + 1
            self.total += 1
        return Ticket(self, key)

    def _may_open(self, key: str) -> bool:
        """A token bucket per address (with the lock held): `rate` openings a second, a
        burst of `per_address`."""
        if self.caps.rate is None:
            return True
        now = time.monotonic()
        if len(self.buckets) > 10_000:  # addresses long quiet are full again: forget them
            self.buckets = {k: v for k, v in self.buckets.items() if now - v[1] < 60}
        left, then = self.buckets.get(key, (float(self.caps.per_address), now))
        left = min(float(self.caps.per_address), left + (now - then) * self.caps.rate)
        if left < 1:
            self.buckets[key] = (left, now)
            return False
        self.buckets[key] = (left - 1, now)
        return True

    def _leave(self, key: str) -> None:
        with self._lock:
            held = self.open.get(key, 0) - 1
            if held > 0:
                self.open[key] = held
            else:
                self.open.pop(key, None)
            self.total -= 1

    def reset(self) -> None:
        with self._lock:
            self.open.clear()
            self.buckets.clear()
            self.total = self.refused = 0


class Ticket:
    """A place at a gate; `release()` gives it back (once, however often called)."""

    def __init__(self, gate: Gate, key: str) -> None:
        self.gate, self.key, self.held = gate, key, True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.gate._leave(self.key)


class ByteBudget:
    """What the heavy reads and the sockets' openings have sent to each address lately:
    a bucket of `burst` bytes per address, filled again at `rate` bytes a second. An
    address that has used it up is refused heavy reads and new sockets until it fills
    again, however few it holds at once: a flood costs bytes per minute, not per
    request. Trusted networks have none."""

    def __init__(self, burst: int, rate: int) -> None:
        self.burst, self.rate = burst, rate
        self.left: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _now_left(self, key: str, now: float) -> float:
        left, then = self.left.get(key, (float(self.burst), now))
        return min(float(self.burst), left + (now - then) * self.rate)

    def used_up(self, address: str | None) -> bool:
        if is_trusted(address):
            return False
        with self._lock:
            return self._now_left(address or "-", time.monotonic()) <= 0

    def charge(self, address: str | None, size: int) -> None:
        if is_trusted(address) or size <= 0:
            return
        key, now = address or "-", time.monotonic()
        with self._lock:
            if len(self.left) > 10_000:  # addresses long quiet are full again
                self.left = {k: v for k, v in self.left.items() if now - v[1] < 600}
            self.left[key] = (self._now_left(key, now) - size, now)

    def reset(self) -> None:
        with self._lock:
            self.left.clear()


def _budget() -> ByteBudget:
    """SPECTATOR_READ_BUDGET=burst,rate in bytes (default 32 MiB, then 256 KiB a second:
    the whole replay of a long match, a few times a minute)."""
    given = [int(part) for part in os.environ.get("SPECTATOR_READ_BUDGET", "").split(",")
             if part.strip().isdigit()]
    return ByteBudget(*given) if len(given) == 2 else ByteBudget(32 << 20, 256 << 10)


BYTES = _budget()

BUDGETED = {"heavy", "sockets"}  # gates whose sends are charged to BYTES
GATES = {
    "sockets": Gate("sockets", _caps("sockets", 32, 4000, 5000, rate=4.0)),
    "streams": Gate("streams", _caps("streams", 2, 16, 64)),
    "heavy": Gate("heavy", _caps("heavy", 1, 4, 3)),
    "pages": Gate("pages", _caps("pages", 8, 64, 48)),
}


@resettable
def gates_reset() -> None:
    """Forget every count (tests)."""
    for gate in GATES.values():
        gate.reset()
    BYTES.reset()
    _trusted_networks.cache_clear()


@functools.cache
def _trusted_networks() -> tuple[Any, ...]:
    networks = []
    for part in os.environ.get("SPECTATOR_TRUSTED_NETWORKS", "").split(","):
        if part.strip():
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
    return tuple(networks)


@checks.register()
def trusted_networks_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """A SPECTATOR_TRUSTED_NETWORKS that cannot be read is said at every command's start
    (`manage.py check` among them), not taken silently for no network at all."""
    try:
        _trusted_networks()
    except ValueError as error:
        return [checks.Error(f"SPECTATOR_TRUSTED_NETWORKS: {error}",
                             hint="CIDR blocks separated by commas, e.g. 10.0.0.0/8,"
                                  "192.168.0.0/16", id="spectator.E001")]
    return []


def is_trusted(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
        networks = _trusted_networks()
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(scope: dict) -> str | None:
    """The client's address as the server saw it (daphne --proxy-headers: nginx's
    X-Forwarded-For)."""
    client = scope.get("client")
    return client[0] if client else None


# --- HTTP --------------------------------------------------------------------------

MATCH = r"[0-9]{1,18}"
# Heavy whoever asks. A match's state, which a team's program reads every turn, is gated
# in its views instead (`visitor_gate`), where the team's token is known: its own team
# passes no gate.
HEAVY_PATHS = re.compile("|".join([
    rf"/matches/{MATCH}/(board\.png|replay|replay\.gif|scores\.csv|audit|"
    rf"audit/submissions\.\w+)",
    rf"/api/matches/{MATCH}/(record|timeline)/?",
    rf"/tournaments/{MATCH}/records\.zip",
    r"/v1/matches/?",
]))
# A match's state: heavy for a visitor, the bread of a team's program. One with neither a
# token nor a session (no team, no judge) is gated here, before any work is done for it;
# any other in the view, once its token is read (`visitor_gate`).
MATCH_STATES = re.compile(rf"/(api|v1)/matches/{MATCH}/?")
STREAM_PATHS = re.compile(r"/v1/matches/stream/?")
READS = {"GET", "HEAD"}
JSON_PREFIXES = ("/api/", "/v1/", "/procon30/", "/procon2020/", "/procon31/")


def gate_of(method: str, path: str, anonymous: bool = True) -> str | None:
    """Which gate an HTTP request passes (None: a write, which passes none)."""
    if method not in READS:
        return None
    if STREAM_PATHS.fullmatch(path):
        return "streams"
    if HEAVY_PATHS.fullmatch(path) or (anonymous and MATCH_STATES.fullmatch(path)):
        return "heavy"
    return "pages"


def _anonymous(scope: dict) -> bool:
    """Neither a token nor a cookie: nobody the views would let pass a gate."""
    return not any(name in (b"authorization", b"cookie", b"x-api-token")
                   for name, _ in scope.get("headers", ())) and b"token=" not in \
        scope.get("query_string", b"")


class Admission:
    """ASGI middleware: each HTTP read holds a place at its gate while it is served; over
    a cap it is answered 429 at once. Websockets pass through (their gate is taken in
    `socket_gate`, once the handshake is known to be a websocket's)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        name = gate_of(scope.get("method", ""), scope.get("path", ""), _anonymous(scope)) \
            if scope["type"] == "http" else None
        if name is None:
            return await self.application(scope, receive, send)
        address = client_address(scope)
        ticket = GATES[name].enter(address)
        if ticket is None:
            return await too_busy(send, scope.get("path", ""), name)
        sent = 0

        async def counted(message: dict) -> None:
            nonlocal sent
            sent += len(message.get("body", b""))
            await send(message)

        try:  # (the scope says which gate it passed: a view gates no read twice)
            await self.application(dict(scope, admitted=name), receive,
                                   counted if name == "heavy" else send)
        finally:
            ticket.release()
            BYTES.charge(address, sent)


class TooBusy(Exception):
    """A view's read over its gate's caps: answered 429 (`too_busy_response`)."""

    def __init__(self, gate: str) -> None:
        super().__init__(REFUSALS[gate])
        self.gate = gate


class Charge:
    """What a gated block sends, charged to its address's byte budget at its end."""

    size = 0


@contextlib.contextmanager
def visitor_gate(name: str, request: Any, exempt: bool = False) -> Iterator[Charge]:
    """Hold a place at gate `name` for the request's block (TooBusy over its caps);
    `exempt` (the match's own team reading its state) passes freely, and so does a
    request that holds a place at that gate already (`Admission` took it: a visitor's
    read of a match's state; with one place an address, a second would refuse every
    such read). The block sets the `size` of what it sends on the charge it is given."""
    charge = Charge()
    if exempt or getattr(request, "scope", {}).get("admitted") == name:
        yield charge
        return
    address = request.META.get("REMOTE_ADDR")
    ticket = GATES[name].enter(address)
    if ticket is None:
        raise TooBusy(name)
    try:
        yield charge
    finally:
        ticket.release()
        BYTES.charge(address, charge.size)


def too_busy_response(busy: TooBusy):
    """The Django response of a TooBusy: the API's error shape, `Retry-After`."""
    from django.http import JsonResponse

    response = JsonResponse({"error": "too_busy", "detail": str(busy)}, status=429)
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


class TooBusyMiddleware(MiddlewareMixin):
    """Django middleware: a view that raised TooBusy is answered 429. (A MiddlewareMixin,
    so that under ASGI it costs the chain no hop between threads.)"""

    def process_exception(self, request, exception):
        return too_busy_response(exception) if isinstance(exception, TooBusy) else None


REFUSALS = {
    "streams": "too many event streams are open from this address",
    "heavy": "too many large reads at once: try again in a second",
    "pages": "too many requests at once from this address: try again in a second",
}


TARPIT_SECONDS = 1.0  # how long a refusal is held before it is sent
TARPIT_HELD = 512  # refusals held at once in a process; past that, sent at once
_held = 0


async def tarpit() -> None:
    """Hold a refusal for TARPIT_SECONDS before it is sent (as `Retry-After` asks a
    client to wait anyway): a client that asks again the moment it is refused then
    asks once a second, not a hundred times, and costs an idle connection meanwhile
    instead of a request's work each time. At most TARPIT_HELD are held at once."""
    global _held
    if _held >= TARPIT_HELD:
        return
    _held += 1
    try:
        await asyncio.sleep(TARPIT_SECONDS)
    finally:
        _held -= 1


async def too_busy(send: Any, path: str, gate: str) -> None:
    """429, in JSON for an API, in plain text for a page; a few bytes either way, after
    the tarpit's second."""
    await tarpit()
    detail = REFUSALS[gate]
    if path.startswith(JSON_PREFIXES):
        body = json.dumps({"error": "too_busy", "detail": detail}).encode()
        kind = b"application/json"
    else:
        body, kind = f"429 {detail}\n".encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": 429, "headers": [
        (b"content-type", kind), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER).encode()), (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff")]})
    await send({"type": "http.response.body", "body": body})
