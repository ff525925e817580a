"""A turn's broadcasts (its turn, end, viewers and list lines) leave the clock's thread in
one hop to the layer's event loop, in order, on the layer the process runs (in memory,
or Redis when REDIS_URL is set)."""

import asyncio
import json

import pytest
from asgiref.sync import AsyncToSync, sync_to_async
from channels.layers import get_channel_layer

from matches.live.broadcast import broadcast, together


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


@pytest.fixture
def hops(monkeypatch) -> list[int]:
    counted = []
    hop = AsyncToSync.__call__

    def count(self, *args, **kwargs):
        counted.append(1)
        return hop(self, *args, **kwargs)

    monkeypatch.setattr(AsyncToSync, "__call__", count)
    return counted


async def test_broadcasts_made_together_are_sent_in_one_hop_in_order(hops):
    channel = await listening("match.1", "matches")

    def announce():
        with together():
            broadcast("match.1", {"type": "turn", "n": 1})
            with together():  # (inside another: the outer one sends)
                broadcast("match.1", {"type": "end", "n": 2})
            broadcast("matches", {"type": "summary", "n": 3})

    await sync_to_async(announce)()
    assert len(hops) == 1
    assert await heard(channel, 3) == [("turn", 1), ("end", 2), ("summary", 3)]
    hops.clear()
    await sync_to_async(broadcast)("match.1", {"type": "viewers", "n": 4})  # alone: a hop
    assert len(hops) == 1 and await heard(channel, 1) == [("viewers", 4)]


async def test_what_was_made_before_an_error_is_sent_all_the_same():
    channel = await listening("match.2")

    def announce():
        with together():
            broadcast("match.2", {"type": "turn", "n": 1})
            raise RuntimeError("the end message could not be built")

    with pytest.raises(RuntimeError):
        await sync_to_async(announce)()
    assert await heard(channel, 1) == [("turn", 1)]
