"""The one way what is stored reaches the sockets (docs/architecture.md, "The outbox").

Whatever changes what a screen shows (a turn, a match's end, the judges' hand, a list's
line, an announcement, a protocol game's step) is posted here once its transaction has
committed, as *news*: a function that builds the (group, message, late) triples to send.
One announcer per process takes the news in the order it was posted, builds it on a
thread of its own (the messages read the database: never on the thread that stored the
change, so a team's answer, the clock's tick or a protocol game's next step never waits
for them) and sends it from the event loop the process's sockets live on, which the
server, the clock and the protocol servers name when they start (`serve_from`).

A process with no such loop running (a management command, a test without a server)
has no sockets of its own: there the news is built and sent on the caller's thread, in
one hop to the channel layer, as soon as it is posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, transaction

from matches.live.hub import Hub

log = logging.getLogger(__name__)

Triple = tuple[str, dict[str, Any], int]  # (group, message, late: the spectator delay, ms)
News = Callable[[], list[Triple]]


def relay_event(message: dict[str, Any], late: int = 0, text: str | None = None
                ) -> dict[str, Any]:
    """The channel-layer event for a message: its JSON text (`text`, when the caller
    has encoded it) is encoded once, for every socket, with the message's kind and
    version (a turn, a page's version) alongside for the consumers' ordering; `late`,
    the spectator delay (ms) after which the public may see it (live/delay.py)."""
    event = {"type": "relay", "kind": message["type"], "turn": message.get("turn"),
             "text": text or json.dumps(message, separators=(",", ":"))}
    if "version" in message:  # a page's `changed` (live/pages.py): its version alongside
        event["version"] = message["version"]
    if late:
        event["late"] = late
    return event


def _events(triples: list[Triple]) -> list[tuple[str, dict[str, Any]]]:
    texts: dict[int, str] = {}  # one message sent to two groups is encoded once
    events = []
    for group, message, late in triples:
        event = relay_event(message, late, texts.get(id(message)))
        texts[id(message)] = event["text"]
        events.append((group, event))
    return events


async def _send_all(triples: list[Triple]) -> None:
    """Send the triples in order. A failure (the layer's server restarting, say) is
    logged, not raised: what is sent is already stored, and clients catch up from it."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, event in _events(triples):
        for attempt in (1, 2):  # once more: a connection left over from before a
            try:                # restart of the layer's server fails its first send,
                await layer.group_send(group, event)  # the next one opens anew
                break
            except Exception as error:
                log.warning("broadcast of %s to %s failed (attempt %d): %r",
                            event["kind"], group, attempt, error)


def _built(news: list[News]) -> list[Triple]:
    """The triples of each piece of news, in order; one that fails to build is logged
    and the others still go."""
    triples: list[Triple] = []
    for one in news:
        try:
            triples.extend(one())
        except Exception:
            log.exception("news for the sockets could not be built: %r", one)
    return triples


class Outbox:
    """The process's queue of news for the sockets, and its one announcer."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: deque[News] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._announcing: asyncio.Task | None = None  # (read and set on the loop only)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="announcer")
        self._build = sync_to_async(self._build_here, thread_sensitive=False,
                                    executor=self._executor)
        self._local = threading.local()
        # How many pieces of news were posted to the loop, and how many of those have
        # been sent and handed to this process's sockets (`handed_out`)
        self._posted = 0
        self._handed = 0
        self._handed_news = threading.Condition()

    def serve_from(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop this process's sockets (and its layer's connections) live on:
        news is sent from it from now on."""
        self._loop = loop

    def _serving(self) -> asyncio.AbstractEventLoop | None:
        loop = self._loop
        return loop if loop is not None and loop.is_running() else None

    def post(self, news: News) -> None:
        """Send `news` now, after what was posted before it (thread-safe). In a
        transaction, use `on_commit`."""
        kept = getattr(self._local, "kept", None)
        if kept is not None:
            kept.append(news)
        else:
            self._post([news])

    def on_commit(self, news: News) -> None:
        """Post `news` once the caller's transaction commits (at once outside one);
        nothing when it rolls back."""
        transaction.on_commit(lambda: self.post(news), robust=True)

    def ready(self, group: str, message: dict[str, Any], late: int = 0) -> None:
        """Post a message already built, for one group."""
        self.post(lambda: [(group, message, late)])

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """The news posted on this thread inside the block is posted at its end, in
        order, as one (a clock's tick: what it stored goes out once the tick is over,
        not while it runs). What was posted before an error in the block goes too."""
        if getattr(self._local, "kept", None) is not None:
            yield  # (inside another: the outer one posts)
            return
        self._local.kept = kept = []
        try:
            yield
        finally:
            self._local.kept = None
            if kept:
                self._post(kept)

    def _post(self, news: list[News]) -> None:
        loop = self._serving()
        if loop is not None:
            with self._lock:
                asleep = not self._pending  # (else its wake-up is on its way already)
                self._pending.extend(news)
                self._posted += len(news)
            try:
                if asleep:  # (a wake-up costs the loop's thread and the caller's a switch)
                    loop.call_soon_threadsafe(self._announce_soon)
                return
            except RuntimeError:  # the loop closed in between: no sockets are left to it
                with self._lock:
                    for one in news:
                        with contextlib.suppress(ValueError):
                            self._pending.remove(one)
        triples = _built(news)  # no server here: on the caller's thread, in one hop
        if triples:
            try:
                async_to_sync(_send_all)(triples)
            except Exception as error:  # (no event loop to hop to: the process is stopping)
                log.warning("broadcast of %d message(s) failed: %r", len(triples), error)

    def _announcer(self) -> asyncio.Task | None:  # (on the loop)
        """The task announcing on the running loop now, if one is (not one left on a
        loop that served before this one)."""
        task = self._announcing
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            return None
        return task

    def _announce_soon(self) -> None:  # (on the loop)
        if self._announcer() is None:
            self._announcing = asyncio.ensure_future(self._announce())

    async def _announce(self) -> None:
        while True:
            with self._lock:
                news, self._pending = list(self._pending), deque()
            if not news:
                return
            try:
                triples = await self._build(news)
                await _send_all(triples)
            except Exception:
                log.exception("an announcement of %d piece(s) of news failed", len(news))
            asyncio.ensure_future(self._note_handed_out(len(news)))

    async def _note_handed_out(self, count: int) -> None:  # (on the loop)
        try:
            await Hub.handed_out()
        finally:
            with self._handed_news:
                self._handed += count
                self._handed_news.notify_all()

    def handed_out(self, seconds: float) -> bool:
        """On a thread of its own: wait, `seconds` at most, until what was posted so far
        has been sent and this process's sockets have been handed it; whether it was.
        (A clock's tick waits so before its other work, which would otherwise take the
        interpreter from its turns' fan-out, sharing its lock.) At once where no loop
        serves (what is posted is sent on the caller's thread) or on the loop itself."""
        loop = self._serving()
        if loop is None:
            return True
        with contextlib.suppress(RuntimeError):  # (no loop runs on this thread)
            if asyncio.get_running_loop() is loop:
                return True
        with self._lock:
            wanted = self._posted
        until = time.monotonic() + seconds
        with self._handed_news:
            while self._handed < wanted:
                left = until - time.monotonic()
                if left <= 0:
                    return False
                self._handed_news.wait(left)
        return True

    @staticmethod
    def _build_here(news: list[News]) -> list[Triple]:  # (on the announcer's thread)
        close_old_connections()  # (the news reads: the thread's connection, kept fresh,
        try:                     # and given back to the pool after, as a request's is)
            return _built(news)
        finally:
            close_old_connections()

    async def drained(self, seconds: float) -> bool:
        """On the serving loop: wait, `seconds` at most, until what was posted has been
        sent (a server or a clock that stops); whether it was."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            with self._lock:
                waiting = bool(self._pending)
            if waiting and self._serving() is loop:
                self._announce_soon()  # (its call may not have come round yet)
            announcing = self._announcer()
            if announcing is None:
                if not waiting:
                    return True
                if self._serving() is not loop:
                    return False  # (nothing here will send it)
                continue
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.wait([announcing], timeout=remaining)


class Served:
    """The ASGI application `app`, telling the outbox the loop it is served from (the
    first connection does: an ASGI server has no earlier hook that every one calls)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        OUTBOX.serve_from(asyncio.get_running_loop())
        return await self.app(scope, receive, send)


OUTBOX = Outbox()
