"""A redis-py connection pool to the master a Redis URL names, found through Sentinels,
made the way Django's Redis cache makes its pools (`pool_class.from_url(LOCATION,
**OPTIONS)`): `redis://mymaster/0` with the options `sentinels` and `sentinel_kwargs`
(matches/redis_servers.py writes them). The rate windows' client uses it too.

Loaded only in Sentinel mode (it imports redis-py)."""

from __future__ import annotations

from typing import Any

from redis.sentinel import Sentinel, SentinelConnectionPool

from matches.redis_servers import Master


class SentinelPool(SentinelConnectionPool):
    @classmethod
    def from_url(cls, url: str, *, sentinels: list[tuple[str, int]],
                 sentinel_kwargs: dict[str, Any] | None = None, **options: Any):
        master = Master(url)
        manager = Sentinel(sentinels, sentinel_kwargs=sentinel_kwargs or {})
        return cls(master.name, manager, **master.connection_options(), **options)
