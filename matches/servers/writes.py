"""A protocol server's writes, in the order it asks for them, on the database thread.

`now(...)` queues a write and waits for it, and so for everything queued before it;
`soon(...)` queues one without waiting (its future says how it went). The writes queued
while the database thread is busy go over to it together, in one hop, each in its own
transaction. A write that fails is logged and does not stop the ones after it; `now`
raises its error.

(Leaving a line's or a turn's storage to run while the server goes on was tried: on two
cores the database thread and the loop then fight for the interpreter lock, and a game
took longer. The server waits for every write.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async

log = logging.getLogger(__name__)


class Writes:
    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.worker = asyncio.ensure_future(self._work())

    def soon(self, function: Callable, *args: Any, **kwargs: Any) -> asyncio.Future:
        done = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((function, args, kwargs, done))
        return done

    async def now(self, function: Callable, *args: Any, **kwargs: Any) -> Any:
        return await self.soon(function, *args, **kwargs)

    async def drain(self) -> None:
        """Wait until every write queued so far is done."""
        await self.now(lambda: None)

    async def close(self) -> None:
        """Wait for the writes queued so far (unless the worker itself was stopped, as
        when the loop shuts down), then stop the worker."""
        if not self.worker.done():
            last = self.soon(lambda: None)
            await asyncio.wait({last, self.worker}, return_when=asyncio.FIRST_COMPLETED)
        self.worker.cancel()

    async def _work(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            outcomes = await sync_to_async(_run, thread_sensitive=True)(batch)
            for (function, _, _, done), (result, error) in zip(batch, outcomes, strict=True):
                if done.cancelled():
                    continue
                if error is None:
                    done.set_result(result)
                else:
                    log.error("a protocol server's write %s failed: %r",
                              getattr(function, "__name__", function), error)
                    done.set_exception(error)
                    done.exception()  # retrieved here: a `soon` write is logged, not lost


def _run(batch: list) -> list[tuple[Any, BaseException | None]]:
    outcomes = []
    for function, args, kwargs, _ in batch:
        try:
            outcomes.append((function(*args, **kwargs), None))
        except Exception as error:
            outcomes.append((None, error))
    return outcomes
