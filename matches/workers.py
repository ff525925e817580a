"""Worker processes a server keeps for work too heavy for its own threads: one factory for
each use of them (the drawing worker's pictures, matches/drawing.py; the seated levels'
thinking, services/seats.py).

A `Worker` is one spawned process (not forked from a server that runs threads and an
event loop), started when first asked, that does one piece of work at a time; a worker
that died (killed, out of memory) is started again on the next request. It ignores a
Ctrl-C meant for its server, and it ends as soon as its server has ended, however that
one ended (`worker_start`, the first thing it runs). (Work a visitor starts, which must
be ended when its budget is spent, is a job instead: matches/jobs.py.)

Pure: no Django here, so that a worker that needs none (the levels' thinker) imports
none.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["BrokenProcessPool", "Worker", "worker_start"]


class Worker:
    """A named use of one worker process: `setup` (a module-level function, or None) runs
    in it when it starts, after `worker_start`."""

    def __init__(self, name: str, setup: Callable[[], None] | None = None) -> None:
        self.name = name
        self.setup = setup
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, function: Callable[..., Any], *arguments: Any) -> Future:
        """`function(*arguments)` in the worker (started if need be)."""
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=worker_start, initargs=(os.getpid(), self.setup))
            pool = self._pool
        return pool.submit(function, *arguments)

    def run(self, function: Callable[..., Any], *arguments: Any, seconds: float) -> Any:
        """`function(*arguments)`'s value, waited for `seconds` at most; a worker found dead
        is started again once (BrokenProcessPool if the new one dies too)."""
        for attempt in (1, 2):
            try:
                return self.submit(function, *arguments).result(seconds)
            except BrokenProcessPool:
                self.forget()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def pids(self) -> list[int]:
        """The ids of its process ([] while none runs)."""
        with self._lock:
            pool = self._pool
        return list(getattr(pool, "_processes", None) or {}) if pool is not None else []

    def forget(self) -> None:
        """End the worker (if any): the next request starts another."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def worker_start(server: int, setup: Callable[[], None] | None = None) -> None:
    """In a worker, as it starts: a Ctrl-C at the terminal is its server's to handle; it
    ends as soon as the server `server` has ended (its parent: a worker is its server's
    own child); then its own `setup`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(server,), daemon=True,
                     name="server watch").start()
    if setup is not None:
        setup()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(0.5)
    os._exit(0)
