import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers, get_channel_layer


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """A channel layer of its own for each test, as each test runs its own event loop: the
    Redis layer keeps asyncio locks and connections of the loop that first used it."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
async def worker_connections_closed():
    """The consumers' database work runs on a worker thread; close its connection after
    the test (a module asks for it in its pytestmark)."""
    yield
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.fixture
def subscriptions(monkeypatch):
    """The channel-layer group joins and leaves, as ("add" | "discard", group), whatever the
    layer (in memory, or Redis when REDIS_URL is set)."""
    layer = get_channel_layer()
    calls = []
    add, discard = layer.group_add, layer.group_discard

    # Noted once the layer has done it: a Redis layer takes a round trip to add a member,
    # and an event sent to the group before that is not the member's.
    async def group_add(group, channel):
        await add(group, channel)
        calls.append(("add", group))

    async def group_discard(group, channel):
        await discard(group, channel)
        calls.append(("discard", group))

    monkeypatch.setattr(layer, "group_add", group_add)
    monkeypatch.setattr(layer, "group_discard", group_discard)
    return calls
