"""Where the deployment's Redis servers are, for everything in the project that uses one:
the channel layer, Django's cache, the rate windows and Celery's queue
(docs/deployment.md).

- One Redis: `REDIS_URL=redis://host:6379/0`.
- Several shards for the channel layer: `CHANNEL_REDIS_URLS=redis://a:6379/0,redis://b:6379/0`.
  channels-redis spreads groups and channels over them by a hash of their names; the
  cache, the rate windows and the queue stay on REDIS_URL's (by default the first
  shard), since none of them can be split the same way.
- Found through Redis Sentinel: `REDIS_SENTINELS=s1:26379,s2:26379`; then each Redis
  URL names its master instead of a host, `redis://mymaster/0` (no port: the Sentinels
  say where the master is now, and say so again after a failover). Every user of Redis
  asks them. `REDIS_SENTINEL_PASSWORD` when the Sentinels require one.

Read by spectator/settings.py, which imports nothing else of the project; the client
library (redis-py) is loaded only when something connects.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

DEFAULT_SENTINEL_PORT = 26379
# How long a question to a Sentinel may take: a Sentinel that is down is passed over for
# the next one instead of holding the caller.
SENTINEL_TIMEOUTS = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0}


class RedisSettingsError(ValueError):
    """A Redis variable that cannot be read; the settings raise it as ImproperlyConfigured."""


def sentinels_parsed(text: str) -> list[tuple[str, int]]:
    """`host:port,host:port` (IPv6 as `[::1]:26379`; 26379 when no port) as pairs."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            place = urlsplit(f"//{item}")
            host, port = place.hostname, place.port or DEFAULT_SENTINEL_PORT
        except ValueError as error:
            raise RedisSettingsError(f"REDIS_SENTINELS: {item!r} is no host:port") from error
        if not host or place.path or place.username:
            raise RedisSettingsError(f"REDIS_SENTINELS: {item!r} is no host:port")
        found.append((host, port))
    return found


class Master:
    """A Redis URL read as Sentinel mode reads it: its host is the master's name."""

    def __init__(self, url: str) -> None:
        place = urlsplit(url)
        if place.scheme not in ("redis", "rediss"):
            raise RedisSettingsError(f"{url!r}: with REDIS_SENTINELS, a Redis URL is "
                                     "redis://[user:password@]MASTER_NAME[/db]")
        try:
            port = place.port
        except ValueError:
            port = None
        if not place.hostname or port is not None:
            raise RedisSettingsError(
                f"{url!r}: with REDIS_SENTINELS, a Redis URL names the master the "
                "Sentinels watch (redis://mymaster/0), not a host and port: they say "
                "where it is")
        path = place.path.strip("/")
        if path and not path.isdigit():
            raise RedisSettingsError(f"{url!r}: the database is a number (redis://mymaster/0)")
        self.name = unquote(place.hostname)
        self.db = int(path or 0)
        self.username = unquote(place.username) if place.username else None
        self.password = unquote(place.password) if place.password else None
        self.ssl = place.scheme == "rediss"

    def connection_options(self) -> dict[str, Any]:
        """What each connection to the master needs besides its address."""
        options: dict[str, Any] = {"db": self.db}
        if self.username:
            options["username"] = self.username
        if self.password:
            options["password"] = self.password
        if self.ssl:
            options["ssl"] = True
        return options


def sentinel_options(password: str) -> dict[str, Any]:
    """The options of the connections to the Sentinels themselves."""
    return {**SENTINEL_TIMEOUTS, **({"password": password} if password else {})}


def layer_host(url: str, sentinels: list[tuple[str, int]], sentinel_password: str,
               **options: Any) -> dict[str, Any]:
    """One entry of channels-redis's `hosts`: the Redis of `url`, or with Sentinels the
    master `url` names (channels-redis's `master_name`, `sentinels`, `sentinel_kwargs`)."""
    if not sentinels:
        return {"address": url, **options}
    master = Master(url)
    return {"master_name": master.name, "sentinels": sentinels,
            "sentinel_kwargs": sentinel_options(sentinel_password),
            **master.connection_options(), **options}


def cache_config(url: str, sentinels: list[tuple[str, int]],
                 sentinel_password: str) -> dict[str, Any]:
    """Django's Redis cache on `url` (through the Sentinels when there are any)."""
    config: dict[str, Any] = {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                              "LOCATION": url}
    if sentinels:
        Master(url)  # (said now, at start, if it is not a master's URL)
        config["OPTIONS"] = {"pool_class": "matches.redis_sentinel.SentinelPool",
                             "sentinels": sentinels,
                             "sentinel_kwargs": sentinel_options(sentinel_password)}
    return config


def celery_broker(url: str, sentinels: list[tuple[str, int]],
                  sentinel_password: str) -> tuple[str, dict[str, Any]]:
    """Celery's broker URL and transport options for the Redis of `url`: kombu's
    `sentinel://` transport when there are Sentinels (one `sentinel://` a Sentinel,
    separated by `;`, the master's name in the options)."""
    if not sentinels:
        return url, {}
    master = Master(url)
    auth = ""
    if master.password:
        auth = f"{master.username or ''}:{master.password}@"
    broker = ";".join(f"sentinel://{auth}{_netloc(host, port)}/{master.db}"
                      for host, port in sentinels)
    options = {"master_name": master.name,
               "sentinel_kwargs": sentinel_options(sentinel_password)}
    return broker, options


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
