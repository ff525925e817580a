"""The venue layout as real processes: daphne servers and turn clocks on the test
database, with Redis between them; websocket viewers that follow a match as the
browsers' live client does; a team's program that plays through the answer API.

These tests need PostgreSQL and Redis (the second pass of `make test`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import ROOT, test_database_url
from tests.e2e.conftest import free_port, wait_for_port
from tests.factories import move, put

SERVICES = "needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): the second pass of make test"


@pytest.fixture(autouse=True)
def _postgres_and_redis():
    if not (os.environ.get("REDIS_URL")
            and os.environ.get("DATABASE_URL", "").startswith(("postgres", "postgresql"))):
        pytest.skip(SERVICES)


def wait_until(predicate, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Venue:
    """daphne servers and `runclock` processes against the test database and one Redis;
    each writes a log of its own under `logs`."""

    def __init__(self, logs: Path, redis_url: str) -> None:
        self.logs = logs
        self.env = dict(os.environ, DATABASE_URL=test_database_url(), REDIS_URL=redis_url,
                        PYTHONUNBUFFERED="1")
        self.processes: list[subprocess.Popen] = []
        self.clocks = 0

    def _start(self, name: str, *args: str) -> subprocess.Popen:
        with open(self.logs / f"{name}.log", "a") as log:
            process = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=self.env,
                                       stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def server(self, port: int | None = None, app: str = "spectator.asgi:application"):
        """A daphne process, as deployed behind a proxy; returns (process, port)."""
        port = port or free_port()
        process = self._start(f"daphne-{port}", "-m", "daphne", "-b", "127.0.0.1",
                              "-p", str(port), "--proxy-headers", app)
        return process, port

    def clock(self) -> subprocess.Popen:
        self.clocks += 1
        return self._start(f"clock-{self.clocks}", "manage.py", "runclock")

    def stop(self, process: subprocess.Popen, sig=signal.SIGTERM) -> None:
        process.send_signal(sig)
        process.wait(timeout=15)

    def stop_all(self) -> None:
        """Stop every process, all at once, as a restart of the whole venue does."""
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(timeout=15)

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text()

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def venue(transactional_db, tmp_path):
    """Processes on the Redis of REDIS_URL (`venue.env["REDIS_URL"]` may be changed before
    starting any)."""
    started = Venue(tmp_path, os.environ.get("REDIS_URL", ""))
    yield started
    started.close()


class Viewer:
    """A websocket client of one match on one server, as static/matches/live.js is: after
    a drop it connects again with ?since=<the last turn it has>. It keeps every versioned
    message as it came, so that a duplicate, a gap or a turn out of order shows."""

    def __init__(self, port: int, match_id: int, since: int | None = None) -> None:
        self.port, self.match_id, self.last = port, match_id, since
        self.snapshot: int | None = None  # the turn of the snapshot, when one came
        self.turns: list[int] = []
        self.ended = False
        self.connections = 0
        self.connected = threading.Event()

    def __repr__(self) -> str:
        return (f"Viewer(:{self.port}, snapshot={self.snapshot}, turns={self.turns}, "
                f"ended={self.ended}, connections={self.connections})")

    def expected(self, turns: int) -> list[int]:
        """Every turn after the first thing it was told, exactly once and in order."""
        first = self.snapshot if self.snapshot is not None else 0
        return list(range(first + 1, turns + 1))

    async def run(self, session: aiohttp.ClientSession) -> None:
        while not self.ended:
            since = "" if self.last is None else f"?since={self.last}"
            url = f"ws://127.0.0.1:{self.port}/ws/matches/{self.match_id}/{since}"
            with contextlib.suppress(aiohttp.ClientError, OSError):  # the server is down
                async with session.ws_connect(
                        url, headers={"Origin": f"http://127.0.0.1:{self.port}"}) as socket:
                    self.connections += 1
                    self.connected.set()
                    async for frame in socket:
                        if frame.type != aiohttp.WSMsgType.TEXT:
                            break
                        self.receive(json.loads(frame.data))
                        if self.ended:
                            return
            await asyncio.sleep(0.2)

    def receive(self, message: dict) -> None:
        if message["type"] == "snapshot":
            self.snapshot = self.last = message["turn"]
        elif message["type"] == "turn":
            self.turns.append(message["turn"])
            self.last = message["turn"]
        elif message["type"] == "end":
            self.ended = True


class Watching:
    """Viewers following their match on a thread of their own, while the test drives the
    system, until each has had the end (or `seconds` are over)."""

    def __init__(self, viewers: list[Viewer], seconds: float = 90) -> None:
        self.viewers, self.seconds = viewers, seconds
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, name="viewers", daemon=True)
        self.thread.start()
        for viewer in viewers:
            assert viewer.connected.wait(30), f"{viewer} never connected"

    def _main(self) -> None:
        try:
            asyncio.run(self._follow())
        except BaseException as error:  # raised again by finish()
            self.error = error

    async def _follow(self) -> None:
        async with aiohttp.ClientSession() as session:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.seconds):
                    await asyncio.gather(*(viewer.run(session) for viewer in self.viewers))

    def finish(self) -> list[Viewer]:
        self.thread.join(self.seconds + 10)
        if self.error is not None:
            raise self.error
        return self.viewers


class Player(threading.Thread):
    """Team A's program: it puts its two agents in turn 1, then walks agent 0 along row 0,
    through the answer API of each server in turn, riding out servers that are down."""

    def __init__(self, ports: list[int], match_id: int, token: str) -> None:
        super().__init__(name="player", daemon=True)
        self.servers = itertools.cycle(ports)
        self.match_id, self.token = match_id, token
        self.stopped = threading.Event()

    def __enter__(self) -> Player:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.join(timeout=10)

    def run(self) -> None:
        played = set()
        while not self.stopped.is_set():
            base = f"http://127.0.0.1:{next(self.servers)}/api/matches/{self.match_id}"
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(base, timeout=5) as response:
                    state = json.loads(response.read())
                if state["status"] == "finished":
                    return
                turn = state["strategy_turn"]
                if turn and turn not in played and state["turn"] == turn - 1:
                    actions = ([put(0, 0, 0), put(1, 5, 4)] if turn == 1
                               else [move(0, min(turn - 1, 5), 0)])
                    request = urllib.request.Request(
                        f"{base}/actions", method="POST",
                        data=json.dumps({"actions": actions}).encode(),
                        headers={"Authorization": f"Bearer {self.token}",
                                 "Content-Type": "application/json"})
                    urllib.request.urlopen(request, timeout=5).close()
                    played.add(turn)
            time.sleep(0.05)


def started(venue: Venue, servers: int, clocks: int) -> list[int]:
    """Start servers and clocks; the servers' ports once they listen."""
    ports = [venue.server()[1] for _ in range(servers)]
    for _ in range(clocks):
        venue.clock()
    for port in ports:
        wait_for_port(port)
    return ports
