"""The public's sockets of a match with a spectator delay (matches/access/delay.py):
a delay line per process and group, between the group's hub and the public's sockets.

A line is one member of its group's hub. An event that carries `late` (ms: the match's
spectator delay, `outbox.relay_event`) is held that long, its times moved on by as
much (a deadline, a start, a pause: the public's copy of the match has them that much
later), then handed to the line's own members, in the order it came; any other event (a
viewer count, the judges' announcements, a match taken back) goes through at once. The
judges' and the teams' sockets are members of the hub itself and get every event live.

One line serves every public socket of the group in the process: an event is held, and
its times moved, once, however many watch. A line holds at most HELD_MAX events; past
that the oldest go, and its sockets fill the gap from the stored turns (as after any
lost event). A line seeds itself when it is made with the events the group had before
(`seed`): a screen that opens a delayed match sees its next turns come one by one, at
the moments they would have come, not all at once when the first event reaches it.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from channels.layers import get_channel_layer
from django.utils import timezone

from matches.live.hub import Hub, Member, hand_out, wake_or_time

log = logging.getLogger(__name__)

HELD_MAX = 5000  # events one line holds at most (a delay of an hour at a turn a second)
TIME_FIELDS = frozenset({"deadline", "start_at", "since"})  # epoch ms, moved on by `late`


def shifted(text: str, late: int) -> str:
    """An event's JSON text as the public gets it `late` ms after it was sent: every time
    in it that many ms later, and the server's time now."""
    message = json.loads(text)
    _move_on(message, late, int(timezone.now().timestamp() * 1000))
    return json.dumps(message, separators=(",", ":"))


def _move_on(part: dict[str, Any], late: int, now: int) -> None:
    for key, value in part.items():
        if key == "server_time":
            part[key] = now
        elif key in TIME_FIELDS and type(value) is int:
            part[key] = value + late
        elif isinstance(value, dict):
            _move_on(value, late, now)


Seed = Callable[[], Awaitable[list[tuple[float, dict[str, Any]]]]]


class DelayLine:
    # (event loop, channel layer, group) -> its line, as the hubs are kept
    _lines: dict[tuple[Any, Any, str], DelayLine] = {}

    def __init__(self, key: tuple[Any, Any, str]) -> None:
        self.key = key
        self.members: dict[Member, None] = {}
        # (when it is due, its order of arrival, the event): a heap, soonest first (the
        # list's group mixes matches of different delays)
        self.held: list[tuple[float, int, dict[str, Any]]] = []
        self.arrived = itertools.count()
        self.wake = asyncio.Event()
        self.hub: Hub | None = None
        self.ready = asyncio.get_running_loop().create_future()
        self.opening: asyncio.Task | None = None
        self.task: asyncio.Task | None = None

    @classmethod
    async def join(cls, group: str, member: Member, seed: Seed | None = None) -> DelayLine:
        """Add a public socket: once this returns, it is handed every event of the group,
        each when the public may see it. `seed` gives, for a line made now, the events
        sent before it existed that the public has not seen yet, each with its epoch
        time (s) to come."""
        loop = asyncio.get_running_loop()
        key = (loop, get_channel_layer(), group)
        line = cls._lines.get(key)
        if line is None:
            line = cls._lines[key] = cls(key)
            line.opening = asyncio.create_task(line._open(seed))
        line.members[member] = None
        try:
            await asyncio.shield(line.ready)
        except BaseException:
            await line.leave(member)
            raise
        return line

    async def _open(self, seed: Seed | None) -> None:
        try:
            self.hub = await Hub.join(self.key[2], self)
            if seed is not None:  # due at their own moments, among the events heard meanwhile
                now, clock = timezone.now().timestamp(), self.key[0].time()
                for at, event in await seed():
                    heapq.heappush(self.held, (clock + at - now, next(self.arrived), event))
        except BaseException as error:
            if self._lines.get(self.key) is self:
                del self._lines[self.key]
            if self.hub is not None:
                await self.hub.leave(self)
            if not self.ready.done():
                self.ready.set_exception(error)
                self.ready.exception()  # said to the joiners; not "never retrieved"
            return
        self.task = asyncio.create_task(self._run(), name=f"delay line {self.key[2]}")
        self.ready.set_result(None)

    async def leave(self, member: Member) -> None:
        """Remove a socket; the last one out ends the line and its place in the hub (a
        line still opening stops opening)."""
        self.members.pop(member, None)
        if self.members or self._lines.get(self.key) is not self:
            return
        del self._lines[self.key]
        if not self.opening.done():
            self.opening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.opening
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.hub is not None:
            await self.hub.leave(self)

    async def deliver(self, event: dict[str, Any]) -> None:
        """An event of the group, from its hub."""
        late = event.get("late")
        if not late:
            if event.get("kind") == "withdrawn":  # nothing more of that match for the public
                self._drop(json.loads(event["text"]).get("match"))
            await self._hand(event)
            return
        if len(self.held) >= HELD_MAX:
            heapq.heappop(self.held)  # its sockets find the gap, fill it from the stored turns
        heapq.heappush(self.held, (self.key[0].time() + late / 1000, next(self.arrived), event))
        self.wake.set()

    def _drop(self, match_id: Any) -> None:
        """Forget the held events of a match taken back by the judges."""
        def of_it(event: dict[str, Any]) -> bool:
            said = json.loads(event["text"])
            shown = said.get("match")
            return (shown.get("id") if isinstance(shown, dict) else shown) == match_id
        self.held = [held for held in self.held if not of_it(held[2])]
        heapq.heapify(self.held)

    async def resync(self) -> None:
        """The hub was out of its group: the members catch up from the stored turns."""
        for member in list(self.members):
            resync = getattr(member, "resync", None)
            if resync is not None and member in self.members:
                await resync()

    async def _run(self) -> None:
        loop = self.key[0]
        while True:
            if not self.held:
                self.wake.clear()
                await self.wake.wait()
                continue
            due, _, event = self.held[0]
            wait = due - loop.time()
            if wait > 0:
                self.wake.clear()
                await wake_or_time(self.wake, wait)
                continue
            heapq.heappop(self.held)
            try:
                await self._hand({**event, "text": shifted(event["text"], event["late"])})
            except Exception:  # one bad event must not stop the line
                log.exception("delay line %s: an event could not be handed on", self.key[2])

    async def _hand(self, event: dict[str, Any]) -> None:
        await hand_out(self.members, event, f"delay line {self.key[2]}")
