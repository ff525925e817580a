"""matches.live.hub: one subscription per process and group, every event to every member."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from matches.live import hub as hub_module
from matches.live import outbox as outbox_module
from matches.live.broadcast import match_group
from matches.live.hub import Hub
from matches.live.outbox import relay_event
from matches.services import transition
from tests.factories import make_match
from tests.live.clients import browser_socket

pytestmark = pytest.mark.asyncio


class Recorder:
    def __init__(self):
        self.events = []

    async def deliver(self, event):
        self.events.append(event["text"])


class Broken:
    async def deliver(self, event):
        raise RuntimeError("socket gone")


async def send(group, number):
    await get_channel_layer().group_send(group, relay_event({"type": "turn", "turn": number}))


async def settle(*members, count, timeout=3):
    """Wait until each member has `count` events (a Redis layer takes a moment)."""
    async def arrived():
        while any(len(member.events) < count for member in members):
            await asyncio.sleep(0.005)
    await asyncio.wait_for(arrived(), timeout)
    await asyncio.sleep(0.05)  # and no more than that


async def test_members_share_one_subscription_and_get_every_event_in_order(subscriptions):
    members = [Recorder() for _ in range(3)]
    hubs = [await Hub.join("match.1", member) for member in members]
    assert hubs[0] is hubs[1] is hubs[2]
    assert subscriptions == [("add", "match.1")]
    for number in (1, 2, 3):
        await send("match.1", number)
    await settle(*members, count=3)
    texts = [f'{{"type":"turn","turn":{n}}}' for n in (1, 2, 3)]
    assert [member.events for member in members] == [texts] * 3
    for member in members:
        await hubs[0].leave(member)


async def test_the_last_member_out_ends_the_hub_and_its_subscription(subscriptions):
    first, second = Recorder(), Recorder()
    hub = await Hub.join("match.2", first)
    await Hub.join("match.2", second)
    await hub.leave(first)
    assert subscriptions == [("add", "match.2")]
    await hub.leave(second)
    assert subscriptions == [("add", "match.2"), ("discard", "match.2")]
    assert hub.task.done()
    again = await Hub.join("match.2", first)  # a newcomer starts a fresh hub
    assert again is not hub and subscriptions[-1] == ("add", "match.2")
    await send("match.2", 1)
    await settle(first, count=1)
    assert first.events == ['{"type":"turn","turn":1}']
    await again.leave(first)


async def test_groups_have_hubs_of_their_own():
    in_match, in_list = Recorder(), Recorder()
    match_hub = await Hub.join("match.3", in_match)
    list_hub = await Hub.join("matches", in_list)
    await send("matches", 7)
    await settle(in_list, count=1)
    assert in_match.events == [] and in_list.events == ['{"type":"turn","turn":7}']
    await match_hub.leave(in_match)
    await list_hub.leave(in_list)


async def test_a_failing_member_does_not_cost_the_others_the_event():
    before, broken, after = Recorder(), Broken(), Recorder()
    hub = None
    for member in (before, broken, after):
        hub = await Hub.join("match.4", member)
    await send("match.4", 1)
    await send("match.4", 2)
    await settle(before, after, count=2)
    assert before.events == after.events == ['{"type":"turn","turn":1}', '{"type":"turn","turn":2}']
    for member in (before, broken, after):
        await hub.leave(member)


async def test_a_crowd_larger_than_a_batch_is_served_whole_and_in_order(monkeypatch):
    monkeypatch.setattr(hub_module, "BATCH", 4)
    crowd = [Recorder() for _ in range(10)]
    hub = None
    for member in crowd:
        hub = await Hub.join("match.5", member)
    await send("match.5", 1)
    await send("match.5", 2)
    await settle(*crowd, count=2)
    assert all(m.events == ['{"type":"turn","turn":1}', '{"type":"turn","turn":2}']
               for m in crowd)
    for member in crowd:
        await hub.leave(member)


class Quick:
    """A member that takes each event at once (an up-to-date socket), in `seconds`."""

    def __init__(self, served, seconds=0.0):
        self.served, self.seconds = served, seconds

    def deliver_now(self, event):
        time.sleep(self.seconds)
        self.served.append(self)
        return True

    async def deliver(self, event):
        raise AssertionError("taken at once: never awaited")


async def test_a_crowd_served_within_a_slice_goes_out_in_one_go_and_a_longer_one_lets_the_loop_turn(
        monkeypatch):
    """What waits for the loop (here a callback; a socket's read, a request) waits for a
    hand-out shorter than SLICE_SECONDS to end, as it would for a bare broadcaster's,
    and comes in once a longer one has held the loop that long (looked at every BATCH)."""
    monkeypatch.setattr(hub_module, "BATCH", 4)
    loop = asyncio.get_running_loop()
    order = []
    quick = {Quick(order): None for _ in range(12)}
    loop.call_soon(order.append, "loop")
    await hub_module.hand_out(quick, {"kind": "turn"}, "test")
    assert order == list(quick)  # all twelve, and the loop has not turned
    await asyncio.sleep(0)
    assert order[-1] == "loop"

    order.clear()
    monkeypatch.setattr(hub_module, "SLICE_SECONDS", 0.005)
    slow = {Quick(order, seconds=0.002): None for _ in range(12)}
    loop.call_soon(order.append, "loop")
    await hub_module.hand_out(slow, {"kind": "turn"}, "test")
    members = list(slow)
    assert order == [*members[:4], "loop", *members[4:]]  # 8 ms held after the first four


async def test_a_member_that_takes_an_event_at_once_is_not_awaited_and_one_that_declines_is():
    """`deliver_now` (a turn to an up-to-date socket, written without a coroutine) is
    tried first; what it declines goes through `deliver`, in the same order."""
    class Quick(Recorder):
        def __init__(self):
            super().__init__()
            self.now = []

        def deliver_now(self, event):
            if '"turn":2' in event["text"]:
                return False  # (a gap to fill, say: the awaited way)
            self.now.append(event["text"])
            return True

    quick, plain = Quick(), Recorder()
    hub = await Hub.join("match.11", quick)
    await Hub.join("match.11", plain)
    for number in (1, 2, 3):
        await send("match.11", number)
    await settle(plain, count=3)
    texts = [f'{{"type":"turn","turn":{n}}}' for n in (1, 2, 3)]
    assert plain.events == texts
    assert quick.now == [texts[0], texts[2]] and quick.events == [texts[1]]
    for member in (quick, plain):
        await hub.leave(member)


async def test_a_member_that_leaves_during_a_delivery_is_skipped():
    first, second = Recorder(), Recorder()
    hub = await Hub.join("match.6", first)
    await Hub.join("match.6", second)

    class Leaver(Recorder):
        async def deliver(self, event):
            await super().deliver(event)
            await hub.leave(second)  # before the hub comes to it

    leaver = Leaver()
    hub.members = {leaver: None, **hub.members}
    await send("match.6", 1)
    await settle(leaver, first, count=1)
    assert leaver.events == first.events == ['{"type":"turn","turn":1}']
    assert second.events == []
    for member in (leaver, first):
        await hub.leave(member)


async def test_a_rejoin_that_swallows_its_cancellation_joins_no_more_once_the_hub_ends(
        monkeypatch, subscriptions):
    """A Redis client that finishes a join it was cancelled in (channels-redis's, now and
    then, as its receive): the hub's last member leaves after that join, not before, and
    nothing joins the group once it has left (the rejoining task went on for good)."""
    monkeypatch.setattr(hub_module, "REJOIN_SECONDS", 0.02)
    layer = get_channel_layer()
    add = layer.group_add

    async def stubborn_add(group, channel):
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # swallowed: the join goes on
        await add(group, channel)

    member = Recorder()
    hub = await Hub.join("match.8", member)
    monkeypatch.setattr(layer, "group_add", stubborn_add)
    await asyncio.sleep(0.1)  # a rejoin under way
    await hub.leave(member)
    ended = list(subscriptions)
    assert ended[-1] == ("discard", "match.8")
    await asyncio.sleep(0.2)
    assert subscriptions == ended


async def test_a_long_lived_hub_joins_its_group_again_before_the_layer_forgets_it(
        monkeypatch, subscriptions):
    monkeypatch.setattr(hub_module, "REJOIN_SECONDS", 0.05)
    member = Recorder()
    hub = await Hub.join("match.7", member)
    await asyncio.sleep(0.2)
    joins = len(subscriptions)
    assert joins >= 2 and set(subscriptions) == {("add", "match.7")}
    await hub.leave(member)
    ended = list(subscriptions)
    assert ended[-1] == ("discard", "match.7") and set(ended[:-1]) == {("add", "match.7")}
    await asyncio.sleep(0.15)  # and once it has ended, no more
    assert subscriptions == ended


class Resyncing(Recorder):
    def __init__(self):
        super().__init__()
        self.resyncs = 0

    async def resync(self):
        self.resyncs += 1


async def test_after_a_layer_failure_every_hub_joins_its_group_again_and_members_resync(
        monkeypatch, subscriptions):
    """As after a Redis restart: the groups are forgotten, and only the hub that was
    receiving sees the failure."""
    monkeypatch.setattr(hub_module, "RETRY_SECONDS", 0.01)
    layer = get_channel_layer()
    receive = layer.receive

    async def failing_receive(channel):
        event = await receive(channel)
        if event.get("kind") == "fail":
            raise ConnectionError("the layer's server went away")
        return event

    monkeypatch.setattr(layer, "receive", failing_receive)
    watcher, bystander = Resyncing(), Recorder()  # the bystander has no resync: none asked
    hub = await Hub.join("match.8", watcher)
    other = await Hub.join("match.9", bystander)
    for each in (hub, other):
        await layer.group_discard(each.group, each.channel)
    del subscriptions[:]
    await layer.send(hub.channel, {"type": "relay", "kind": "fail"})

    async def joined_again():
        while sorted(subscriptions) != [("add", "match.8"), ("add", "match.9")]:
            await asyncio.sleep(0.005)
    await asyncio.wait_for(joined_again(), 3)
    await send("match.8", 1)
    await send("match.9", 2)
    await settle(watcher, bystander, count=1)
    assert watcher.events == ['{"type":"turn","turn":1}'] and watcher.resyncs == 1
    assert bystander.events == ['{"type":"turn","turn":2}']
    await hub.leave(watcher)
    await other.leave(bystander)


async def test_a_leave_while_the_layer_is_down_ends_the_hub_all_the_same(monkeypatch):
    member = Recorder()
    hub = await Hub.join("match.10", member)

    async def group_discard(group, channel):
        raise ConnectionError("the layer's server went away")

    monkeypatch.setattr(get_channel_layer(), "group_discard", group_discard)
    await hub.leave(member)
    assert hub.task.done()
    again = await Hub.join("match.10", member)
    assert again is not hub
    await again.leave(member)


async def versioned(socket) -> tuple[str, int | None]:
    """The next versioned message a match socket sends, as (type, turn)."""
    while True:
        message = await socket.receive_json_from(timeout=3)
        if message["type"] != "viewers":
            return message["type"], message.get("turn")


async def nothing_versioned(socket) -> bool:
    while not await socket.receive_nothing(timeout=0.2):
        if (await socket.receive_json_from())["type"] != "viewers":
            return False
    return True


async def lost(triples) -> None:
    pass


@pytest.mark.django_db(transaction=True)
async def test_a_socket_catches_up_on_the_turns_and_end_lost_while_its_hub_was_out(monkeypatch):
    from django.db import connections

    match, _ = await sync_to_async(make_match)(turns=3)
    resolve = sync_to_async(transition.turn_resolve)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    assert (await socket.connect())[0]

    assert await versioned(socket) == ("snapshot", 0)
    await resolve(match_id=match.pk, number=1)
    assert await versioned(socket) == ("turn", 1)
    monkeypatch.setattr(outbox_module, "_send_all", lost)  # the layer loses what is sent
    await resolve(match_id=match.pk, number=2)
    await resolve(match_id=match.pk, number=3)
    assert await nothing_versioned(socket)
    [hub] = [hub for key, hub in Hub._hubs.items() if key[2] == match_group(match.pk)]
    await hub._resync()
    assert [await versioned(socket) for _ in range(3)] == [("turn", 2), ("turn", 3), ("end", 3)]
    await hub._resync()  # once over, nothing is sent twice
    assert await nothing_versioned(socket)
    await socket.disconnect()
    await sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
async def test_an_end_whose_last_turn_was_lost_comes_after_that_turn_all_the_same(monkeypatch):
    """After a Redis restart, a clock whose connection went stale meanwhile fails its first
    send, the last turn's, and the end sent right after it gets through (the hubs had
    joined their groups again, so no resync covers it): the socket fills the gap from the
    stored turns before the end, as before any turn, so that no screen ends a turn short."""
    from django.db import connections

    match, _ = await sync_to_async(make_match)(turns=2)
    resolve = sync_to_async(transition.turn_resolve)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    assert (await socket.connect())[0]
    assert await versioned(socket) == ("snapshot", 0)
    await resolve(match_id=match.pk, number=1)
    assert await versioned(socket) == ("turn", 1)
    sent = outbox_module._send_all

    async def turns_lost(triples):  # the turns are lost, the rest goes
        await sent([triple for triple in triples if triple[1]["type"] != "turn"])

    monkeypatch.setattr(outbox_module, "_send_all", turns_lost)
    await resolve(match_id=match.pk, number=2)
    assert await versioned(socket) == ("turn", 2)  # not the end first, a turn short
    assert await versioned(socket) == ("end", 2)
    assert await nothing_versioned(socket)
    await socket.disconnect()
    await sync_to_async(connections.close_all)()


class CancelledAsConnectionError:
    """A channel layer (the in-memory one's, but for its receive) whose client turns a
    cancellation in the middle of a read into a ConnectionError, as redis-py's does when
    channels-redis's receive is cancelled during its BZPOPMIN."""

    def __new__(cls, **kwargs):
        from channels.layers import InMemoryChannelLayer

        class Layer(InMemoryChannelLayer):
            async def receive(self, channel):
                try:
                    return await super().receive(channel)
                except asyncio.CancelledError:
                    raise ConnectionError("Connection closed by server.") from None

        return Layer(**kwargs)


async def test_a_hub_told_to_stop_stops_even_when_its_layer_reports_another_error(settings):
    """Found as a PostgreSQL pass that hung 300 s when its test's event loop closed: the
    hub took the cancellation, turned into a ConnectionError by the layer's client, for
    a failure of the layer, and tried again for good."""
    settings.CHANNEL_LAYERS = {"default": {
        "BACKEND": "tests.live.test_hub.CancelledAsConnectionError"}}
    member = Recorder()
    hub = await Hub.join("match.9", member)
    await asyncio.sleep(0.05)  # (its receive under way)
    await asyncio.wait_for(hub.leave(member), 3)  # the last member out: the hub ends
    assert hub.task.done()
