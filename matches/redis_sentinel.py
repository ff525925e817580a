"""A redis-py connection pool to the master a Redis URL names, found through Sentinels,
made the way Django's Redis cache makes its pools (`pool_class.from_url(LOCATION,
**OPTIONS)`): `redis://mymaster/0` with the options `sentinels` and `sentinel_kwargs`
(matches/redis_servers.py writes them); and the clients of a Redis URL that the project's
own code makes (the rate windows'), through the Sentinels when there are any.

Loaded by the code that makes a client, never by the settings (it imports redis-py)."""

from __future__ import annotations

from typing import Any

from redis.sentinel import Sentinel, SentinelConnectionPool

from matches.redis_servers import Master, sentinel_options


class SentinelPool(SentinelConnectionPool):
    @classmethod
    def from_url(cls, url: str, *, sentinels: list[tuple[str, int]],
                 sentinel_kwargs: dict[str, Any] | None = None, **options: Any):
        master = Master(url)
        manager = Sentinel(sentinels, sentinel_kwargs=sentinel_kwargs or {})
        return cls(master.name, manager, **master.connection_options(), **options)


def client(url: str, sentinels: list[tuple[str, int]], sentinel_password: str = ""):
    """A redis-py client of the Redis of `url` (through the Sentinels when there are any)."""
    import redis

    if not sentinels:
        return redis.Redis.from_url(url)
    pool = SentinelPool.from_url(url, sentinels=sentinels,
                                 sentinel_kwargs=sentinel_options(sentinel_password))
    return redis.Redis(connection_pool=pool)


def settings_client():
    """A client of the deployment's REDIS_URL as the settings name it, or None without
    Redis."""
    from django.conf import settings

    if not settings.REDIS_URL:
        return None
    return client(settings.REDIS_URL, settings.REDIS_SENTINELS,
                  settings.REDIS_SENTINEL_PASSWORD)
