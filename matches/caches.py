"""The process's caches of things built once and read many times, in one registry.

Each cache is a `Kept`: values by key, at most `entries` of them and `limit` bytes of
text or pictures, the least recently used going first (the texts sent, the pictures and
clips drawn, the tokens' teams). A `Fresh` is one value this process keeps for a few
seconds (its copy of what the shared cache says, a health answer): built again once it
is older. An `Every` is the last time the process did something it does at most once a
few seconds. Keys carry what makes a value stale (its
turn, its visibility, its result) and what names the match for good: `identity(match)`,
its id *and* the moment its row was made. An id comes back (a test's rolled-back
match on SQLite, a match deleted and another made) but never with the same creation
time, so a kept value is never served for another match, whatever ran before in this
process. Tokens are keys of their own: random and given once, a token's digest never
names another team.

`caches_reset()` forgets every kept value and every other piece of process state
registered with `@resettable` (a runner's schedule, the admission counts): the one call
a test makes to start as a new process would.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime
from time import monotonic
from typing import Any

_REGISTRY: list[Kept] = []
_RESETS: list[Callable[[], None]] = []


class Kept:
    def __init__(self, name: str, entries: int, limit: int = 64 << 20) -> None:
        self.name, self.entries, self.limit = name, entries, limit
        self.built = 0  # values built (the rest were served from the cache)
        self._values: OrderedDict[Hashable, Any] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        _REGISTRY.append(self)

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value of `key`, built (outside the lock) and kept when missing: two
        threads may rarely build one value twice, never block each other meanwhile."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = build()
        self.put(key, value)
        return value

    def peek(self, key: Hashable) -> Any | None:
        with self._lock:
            return self._values.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self.built += 1
            if key in self._values:
                self._bytes -= _size(self._values.pop(key))
            self._values[key] = value
            self._bytes += _size(value)
            while len(self._values) > self.entries or (
                    len(self._values) > 1 and self._bytes > self.limit):
                _, gone = self._values.popitem(last=False)
                self._bytes -= _size(gone)

    def size(self) -> int:
        """The bytes of text and pictures kept."""
        return self._bytes

    def reset(self) -> None:
        with self._lock:
            self._values.clear()
            self._bytes = self.built = 0


class Fresh:
    """One value kept for `seconds`: `get(build)` builds it again once it is older (or
    was never built, or was `expire`d). The last value stays readable (`last`) after it
    expired, for a builder that compares the new one with it. `caches_reset()` forgets
    both."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name, self.seconds = name, seconds
        self.built = 0
        self.last: Any = None
        self._at: float | None = None
        self._lock = threading.Lock()
        _RESETS.append(self.reset)

    def current(self) -> Any | None:
        """The value if it is fresh, None otherwise."""
        with self._lock:
            fresh = self._at is not None and monotonic() - self._at < self.seconds
            return self.last if fresh else None

    def get(self, build: Callable[[], Any]) -> Any:
        """The value, built (outside the lock) when it is not fresh."""
        value = self.current()
        if value is None:
            value = build()
            self.put(value)
        return value

    def put(self, value: Any) -> None:
        with self._lock:
            self.built += 1
            self.last, self._at = value, monotonic()

    def expire(self) -> None:
        """The next `get` builds the value again (the last one stays readable)."""
        with self._lock:
            self._at = None

    def reset(self) -> None:
        with self._lock:
            self.last, self._at, self.built = None, None, 0


class Every:
    """Something this process does at most once a `seconds` (the clock's heartbeat, its
    looks for lost workers and for the ladder's next matches): `due(now)` says whether
    it is time, and if so notes `now` as the last time. `now` is a datetime or a number
    of seconds, the same kind at every call. `caches_reset()` forgets the last time."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name, self.seconds = name, seconds
        self._at: Any = None
        self._lock = threading.Lock()
        _RESETS.append(self.reset)

    def due(self, now: Any) -> bool:
        with self._lock:
            if self._at is not None:
                gap = now - self._at
                if (gap.total_seconds() if hasattr(gap, "total_seconds") else gap) \
                        < self.seconds:
                    return False
            self._at = now
            return True

    def reset(self) -> None:
        with self._lock:
            self._at = None


def _size(value: Any) -> int:
    if isinstance(value, str | bytes | bytearray):
        return len(value)
    if isinstance(value, tuple):
        return sum(_size(part) for part in value)
    return 0


def identity(match: Any) -> tuple[int, datetime]:
    """What names a match (any row with `created_at`) for good, as a key's first part."""
    return match.pk, match.created_at


def resettable(reset: Callable[[], None]) -> Callable[[], None]:
    """Register `reset` (a decorator) to be called by `caches_reset()`: process state that
    is not a `Kept` but would mislead a test after another's rolled-back rows."""
    _RESETS.append(reset)
    return reset


def caches_reset() -> None:
    """Forget every kept value and registered state of this process (tests)."""
    for kept in _REGISTRY:
        kept.reset()
    for reset in _RESETS:
        reset()
