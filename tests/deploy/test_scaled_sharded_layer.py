"""The channel layer sharded over two Redis servers (CHANNEL_REDIS_URLS,
docs/deployment.md): two daphne servers and a clock play a match whose group lives on
the second shard, and viewers on both servers get every turn once and in order."""

import os
from datetime import timedelta

import pytest
import redis
from channels_redis.utils import _consistent_hash
from django.db import transaction
from django.utils import timezone

from matches.live.broadcast import match_group
from matches.models import Match, Submission
from matches.services.clock import clock_wake
from tests.deploy.checks import (
    STEP,
    assert_every_turn_once_in_order,
    assert_resolved_once_and_replayed,
    viewers_of,
)
from tests.deploy.conftest import Player, Watching, started, wait_until
from tests.deploy.scaled import extras  # noqa: F401 (the fixture)
from tests.factories import make_match

# (the PostgreSQL + Redis pass of make test only: it needs both)
pytestmark = pytest.mark.once_on_postgres


def start_in(match, seconds: float) -> None:
    """Move a match that has not started to start in `seconds`, and wake the clocks."""
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(
            start_at=timezone.now() + timedelta(seconds=seconds))
        clock_wake()
    match.refresh_from_db()


def test_a_match_on_a_channel_layer_sharded_over_two_redis(venue, extras):  # noqa: F811
    run_redis, shard = os.environ["REDIS_URL"], extras.redis()
    # The match first (its group's name decides its shard), started once the servers
    # listen: the shards in the order that puts its group on the new Redis.
    match, tokens = make_match(turns=6, start_in=3600, **STEP)
    group = match_group(match.pk)
    hosts = [run_redis, shard] if _consistent_hash(group, 2) == 1 else [shard, run_redis]
    venue.env["CHANNEL_REDIS_URLS"] = ",".join(hosts)
    ports = started(venue, servers=2, clocks=1)
    start_in(match, 3)
    second = redis.Redis.from_url(shard)
    key = f"{os.environ.get('CHANNEL_LAYER_PREFIX', 'asgi')}:group:{group}"
    with Player(ports, match.pk, tokens[0]):
        watching = Watching(viewers_of(match, ports))
        # each server's hub is a member of the match's group, on the second shard
        wait_until(lambda: second.zcard(key) == 2, f"both servers in {key} on {shard}")
        viewers = watching.finish()
    assert_every_turn_once_in_order(viewers, 6)
    assert_resolved_once_and_replayed(match)
    assert Submission.objects.filter(match=match, status_code__lt=300).exists()
    second.close()
