"""One channel-layer subscription per process and group, shared by all its local sockets.

By default every websocket consumer of a group has its own channel-layer channel: each
event is copied once per socket, and each copy wakes a receive task and goes through a
dispatch that closes old database connections on a worker thread. With 1,000 sockets
on one match that was about half a second of the server's loop per turn.

A hub subscribes to the group once for the whole process, receives each event once,
and hands it to every local member in the order it came, by awaiting the member's
`deliver(event)`. The events carry pre-encoded JSON text (`relay_event` in
`live/outbox.py`), so delivering one is one ASGI send per socket. With Redis and
several server processes, a group has one member per process, not one per socket.
A hub exists while it has members: the first to join creates it, the last to leave
ends it.

When the layer's server goes away (Redis restarting, its data gone), the hub that was
receiving sees the failure, and every hub of the process on that layer joins its group
again as soon as the server answers; then each member that has a `resync()` is asked to
catch up on what it may have missed meanwhile from the stored turns. A channel layer
receives for all the hubs of a process at once, so only one of them sees the failure.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# How long a hand-out keeps the event loop before it lets it turn (other sockets' reads,
# HTTP requests, daphne's timers). A turn to an up-to-date socket is written straight to
# it (live/frames.py), not at the loop's next turn, so a crowd whose hand-out takes less
# goes out in one go, as a bare broadcaster sends it: 1,000 sockets take some 12 ms here,
# and letting the loop turn after every hundred of them made their turn 2-4 ms later at
# the median and the p99 (bench/capacity.py --only storm). A larger crowd lets the loop
# turn every SLICE_SECONDS, so that nothing waits behind it longer than that.
SLICE_SECONDS = 0.02
# Members served between two looks at the time.
BATCH = 100
# Channel layers drop a group member after a day (`group_expiry`); a hub lives as long as
# it has viewers, so it joins again now and then.
REJOIN_SECONDS = 3600
# How long a hub waits before it tries the layer again after a failure.
RETRY_SECONDS = 1.0
# How long the last member leaving waits for the hub's receive to end once cancelled.
LEAVE_SECONDS = 2.0


async def wake_or_time(event: asyncio.Event, seconds: float) -> None:
    """Wait until `event` is set or `seconds` have passed; a cancellation always ends it.
    (Python 3.11's `asyncio.wait_for` loses a cancellation that comes in the same turn
    of the loop as the event: the task cancelled then went on for good, and whoever
    waited for its end waited for ever. Its `asyncio.timeout` can leave a stray
    cancellation behind when the time runs out as the event comes.)"""
    waiting = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait([waiting], timeout=seconds)
    finally:
        waiting.cancel()


def stop_if_cancelled() -> None:
    """Raise CancelledError when this task has been asked to stop. A retry loop calls it
    on a failure: a cancellation that reached the layer's client in the middle of a read
    can come out as another error (redis-py's ConnectionError), and retrying then would
    keep the task alive for good, and whoever waits for it (a hub's last member leaving,
    an event loop closing) wait for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Member(Protocol):
    async def deliver(self, event: dict[str, Any]) -> None: ...

    # Optional: `def deliver_now(self, event) -> bool`, the same delivery done without
    # awaiting anything, where the event allows it (True: delivered; False: `deliver` is
    # awaited instead, as though it had not been called).

    # Optional: `async def resync(self) -> None`, called after the hub was out of its group
    # for a while, so events may have been lost. Members are asked one after another: a
    # resync starts its catch-up and returns.


class Hub:
    # (event loop, channel layer, group) -> its hub. The loop is part of the key so that a
    # hub never outlives its loop into another one (each test runs its own).
    _hubs: dict[tuple[Any, Any, str], Hub] = {}

    def __init__(self, key: tuple[Any, Any, str]) -> None:
        self.key = key
        _, self.layer, self.group = key
        self.members: dict[Member, None] = {}  # an ordered set
        self.channel: str | None = None
        self.lost = asyncio.Event()  # the layer failed: the group may have forgotten us
        self.ended = False  # the last member left: join no more
        self.joining: asyncio.Task | None = None  # (`_keep_joined`)
        self.subscribed = asyncio.get_running_loop().create_future()
        self.idle = asyncio.Event()  # set: no event is being handed out (`handed_out`)
        self.idle.set()
        self.task = asyncio.create_task(self._run(), name=f"hub {self.group}")

    @classmethod
    async def join(cls, group: str, member: Member) -> Hub:
        """Add a member: once this returns, it is delivered every event sent to the group."""
        key = (asyncio.get_running_loop(), get_channel_layer(), group)
        hub = cls._hubs.get(key)
        if hub is None:
            hub = cls._hubs[key] = cls(key)
        hub.members[member] = None
        try:
            await asyncio.shield(hub.subscribed)
        except BaseException:
            await hub.leave(member)
            raise
        return hub

    async def leave(self, member: Member) -> None:
        """Remove a member; the last one out ends the hub and its subscription."""
        self.members.pop(member, None)
        if self.members or self._hubs.get(self.key) is not self:
            return
        del self._hubs[self.key]
        self.ended = True
        self.task.cancel()
        # A receive that swallows its cancellation (channels-redis's, now and then, on
        # PostgreSQL's test runs: the task stayed "cancelling" for good) must not keep the
        # last member from leaving: wait a while, then leave it behind, out of the group.
        # (The rejoining task too, so that no join of its comes after the leaving below:
        # its `group_add` may swallow the cancellation in the same way.)
        tasks = [self.task] + ([self.joining] if self.joining is not None else [])
        await asyncio.wait(tasks, timeout=LEAVE_SECONDS)
        if not self.task.done():
            log.warning("hub %s: its receive did not end when cancelled; left behind",
                        self.group)
        elif not self.task.cancelled() and self.task.exception() is not None:
            log.warning("hub %s: its receive ended with %r", self.group, self.task.exception())
        if self.channel is not None:
            try:
                await self.layer.group_discard(self.group, self.channel)
            except Exception as error:  # the layer forgets the member by itself in time
                log.warning("hub %s: could not leave the group: %r", self.group, error)

    async def _run(self) -> None:
        try:
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(self.group, self.channel)
        except Exception as error:  # the joiners fail, and the next one tries afresh
            if self._hubs.get(self.key) is self:
                del self._hubs[self.key]
            self.subscribed.set_exception(error)
            return
        self.subscribed.set_result(None)
        self.joining = joining = asyncio.create_task(self._keep_joined())
        try:
            while True:
                try:
                    event = await self.layer.receive(self.channel)
                except Exception as error:  # the layer's server restarting, say
                    stop_if_cancelled()
                    log.warning("hub %s: channel layer receive failed: %r; retrying",
                                self.group, error)
                    self._layer_lost()
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
                await self._deliver(event)
        finally:
            joining.cancel()

    def _layer_lost(self) -> None:
        """Every hub of this loop and layer joins its group again: a restarted server has
        forgotten them all, and the others did not see it fail."""
        for hub in list(self._hubs.values()):
            if hub.key[:2] == self.key[:2]:
                hub.lost.set()

    async def _keep_joined(self) -> None:
        """Join the group again every REJOIN_SECONDS, and as soon as the server answers
        after a failure; then let the members catch up on what they may have missed."""
        while not self.ended:
            await wake_or_time(self.lost, REJOIN_SECONDS)
            if self.ended:
                return
            while not self.ended:
                try:
                    await self.layer.group_add(self.group, self.channel)
                    break
                except Exception as error:
                    stop_if_cancelled()
                    log.warning("hub %s: could not join the group again: %r; retrying",
                                self.group, error)
                    await asyncio.sleep(RETRY_SECONDS)
            if self.lost.is_set():  # however many failures came meanwhile: one catch-up
                self.lost.clear()
                log.info("hub %s: joined the group again after a channel layer failure",
                         self.group)
                await self._resync()

    async def _resync(self) -> None:
        for member in list(self.members):
            resync = getattr(member, "resync", None)
            if resync is None or member not in self.members:
                continue
            try:
                await resync()
            except Exception:
                log.exception("hub %s: resync of %r failed", self.group, member)

    async def _deliver(self, event: dict[str, Any]) -> None:
        self.idle.clear()
        try:
            await hand_out(self.members, event, f"hub {self.group}")
        finally:
            self.idle.set()

    @classmethod
    async def handed_out(cls) -> None:
        """Wait until this loop's hubs have handed out the events they have received,
        those sent to the layer just before included: the in-memory layer's reach their
        hubs within the loop's next turn (Redis's come later, and are not waited for)."""
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        busy = [hub.idle.wait() for hub in list(cls._hubs.values())
                if hub.key[0] is loop and not hub.idle.is_set()]
        if busy:
            await asyncio.gather(*busy)


async def hand_out(members: dict[Member, None], event: dict[str, Any], name: str) -> None:
    """An event to every member (a hub's, a delay line's), in the order they joined: by
    its `deliver_now` where it has one and takes the event so (a turn to a socket that is
    up to date: no coroutine a socket, which was a fifth of a crowd's fan-out), else by
    awaiting its `deliver`; the loop let turn once the hand-out has held it SLICE_SECONDS
    (looked at every BATCH members)."""
    since = time.monotonic()
    for count, member in enumerate(list(members), 1):
        if member not in members:  # left while the loop was writing
            continue
        try:
            now = getattr(member, "deliver_now", None)
            if now is None or not now(event):
                await member.deliver(event)
        except Exception:  # one broken socket must not cost the others the event
            log.exception("%s: delivery to %r failed", name, member)
        if count % BATCH == 0 and time.monotonic() - since >= SLICE_SECONDS:
            await asyncio.sleep(0)  # (what was queued meanwhile, the frames Twisted holds)
            since = time.monotonic()
