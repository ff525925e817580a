"""The client side of bench/fanout.py: websocket viewers and answer-API senders, each
group in a process of its own (one asyncio loop, garbage collector off while it
measures), reporting to the bench through a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import math
import multiprocessing
import queue
import time
from dataclasses import dataclass, field

import aiohttp
from live import loop_lag

CONNECTING = 16  # websocket handshakes under way at once, per client process
REQUEST_TIMEOUT = 30  # seconds; a submission not answered by then counts as TimeoutError
SUBMISSION = json.dumps({"actions": [{"agent": 0, "type": "put", "x": 3, "y": 3}]})


@contextlib.contextmanager
def client_processes(target, plans: list[list]):
    """One process a plan, each running target(plan, results, stop); yields the results
    queue, the processes and the stop event. They are ended at the exit, whatever
    happened."""
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no Django, no sockets
    results, stop = context.Queue(), context.Event()
    processes = [context.Process(target=target, args=(plan, results, stop), daemon=True)
                 for plan in plans]
    for process in processes:
        process.start()
    try:
        yield results, processes, stop
    except BaseException:
        for process in processes:
            process.terminate()
        raise
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()


def collect(results, processes, kind: str, by: float) -> list[tuple]:
    """One `kind` report from each client process, waiting until `by` (epoch s) at most."""
    reports = []
    while len(reports) < len(processes):
        try:
            report = results.get(timeout=1)
        except queue.Empty:
            if time.time() > by or any(process.exitcode for process in processes):
                raise SystemExit(f"a client process failed or did not report {kind!r}") from None
            continue
        assert report[0] == kind, report[0]
        reports.append(report[1:])
    return reports


@dataclass
class Viewer:
    url: str
    arrivals: list[tuple[int, float, float]] = field(default_factory=list)
    connected: bool = False
    error: str = ""
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # connected, or failed


@functools.lru_cache(maxsize=64)
def decode(text: str) -> dict:
    """Every viewer of a process receives the same texts: decode each one once."""
    return json.loads(text)


async def view(session: aiohttp.ClientSession, viewer: Viewer) -> None:
    try:
        for attempt in range(5):  # refused while a busy server is accepting
            try:
                return await _view(session, viewer)
            except aiohttp.ClientConnectionError as error:
                viewer.error = repr(error)
                await asyncio.sleep(0.2 * (attempt + 1))
    except Exception as error:  # a refused handshake: counted, not tried again
        viewer.error = repr(error)
    finally:
        viewer.ready.set()


async def _view(session: aiohttp.ClientSession, viewer: Viewer) -> None:
    """Listen until the server closes or the process is stopped (after the `end`
    message too: the servers' CPU time is measured with the clients idle)."""
    async with session.ws_connect(viewer.url, max_msg_size=0) as socket_:
        async for message in socket_:
            arrived = time.time()
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = decode(message.data)
            if data["type"] == "snapshot":
                viewer.connected = True
                viewer.ready.set()
            elif data["type"] == "turn":
                viewer.arrivals.append((data["turn"], arrived, data["server_time"] / 1000))


async def connect_all(session: aiohttp.ClientSession, viewers: list[Viewer]) -> list:
    """Start every viewer, with at most CONNECTING handshakes under way at once: as fast
    as the servers accept them. Returns their tasks once all are connected or failed."""
    slots = asyncio.Semaphore(CONNECTING)

    async def start(viewer: Viewer) -> asyncio.Task:
        async with slots:
            task = asyncio.create_task(view(session, viewer))
            await viewer.ready.wait()
        return task

    return await asyncio.gather(*(start(viewer) for viewer in viewers))


def watch_process(urls: list[str], results, stop) -> None:
    # A full collection (30 ms with 1,000 sockets) would show as a late turn.
    gc.disable()
    asyncio.run(_watch(urls, results, stop))


async def _watch(urls: list[str], results, stop) -> None:
    """Connect a viewer to each url, report once all are connected (or failed), listen
    until stopped, then report every arrival and the loop's lag."""
    viewers = [Viewer(url) for url in urls]
    lags: list[tuple[float, float]] = []
    lag_task = asyncio.create_task(loop_lag(lags, math.inf))
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector,
                                     headers={"Origin": "http://127.0.0.1"}) as session:
        tasks = await connect_all(session, viewers)
        errors = [viewer.error for viewer in viewers if not viewer.connected]
        results.put(("ready", len(viewers) - len(errors), errors[:1]))
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    lag_task.cancel()
    results.put(("done", [arrival for viewer in viewers for arrival in viewer.arrivals], lags))


def submit_process(plan: list[tuple[str, str, float, bool]], results, _stop) -> None:
    gc.disable()
    asyncio.run(_submit(plan, results))


async def _submit(plan: list[tuple[str, str, float, bool]], results) -> None:
    """Send each request at its time; report, for the measured ones, the latency, when
    the application received it (an accepted one's `received_at`), and the statuses."""
    latencies: list[float] = []
    reached: list[float] = []
    statuses: dict[str, int] = {}
    last = 0.0  # when the last measured answer came

    async def send(session: aiohttp.ClientSession, url: str, token: str, at: float,
                   measured: bool) -> None:
        nonlocal last
        await asyncio.sleep(max(at - time.time(), 0))
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        received_at = None
        try:
            async with session.post(url, data=SUBMISSION, headers=headers) as response:
                body = await response.read()
                status = str(response.status)
                if response.status == 202:
                    received_at = json.loads(body)["received_at"] / 1000
        except (aiohttp.ClientError, TimeoutError) as error:
            status = type(error).__name__
        if measured:
            last = max(last, time.time())
            latencies.append((last - at) * 1000)
            statuses[status] = statuses.get(status, 0) + 1
            if received_at is not None:
                reached.append((received_at - at) * 1000)

    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     timeout=timeout) as session:
        await asyncio.gather(*(send(session, *request) for request in plan))
    results.put(("done", {"latency": latencies, "reached": reached, "statuses": statuses,
                          "last": last}))
