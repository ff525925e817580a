"""Caps on what a visitor may hold at once, so that no visitor can delay the clock or a
team's answer (docs/api.md, "Limits and what is kept"; docs/live-protocol.md, "Caps").

Every long-lived or heavy thing a visitor can open passes a gate: a count of what is
open now, per source address and in all, in this process. Over either count the
request is refused at once (HTTP 429 with `Retry-After`, or close code 4429 for a
websocket), never queued: a refusal costs a few bytes, a queue would cost time.

- `sockets`: open websockets (the venue, wall, TV, replay and list screens).
- `streams`: open event streams (Kakomimasu v1's `GET /v1/matches/stream`).
- `heavy`: reads that can cost much to build or send, in flight: board pictures,
  records, timelines, the replay, exports, and a match's state once it is large.
- `pages`: every other read in flight (pages, small API reads, static files). A read
  that carries a bearer token counts against its address and token together: the
  programs of several teams behind one router (a school's, a venue's NAT) each have
  the address's places, and a token the server does not accept is answered 401 at
  once (docs/api.md, "Tokens").

A match's state is what a program polls (the community's Kakomimasu client reads it
every 100 ms while it waits for the start, and gives up on any answer but 200): a text
built once per turn, small for any match but a very long one on a large board. A
visitor's read of it is counted by its rate (SMALL_READS: a rate per address that a
client polling ten times a second, or several such clients behind one address, never
reach) and by its bytes (the byte budget below); it takes a place at the heavy gate only
when the match's size makes it large (`Charge.expect`, `LARGE_READ`).

Which gate a read passes is what its route declares it costs, where the route is
defined (`cost`, below: a page, a match's state, a large read, one its view guards, a
CPU job, a stream, a write); a route that declares nothing fails the suite
(tests/spectator/test_route_costs.py), so that no new surface is born without a budget.

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
import hashlib
import ipaddress
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core import checks
from django.utils.deprecation import MiddlewareMixin

from matches.caches import resettable
from matches.paths import API, DIALECT_PREFIXES

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

    def enter(self, address: str | None, key: str | None = None) -> Ticket | None:
        """A ticket to hold while the thing is open, or None: over a cap (or, for the
        heavy reads and the sockets, over the address's byte budget). With a `key` of
        its own (an address and a token), the key has the address's caps, and the
        address as a whole TOKENS_AN_ADDRESS times them."""
        address_key = address or "-"
        keys = [address_key] if key in (None, address) else [key, address_key]
        trusted = is_trusted(address)
        limit = self.caps.trusted if trusted else self.caps.per_address
        limits = [limit] if len(keys) == 1 else [limit, limit * TOKENS_AN_ADDRESS]
        if self.name in BUDGETED and BYTES.used_up(address):
            with self._lock:
                self.refused += 1
            return None
        with self._lock:
            full = any(self.open.get(each, 0) >= most
                       for each, most in zip(keys, limits, strict=True))
            if full or self.total >= self.caps.in_all or (
                    not trusted and not self._may_open(address_key)):
                self.refused += 1
                return None
            for each in keys:
                self.open[each] = self.open.get(each, 0) + 1
            self.total += 1
        return Ticket(self, keys)

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

    def _leave(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
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

    def __init__(self, gate: Gate, keys: list[str]) -> None:
        self.gate, self.keys, self.held = gate, keys, True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.gate._leave(self.keys)


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


class RequestRate(ByteBudget):
    """Requests each address may make: a budget counted in requests (a burst of `burst`,
    filled again at `rate` a second); a request over it is refused, however few are in
    flight. Trusted networks have none."""

    def __init__(self, rate: float, burst: float) -> None:
        super().__init__(burst, rate)
        self.refused = 0

    def take(self, address: str | None) -> bool:
        if self.used_up(address):
            self.refused += 1
            return False
        self.charge(address, 1)
        return True

    def reset(self) -> None:
        super().reset()
        self.refused = 0


def _small_reads() -> RequestRate:
    """SPECTATOR_SMALL_READS=rate,burst a second per address (default 50, 100: five
    clients behind one address, each polling ten times a second, pass)."""
    given = [float(part) for part in os.environ.get("SPECTATOR_SMALL_READS", "").split(",")
             if part.strip().replace(".", "", 1).isdigit()]
    return RequestRate(*given) if len(given) == 2 else RequestRate(50.0, 100.0)


SMALL_READS = _small_reads()
# The estimated size (in bytes) from which a match's state is a large read: about a
# byte a cell a turn (bench/reads.py: 4.4 MiB for 1,000 turns on 64x64), so a 24x24
# board's state grows large only after some 450 turns.
LARGE_READ = 256 << 10


def _budget() -> ByteBudget:
    """SPECTATOR_READ_BUDGET=burst,rate in bytes (default 32 MiB, then 256 KiB a second:
    the whole replay of a long match, a few times a minute)."""
    given = [int(part) for part in os.environ.get("SPECTATOR_READ_BUDGET", "").split(",")
             if part.strip().isdigit()]
    return ByteBudget(*given) if len(given) == 2 else ByteBudget(32 << 20, 256 << 10)


BYTES = _budget()

TOKENS_AN_ADDRESS = 4  # an address's places at a gate, in its caps, for all its tokens
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
    SMALL_READS.reset()
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

# What a route costs is declared where the route is defined: a view says it with
# `@cost(...)` (a Django view, or an API operation under its `@api.get`), and a route
# included from elsewhere (the admin, the sign-in pages, the API's own documents) in
# spectator/urls.py (`INCLUDED_COSTS`, `costs_declared`). The gate a request passes is
# read from its route's declaration (`route_cost`), never from a list of paths kept
# apart, and tests/spectator/test_route_costs.py fails for a route that declares none.
PAGE = "page"  # a page, or a read of bounded work (a few queries, a text kept per turn)
STATE = "state"  # a match's state that programs poll: a visitor's counted by its rate
LARGE = "large"  # a read that can cost much to build or send: records, pictures, exports
GUARDED = "guarded"  # large for a visitor, free for the match's own team and the judges:
#                      its view, which knows who asks, takes the heavy gate (`visitor_gate`)
JOB = "job"  # CPU work a visitor starts (what-if): its view gates it, under a budget
STREAM = "stream"  # a response held open (an event stream)
WRITE = "write"  # a write: no gate (its service limits each token and address)
ANSWER = "answer"  # a team's answer (its actions, its debug output, joining its match):
#                    a write whose refusal to a team's own known token is never held
COSTS = (PAGE, STATE, LARGE, GUARDED, JOB, STREAM, WRITE, ANSWER)
# The gate of each cost, for a read (GET or HEAD); any other method passes none. A read
# of a route declared a write or a job (a form's page, a 405) is a page's.
GATE_OF_COST = {PAGE: "pages", STATE: "pages", LARGE: "heavy", GUARDED: "pages",
                JOB: "pages", STREAM: "streams", WRITE: "pages", ANSWER: "pages"}


def cost(kind: str):
    """Declare what a view costs (one of COSTS): `@cost(LARGE)` above its definition."""
    if kind not in COSTS:
        raise ValueError(f"cost: one of {', '.join(COSTS)}, not {kind!r}")

    def declare(view):
        view.cost = kind
        return view
    return declare


def declared_cost(view: Any, method: str) -> str | None:
    """The cost a view declares (for an API path, its operation's of this method)."""
    declared = getattr(view, "cost", None)
    if declared is not None:
        return declared
    operations = _api_operations(view)
    chosen = [op for op in operations if method in op.methods] or operations[:1]
    return getattr(chosen[0].view_func, "cost", None) if chosen else None


def _api_operations(view: Any, depth: int = 3) -> list:
    """The operations behind an API path's view (django-ninja makes one view a path,
    its `PathView` held in the closure of the view or of a view it wraps): [] for any
    other view."""
    for cell in getattr(view, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if hasattr(held, "operations"):
            return list(held.operations)
        if depth > 0 and callable(held):
            found = _api_operations(held, depth - 1)
            if found:
                return found
    return []


@functools.lru_cache(maxsize=4096)
def _resolved_cost(path: str, method: str) -> str:
    from django.urls import Resolver404, resolve

    try:
        found = resolve(path)
    except Resolver404:
        return PAGE  # a page that does not exist: a 404's work
    declared = declared_cost(found.func, method)
    if declared is not None:
        return declared
    from django.conf import settings
    from django.utils.module_loading import import_string

    included = import_string(f"{settings.ROOT_URLCONF}.INCLUDED_COSTS")
    for prefix, kind in included.items():
        if found.route.startswith(prefix):
            return kind
    return PAGE


def route_cost(method: str, path: str) -> str:
    """What a request's route declares it costs (a path no route has: a page)."""
    return _resolved_cost(path, method if method != "HEAD" else "GET")


def gate_of(method: str, path: str) -> str | None:
    """Which gate an HTTP request passes (None: a write, which passes none)."""
    if method not in READS:
        return None
    return GATE_OF_COST[route_cost(method, path)]


READS = {"GET", "HEAD"}
JSON_PREFIXES = (API, *DIALECT_PREFIXES)  # the answer API's and the dialects' paths


def _is_state(scope: dict) -> bool:
    return route_cost(scope.get("method", ""), scope.get("path", "")) == STATE


def _anonymous(scope: dict) -> bool:
    """Neither a token nor a cookie: nobody a view would let read freely."""
    return not any(name in (b"authorization", b"cookie", b"x-api-token")
                   for name, _ in scope.get("headers", ())) and b"token=" not in \
        scope.get("query_string", b"")


def _small_read_refused(scope: dict, address: str | None) -> str | None:
    """A visitor's read of a match's state over its address's byte budget or rate of
    small reads: the refusal's reason; None when it may go on (the view then counts it
    no more, `visitor_read`)."""
    if not (_is_state(scope) and _anonymous(scope)):
        return None
    if BYTES.used_up(address):
        return "bytes"
    return None if SMALL_READS.take(address) else "small"


def _key(scope: dict, address: str | None) -> str | None:
    """Whom a read's place at the pages gate counts against: its address, and with a
    bearer token the token too (each team's program behind one router has the places
    of an address; a made-up token buys nothing but a 401)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            token = value[7:].strip()
            if token:
                return f"{address or '-'} {hashlib.blake2b(token, digest_size=8).hexdigest()}"
    return address


class Admission:
    """ASGI middleware: each HTTP read holds a place at its gate while it is served; over
    a cap it is answered 429 at once. Websockets pass through (their gate is taken in
    `socket_gate`, once the handshake is known to be a websocket's)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        name = gate_of(scope.get("method", ""), scope.get("path", ""))
        if name is None:  # a write: no gate, but a refusal to a stranger is held too
            return await self.application(scope, receive, _held_unless_known(scope, send))
        address = client_address(scope)
        refused = _small_read_refused(scope, address)
        if refused is not None:
            return await too_busy(send, scope.get("path", ""), refused)
        ticket = GATES[name].enter(address, _key(scope, address) if name == "pages"
                                   else address)
        if ticket is None:
            return await too_busy(send, scope.get("path", ""), name)
        sent = 0

        async def counted(message: dict) -> None:
            nonlocal sent
            if message.get("type") == "http.response.start" and message.get("status") == 429:
                await tarpit()  # a view's refusal is held as this middleware's are
            sent += len(message.get("body", b""))
            await send(message)

        try:  # (the scope says which gate it passed, and whether its rate was counted:
            #    a view gates no read twice)
            await self.application(
                dict(scope, admitted=name, small_read=_is_state(scope) and _anonymous(scope)),
                receive, counted)
        finally:
            ticket.release()
            if name == "heavy":
                BYTES.charge(address, sent)


def _held_unless_known(scope: dict, send: Any) -> Any:
    """`send`, holding a 429 (a rate limit's, a cap's: the practice, the questions) for
    the tarpit's second: a flood of writes is refused once a second, whatever header or
    token it carries (a practice match's included). A team's answer (a route declared
    ANSWER) is never held here: its refusals are the answer service's, which holds a
    stranger's itself (matches/api_asgi.py), and a team's own program is never slowed."""
    async def held(message: dict) -> None:
        if message.get("type") == "http.response.start" and message.get("status") == 429 \
                and route_cost(scope.get("method", ""), scope.get("path", "")) != ANSWER:
            await tarpit()
        await send(message)
    return held


class TooBusy(Exception):
    """A view's read over its gate's caps: answered 429 (`too_busy_response`)."""

    def __init__(self, gate: str) -> None:
        super().__init__(REFUSALS[gate])
        self.gate = gate


class Charge:
    """What a gated block sends, charged to its address's byte budget at its end."""

    size = 0

    def expect(self, estimate: int) -> None:
        """The read's estimated size, known once its match is: nothing for a gated
        block; a small read's becomes heavy past LARGE_READ (`visitor_read`)."""


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


class SmallRead(Charge):
    """A visitor's small read (`visitor_read`): heavy once its estimate is large."""

    def __init__(self, request: Any) -> None:
        self.request, self.ticket = request, None

    def expect(self, estimate: int) -> None:
        if estimate >= LARGE_READ and self.ticket is None:
            self.ticket = GATES["heavy"].enter(self.request.META.get("REMOTE_ADDR"))
            if self.ticket is None:
                raise TooBusy("heavy")


@contextlib.contextmanager
def visitor_read(request: Any, exempt: bool = False) -> Iterator[Charge]:
    """A visitor's read of a text built once per turn (a match's state): refused
    (TooBusy) over its address's rate of small reads or byte budget, before any work is
    done for it; a large one (`Charge.expect`) also holds a place at the heavy gate.
    What it sends is charged to the byte budget. `exempt`: the match's own team and the
    judges pass freely."""
    if exempt:
        yield Charge()
        return
    address = request.META.get("REMOTE_ADDR")
    counted = getattr(request, "scope", {}).get("small_read")  # by `Admission` already
    if not counted and BYTES.used_up(address):
        raise TooBusy("bytes")
    if not counted and not SMALL_READS.take(address):
        raise TooBusy("small")
    charge = SmallRead(request)
    try:
        yield charge
    finally:
        if charge.ticket is not None:
            charge.ticket.release()
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
    "bytes": "this address has read too much lately: try again in a few seconds",
    "small": "too many reads a second from this address: try again in a second",
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
