"""Redis found through a Sentinel (REDIS_SENTINELS, docs/deployment.md): REDIS_URL names
the master the Sentinel watches (the run's Redis), not a host: no process could reach
Redis at all without asking the Sentinel where it is. Every user of Redis does: the
channel layer, the cache, the rate windows and Celery's queue; and a match plays through
it on two daphne servers and a clock."""

import os
import subprocess
import sys

import pytest
import redis
from django.core.cache import cache

from tests.conftest import ROOT, test_database_url
from tests.deploy.conftest import started
from tests.deploy.scaled import a_match_played_on, extras, redis_db  # noqa: F401 (the fixture)

# Each of them, in a process whose settings are the Sentinel's (its `cache.set` seen by
# this process, on the run's Redis). The layer's message goes to a channel and back.
EVERY_USER = """
import asyncio, django, sys
django.setup()
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from matches.redis_sentinel import settings_client
from spectator.celery import app

async def layer_round_trip():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "sentinel.check"})
    return (await asyncio.wait_for(layer.receive(channel), 10))["type"]

cache.set("sentinel-check", sys.argv[1], timeout=60)
client = settings_client()
client.set("sentinel-check:windows", sys.argv[1], ex=60)
master = client.connection_pool.get_master_address()
said = asyncio.run(layer_round_trip())
with app.connection_for_write() as connection:
    queue = connection.SimpleQueue("sentinel-check")
    queue.put({"said": sys.argv[1]})
    heard = queue.get(timeout=10)
    heard.ack()
    queue.close()
print(settings.CELERY_BROKER_URL.split(":")[0], master[1], said, heard.payload["said"])
"""

# (the PostgreSQL + Redis pass of make test only: it needs both)
pytestmark = pytest.mark.once_on_postgres


def sentinel_env(master: str, port: int) -> dict[str, str]:
    return {"REDIS_URL": f"redis://{master}/{redis_db()}", "REDIS_SENTINELS": f"127.0.0.1:{port}"}


def sentinel_asked(port: int) -> int:
    """The commands the Sentinel has answered so far (where is the master? this one)."""
    with redis.Redis(port=port) as sentinel:
        return sentinel.info("stats")["total_commands_processed"]


def test_every_user_of_redis_finds_it_through_the_sentinel(extras, tmp_path):  # noqa: F811
    port = extras.sentinel("spectator-check")
    asked = sentinel_asked(port)
    env = dict(os.environ, DATABASE_URL=test_database_url(), SPECTATOR_VAR_DIR=str(tmp_path),
               **sentinel_env("spectator-check", port))
    done = subprocess.run([sys.executable, "-c", EVERY_USER, "heard"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    run_redis_port = redis.Redis.from_url(os.environ["REDIS_URL"]).connection_pool \
        .connection_kwargs["port"]
    assert done.stdout.split() == ["sentinel", str(run_redis_port), "sentinel.check", "heard"]
    assert cache.get("sentinel-check") == "heard"  # on the run's Redis, this worker's db
    assert sentinel_asked(port) - asked > 4  # (the four, and this question)


def test_a_match_with_redis_behind_a_sentinel(venue, extras):  # noqa: F811
    port = extras.sentinel("spectator-venue")
    venue.env.update(sentinel_env("spectator-venue", port))
    asked = sentinel_asked(port)
    ports = started(venue, servers=2, clocks=1)
    a_match_played_on(ports)
    assert sentinel_asked(port) - asked > 3  # (each process, and this question)
