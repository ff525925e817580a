"""The outbox (matches/live/outbox.py): what is stored reaches the sockets' groups in the
order it was posted, built and sent off the thread that posted it when a loop serves
the process, or in one hop from that thread when none does; on the layer the process
runs (in memory, or Redis when REDIS_URL is set)."""

import asyncio
import json
import os
import threading

import pytest
from asgiref.sync import AsyncToSync, sync_to_async
from channels.layers import get_channel_layer

from matches.live.outbox import Outbox


async def listening(*groups: str) -> str:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    for group in groups:
        await layer.group_add(group, channel)
    return channel


async def heard(channel: str, count: int) -> list[tuple[str, int]]:
    layer = get_channel_layer()
    events = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(count)]
    return [(event["kind"], json.loads(event["text"])["n"]) for event in events]


async def heard_nothing(channel: str) -> bool:
    try:
        await asyncio.wait_for(get_channel_layer().receive(channel), 0.3)
    except TimeoutError:
        return True
    return False


def news(group: str, kind: str, n: int, built: list | None = None):
    def build():
        if built is not None:
            built.append(threading.current_thread().name)
        return [(group, {"type": kind, "n": n}, 0)]
    return build


@pytest.fixture
def hops(monkeypatch) -> list[int]:
    counted = []
    hop = AsyncToSync.__call__

    def count(self, *args, **kwargs):
        counted.append(1)
        return hop(self, *args, **kwargs)

    monkeypatch.setattr(AsyncToSync, "__call__", count)
    return counted


async def test_with_no_serving_loop_news_posted_together_goes_in_one_hop_in_order(hops):
    outbox, channel = Outbox(), await listening("match.1", "matches")

    def announce():
        with outbox.together():
            outbox.post(news("match.1", "turn", 1))
            with outbox.together():  # (inside another: the outer one posts)
                outbox.post(news("match.1", "end", 2))
            outbox.post(news("matches", "summary", 3))

    await sync_to_async(announce)()
    assert len(hops) == 1
    assert await heard(channel, 3) == [("turn", 1), ("end", 2), ("summary", 3)]
    hops.clear()
    await sync_to_async(outbox.ready)("match.1", {"type": "viewers", "n": 4})  # alone: a hop
    assert len(hops) == 1 and await heard(channel, 1) == [("viewers", 4)]


async def test_what_was_posted_before_an_error_goes_all_the_same():
    outbox, channel = Outbox(), await listening("match.2")

    def announce():
        with outbox.together():
            outbox.post(news("match.2", "turn", 1))
            raise RuntimeError("the tick failed after storing a turn")

    with pytest.raises(RuntimeError):
        await sync_to_async(announce)()
    assert await heard(channel, 1) == [("turn", 1)]


async def test_news_that_fails_to_build_is_left_out_and_the_rest_goes():
    outbox, channel = Outbox(), await listening("match.3")

    def broken():
        raise ValueError("a message that cannot be built")

    def announce():
        with outbox.together():
            outbox.post(news("match.3", "turn", 1))
            outbox.post(broken)
            outbox.post(news("match.3", "end", 2))

    await sync_to_async(announce)()
    assert await heard(channel, 2) == [("turn", 1), ("end", 2)]


async def test_a_serving_loop_builds_and_sends_off_the_posting_thread_in_order(hops):
    outbox, channel = Outbox(), await listening("match.4")
    outbox.serve_from(asyncio.get_running_loop())
    built: list[str] = []
    release = threading.Event()

    def slow():  # the first news takes a while to build
        release.wait(5)
        return news("match.4", "turn", 1, built)()

    def post_all():
        outbox.post(slow)
        for n in range(2, 6):
            outbox.post(news("match.4", "turn", n, built))
        return threading.current_thread().name

    poster = await sync_to_async(post_all, thread_sensitive=False)()
    assert await heard_nothing(channel)  # the poster came back before anything was built
    release.set()
    assert await heard(channel, 5) == [("turn", n) for n in range(1, 6)]
    assert built and poster not in built and set(built) == {built[0]}  # one thread, not its
    assert hops == []  # sent from the loop itself: no thread hopped to it
    assert await outbox.drained(1)


async def test_draining_waits_for_what_was_posted_and_gives_up_in_time():
    outbox, channel = Outbox(), await listening("match.5")
    outbox.serve_from(asyncio.get_running_loop())
    release = threading.Event()

    def slow():
        release.wait(5)
        return [("match.5", {"type": "turn", "n": 1}, 0)]

    await sync_to_async(outbox.post, thread_sensitive=False)(slow)
    assert not await outbox.drained(0.2)  # still building
    release.set()
    assert await outbox.drained(5)
    assert await heard(channel, 1) == [("turn", 1)]


def test_a_closed_loop_is_no_server_news_goes_from_the_caller():
    outbox, loop = Outbox(), asyncio.new_event_loop()
    outbox.serve_from(loop)
    loop.close()
    sent = []

    def build():
        sent.append(threading.current_thread().name)
        return []

    outbox.post(build)
    assert sent == [threading.current_thread().name]


@pytest.mark.django_db
def test_a_matchs_end_is_told_from_the_turn_just_stored_without_reading_it_back(
        django_assert_num_queries):
    from matches.live import messages
    from matches.models import Match
    from matches.services.transition import turn_resolve
    from tests.factories import make_match

    match, _ = make_match(turns=1)
    row = turn_resolve(match_id=match.pk, number=1)
    ended = Match.objects.prefetch_related("teams").select_related("board").get(pk=match.pk)
    told = messages.end(ended)  # (read from the database)
    with django_assert_num_queries(0):
        assert messages.end(ended, row.state()) == told


@pytest.mark.skipif(bool(os.environ.get("REDIS_URL")),
                    reason="waits for the in-memory layer's events only: those that come "
                           "back from Redis come later, and a clock sharing a process with "
                           "sockets is the embedded default's")
async def test_a_thread_waits_until_the_sockets_were_handed_what_it_posted_or_its_time():
    """A clock's tick lets its turns reach this process's sockets before its other work
    (services/clock.py): `handed_out` returns once the hubs have handed the news to
    every member, and gives up after its time."""
    from matches.live.hub import Hub

    outbox = Outbox()
    outbox.serve_from(asyncio.get_running_loop())
    handed: list[int] = []
    pace = {"seconds": 0.2}

    class Slow:
        async def deliver(self, event):
            await asyncio.sleep(pace["seconds"])  # a crowd's fan-out, say
            handed.append(json.loads(event["text"])["n"])

    member = Slow()
    hub = await Hub.join("match.9", member)
    try:
        def post_and_wait(n: int, seconds: float) -> tuple[bool, list[int]]:
            outbox.post(news("match.9", "turn", n))
            return outbox.handed_out(seconds), list(handed)

        waited = sync_to_async(post_and_wait, thread_sensitive=False)
        assert await waited(1, 5) == (True, [1])  # back only once the member had it
        pace["seconds"] = 1.0
        assert await waited(2, 0.2) == (False, [1])  # not yet: its time ran out first
        assert outbox.handed_out(0) is True  # on the loop itself: never waits
    finally:
        await hub.leave(member)


def test_with_no_serving_loop_a_thread_never_waits_to_be_handed_out():
    outbox = Outbox()
    outbox.post(lambda: [])
    assert outbox.handed_out(5) is True
