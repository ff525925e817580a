"""Event streams over the match lists (server-sent events): a generic follower of the
list groups, as the list screens' sockets follow them, for any query language that
says which matches a stream shows and what it sends of each (a `Window`: the
Kakomimasu v1 dialect's `GET /v1/matches/stream` is one, docs/dialects.md, "The event
stream").

A stream hears the list groups' events (live/broadcast.py) the moment they are sent,
never by polling: the judges every match live, everyone else a match with a spectator
delay that far behind (live/delay.py), and a team its own private matches live as well.
Its events wait in a queue of its own; a stream that is not read loses them for one read
afresh (`{"resync": True}`), never holding more than STREAM_HELD. After STREAM_QUIET
seconds of silence it sends a comment, which keeps proxies from closing it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone

from matches.admission import STREAM, cost
from matches.live.broadcast import JUDGES_LIST_GROUP, LIST_GROUP
from matches.live.delay import DelayLine
from matches.live.hub import Hub

STREAM_QUIET = 10.0  # seconds of silence before a comment keeps proxies from closing it
STREAM_HELD = 256  # events a stream holds while it builds its texts; beyond, it reads afresh


class Window(Protocol):
    """What one stream shows, in its query language's words."""

    judge: bool  # hears every match live
    hears_private: bool  # a team: its own private matches live too

    def opening(self) -> str:
        """The stream's first event (in a thread: it reads the database)."""

    async def said(self, event: dict[str, Any]) -> list[str]:
        """The stream's events for one event heard: a list group's message
        ({"text": ...}), a read afresh ({"resync": True}), or a moment the window asked
        to be woken at come due ({"due": key})."""

    def next_due(self) -> tuple[str, float] | None:
        """The earliest moment the window wants to be woken at (its key, epoch s)."""


def list_stream_view(window_of: Callable[[HttpRequest], Window | HttpResponse]):
    """A view streaming the window `window_of` makes of a request (or its refusal)."""

    @cost(STREAM)
    def view(request: HttpRequest) -> StreamingHttpResponse | HttpResponse:
        window = window_of(request)
        if isinstance(window, HttpResponse):
            return window
        response = StreamingHttpResponse(list_stream(window), content_type="text/event-stream")
        response["Cache-Control"] = "no-store"
        response["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
        return response

    view.__doc__ = window_of.__doc__
    return view


async def list_stream(window: Window) -> AsyncIterator[str]:
    """The stream's texts: its opening, then what each event heard says."""
    queue: asyncio.Queue = asyncio.Queue(STREAM_HELD)
    member = _Listener(queue)
    # Joined before the reading: nothing falls between.
    hubs = []
    try:
        if window.judge or window.hears_private:
            hubs.append(await Hub.join(JUDGES_LIST_GROUP, member))
        if not window.judge:
            hubs.append(await DelayLine.join(LIST_GROUP, member))
        yield await sync_to_async(window.opening)()
        while True:
            event = await _next_event(queue, window)
            if event is None:
                yield ": keep-alive\n\n"
                continue
            for text in await window.said(event):
                yield text
    finally:
        for hub in hubs:
            await hub.leave(member)


async def _next_event(queue: asyncio.Queue, window: Window) -> dict | None:
    """The next event heard, a moment the window asked for come due ({"due": key}), or
    None after STREAM_QUIET seconds of neither."""
    quiet_until = timezone.now().timestamp() + STREAM_QUIET
    while True:
        now = timezone.now().timestamp()
        due = window.next_due()
        if due is not None and due[1] <= now:
            return {"due": due[0]}
        wait = min(quiet_until, due[1] if due else quiet_until) - now
        try:
            return await asyncio.wait_for(queue.get(), max(wait, 0.01))
        except TimeoutError:
            if timezone.now().timestamp() >= quiet_until:
                return None


class _Listener:
    """A stream's place in its list group's hub: events wait in the stream's queue; when
    it is full (a stream that is not read), a read afresh replaces what overflowed."""

    def __init__(self, queue: asyncio.Queue) -> None:
        self.queue = queue

    async def deliver(self, event: dict) -> None:
        self._put(event)

    async def resync(self) -> None:
        self._put({"resync": True})

    def _put(self, event: dict) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self.queue.get_nowait()
            self.queue.put_nowait({"resync": True})
