"""The client side of bench/fanout.py: websocket viewers and answer-API senders, each
group in a process of its own (one asyncio loop, garbage collector off while it
measures), reporting to the bench through a queue.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import json
import math
import multiprocessing
import os
import queue
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

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
    host: str
    port: int
    path: str
    arrivals: list[tuple[int, float, float]] = field(default_factory=list)
    connected: bool = False
    error: str = ""
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # connected, or failed


class Turns:
    """What the bench needs of a message, read once per process: every viewer of a
    process receives the same texts."""

    def __init__(self):
        self.read: dict[bytes, tuple[str, int | None, float | None]] = {}

    def __call__(self, payload: bytes) -> tuple[str, int | None, float | None]:
        found = self.read.get(payload)
        if found is None:
            if len(self.read) > 64:
                self.read.clear()
            data = json.loads(payload)
            stamp = data.get("server_time")
            found = self.read[payload] = (data["type"], data.get("turn"),
                                          stamp / 1000 if stamp else None)
        return found


class Watcher(asyncio.Protocol):
    """A websocket viewer as lean as a client can be, so that the clients sharing the
    servers' cores take as little of them as possible: an asyncio protocol that reads
    frames as they come, notes the arrival time of each turn message and answers
    pings. Servers' frames are unmasked and, from daphne, never fragmented; a
    fragmented one is joined all the same."""

    def __init__(self, viewer: Viewer, turns: Turns):
        self.viewer, self.turns = viewer, turns
        self.buffer = bytearray()
        self.upgraded = False
        self.fragments: list[bytes] = []
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET {self.viewer.path} HTTP/1.1\r\n"
                         f"Host: {self.viewer.host}:{self.viewer.port}\r\n"
                         "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                         f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                         f"Origin: http://{self.viewer.host}:{self.viewer.port}\r\n\r\n"
                         ).encode())

    def connection_lost(self, error):
        if not self.closed.done():
            self.closed.set_result(error)

    def data_received(self, data: bytes):
        arrived = time.time()
        self.buffer += data
        if not self.upgraded:
            head, found, _ = self.buffer.partition(b"\r\n\r\n")
            if not found:
                return
            status = bytes(head.split(b"\r\n", 1)[0])
            if not status.startswith(b"HTTP/1.1 101"):
                self.fail(f"handshake answered {status.decode(errors='replace')!r}")
                return
            del self.buffer[:len(head) + 4]
            self.upgraded = True
        self.frames(arrived)

    def frames(self, arrived: float):
        buffer = self.buffer
        while len(buffer) >= 2:
            first, length, start = buffer[0], buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start:start + length])
            del buffer[:start + length]
            self.frame(first & 0x0F, bool(first & 0x80), payload, arrived)

    def frame(self, opcode: int, final: bool, payload: bytes, arrived: float):
        if opcode in (0x1, 0x0):  # text, continuation
            self.fragments.append(payload)
            if final:
                message, self.fragments = b"".join(self.fragments), []
                self.message(message, arrived)
        elif opcode == 0x9:  # ping: a pong with the same data, masked as a client must
            self.send(0xA, payload)
        elif opcode == 0x8:  # close: the socket ends
            self.transport.close()
        elif opcode != 0xA:
            self.fail(f"unexpected frame opcode {opcode}")

    def message(self, payload: bytes, arrived: float):
        kind, turn, stamp = self.turns(payload)
        viewer = self.viewer
        if kind == "snapshot":
            viewer.connected = True
            viewer.ready.set()
        elif kind == "turn":
            viewer.arrivals.append((turn, arrived, stamp))

    def send(self, opcode: int, payload: bytes):
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.transport.write(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def fail(self, error: str):
        self.viewer.error = error
        self.viewer.ready.set()
        self.transport.abort()


async def view(viewer: Viewer, turns: Turns, watching: type[Watcher] | None = None) -> None:
    """One viewer's socket until the server closes it; `watching`: the protocol class
    (a Watcher; bench/capacity.py notes more of each message)."""
    loop = asyncio.get_running_loop()
    watching = watching or Watcher
    try:
        for attempt in range(5):  # refused while a busy server is accepting
            try:
                _, watcher = await loop.create_connection(lambda: watching(viewer, turns),
                                                          viewer.host, viewer.port)
            except OSError as error:
                viewer.error = repr(error)
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            try:  # listen until the server closes or the process is stopped
                await watcher.closed
            finally:
                watcher.transport.abort()
            if not viewer.connected and not viewer.error:
                viewer.error = "closed before the snapshot"
            return
    finally:
        viewer.ready.set()


async def ended(stop, tasks: list) -> None:
    """Wait until `stop` (a multiprocessing Event) is set, then end the viewers' tasks."""
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def connect_all(viewers: list[Viewer]) -> list:
    """Start every viewer, with at most CONNECTING handshakes under way at once: as fast
    as the servers accept them. Returns their tasks once all are connected or failed."""
    slots = asyncio.Semaphore(CONNECTING)
    turns = Turns()

    async def start(viewer: Viewer) -> asyncio.Task:
        async with slots:
            task = asyncio.create_task(view(viewer, turns))
            await viewer.ready.wait()
        return task

    return await asyncio.gather(*(start(viewer) for viewer in viewers))


def watch_process(urls: list[str], results, stop) -> None:
    # A full collection (30 ms with 1,000 sockets) would show as a late turn.
    gc.disable()
    asyncio.run(_watch(urls, results, stop))


async def _watch(urls: list[str], results, stop) -> None:
    """Connect a viewer to each url, report once all are connected (or failed), listen
    until stopped (after the `end` message too: the servers' CPU time is measured with
    the clients idle), then report every arrival and the loop's lag."""
    viewers = []
    for url in urls:
        parts = urlsplit(url)
        viewers.append(Viewer(parts.hostname, parts.port, parts.path))
    lags: list[tuple[float, float]] = []
    lag_task = asyncio.create_task(loop_lag(lags, math.inf))
    tasks = await connect_all(viewers)
    errors = [viewer.error for viewer in viewers if not viewer.connected]
    results.put(("ready", len(viewers) - len(errors), errors[:1]))
    await ended(stop, tasks)
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
