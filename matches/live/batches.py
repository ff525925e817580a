"""Work a crowd of sockets asks for at once, done once for all of them.

A thousand viewers who open a match at once each want the same things: whether the
public may watch it, its opening (the snapshot of its current turn), and to be counted.
Asked one by one, those are four thousand calls queued on the process's one database
thread (channels' `database_sync_to_async` is thread-sensitive), and a socket holds its
match's live turns until its opening is sent: the turn that fell during the crowd's
arrival reached the last of them seconds late.

`Batched(work)` runs `work(key, items)` (a coroutine function) for every caller who asks
`ask(key, item)` meanwhile, once. One run per key at a time: who asks while a run is
under way waits for the next one, which starts as soon as that one ends, with every item
asked for in between. So each answer comes from a run that started after its caller
asked (a socket that joined its group, then asked for its opening, gets one read after
it joined: no turn falls between), however many ask; and a storm costs a few runs, not
a run a socket. A caller that goes away (its socket closed) does not cancel the run the
others wait for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

Work = Callable[[Hashable, list[Any]], Awaitable[Any]]


class Batched:
    def __init__(self, name: str, work: Work) -> None:
        self.name, self.work = name, work
        self.runs = 0  # runs done (the bench and the tests read it)
        # (loop, key) -> the next run's answer and items; (loop, key) -> the run under
        # way. The loop is part of the key: a run never outlives its loop into another.
        self._next: dict[tuple[Any, Hashable], tuple[asyncio.Future, list[Any]]] = {}
        self._running: dict[tuple[Any, Hashable], asyncio.Task] = {}

    async def ask(self, key: Hashable, item: Any = None) -> Any:
        """What the next run of `key` returns, `item` being one of its items."""
        loop = asyncio.get_running_loop()
        slot = (loop, key)
        waiting = self._next.get(slot)
        if waiting is None:
            answer = loop.create_future()
            # (an answer no caller is left to read must not be logged as lost)
            answer.add_done_callback(lambda done: done.cancelled() or done.exception())
            waiting = self._next[slot] = (answer, [])
        waiting[1].append(item)
        if slot not in self._running:
            self._start(slot)
        return await asyncio.shield(waiting[0])

    def _start(self, slot: tuple[Any, Hashable]) -> None:
        self._running[slot] = asyncio.create_task(self._run(slot),
                                                  name=f"{self.name} {slot[1]!r}")

    async def _run(self, slot: tuple[Any, Hashable]) -> None:
        # Taken when the run starts, not when it was asked for: whoever asks before the
        # loop gets here is in this run.
        answer, items = self._next.pop(slot)
        try:
            result = await self.work(slot[1], items)
        except asyncio.CancelledError:  # the loop is ending: so do its callers
            answer.cancel()
            later = self._next.pop(slot, None)
            if later is not None:
                later[0].cancel()
            del self._running[slot]
            raise
        except Exception as error:
            answer.set_exception(error)
        else:
            answer.set_result(result)
        self.runs += 1
        del self._running[slot]
        if slot in self._next:  # asked for while this one ran
            self._start(slot)
