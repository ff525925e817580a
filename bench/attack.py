"""A hostile visitor against a live match: python bench/attack.py [--venue] [--seconds 20]

Starts `make demo`'s server (one process: SQLite, the in-memory layer, the clock and
the demo's bots on its loop) in a scratch folder — or, with --venue, the layout of
`make serve` (nginx in front of two daphne processes, a clock and the drawing worker,
PostgreSQL and Redis: deploy/serve.sh) — with a published Kakomimasu match of 1,000
turns on a 64×64 board and a live match of 1-second strategy steps. A team's program plays the live
match from 127.0.0.1 all along: it posts its actions as each step opens and watches
its match's socket. A prober fetches `GET /` four times a second.

After a quiet phase, the attacker (a process of its own), from one other address
(127.0.0.2), for --seconds:
  - holds 100 Kakomimasu v1 event streams that it never reads;
  - opens 1,000 websockets to the live match that it never reads;
  - keeps 10 websockets with ?since=0 on the published match, reading all they send;
  - fetches board pictures of distinct turns and languages of the published match
    from 16 threads;
  - reads the biggest API answer there is (`GET /api/matches/{id}` of the published
    match) from 8 threads;
  - and posts 64 KiB bodies without a token to the live match from 4 threads,
every connection opened again as soon as it ends. It prints, quiet beside attacked:
the team's POST latency p50/p99 (goal p99 < 100 ms), each turn's lateness from its
deadline to its `turn` message at the team's socket (p99 < 250 ms), GET / p99 (< 1 s),
the server's peak memory (< 500 MB; with --venue, the sum of its processes' proportional
set sizes, where a page they share, a library's, counts once in all; their resident
sizes' plain sum alongside; with --venue, each process's share at the peak), what the
attack added to the database (< 1 MB: its growth beyond a quiet phase's), and what the
gates refused. --parts attacks with some of the parts only (streams, sockets, since,
pictures, reads, posts), to see what each costs.

The floods of issue 45 are parts too, none of them in the default attack (each would
hide what the others cost); where one is asked for, the server lets anyone practise
(SPECTATOR_PRACTICE=open, the demo's default and not the venue's) under the shipped caps
(20 practice matches at once, 2 a caller):
  - boards: practice requests from 127.0.0.2 that each send a Kakomimasu board of their
    own, a public boards file's entry made from a public board (matches/boards/), of
    another size and points each time, between `GET /v1/boards` from 8 threads;
  - ladder: after some finished practice matches (--seed-matches short ones against
    level 1, of the three games practised here, started from 127.0.0.40-59 before the
    quiet phase), `GET /api/practice/ladder` of every rated game, page after page, and
    `GET /practice/`, from 8 threads at 127.0.0.3;
  - practice: chains of practice requests (a guest's, then again with the token the
    last answer gave, and again) for long matches against level 4, from 4 threads at
    127.0.0.2 and one at each of 127.0.0.10-39, all at once; an innocent guest asks
    for one every 2 seconds from an address never seen before. It prints the practice
    matches under way at the peak (the caps' count, read from the database) beside the
    caps, the most one caller had, and what the innocent guest was answered;
  - whatif: bursts of 40 what-ifs at once (`play_on` 100 turns of level 4 against
    level 4) on a practice match on a 64×64 board with 30 agents a team and 200 turns
    of 10 seconds, half anonymous, half with a token of the live match (another
    match's); meanwhile 127.0.0.4 times the live match's board picture twice a second;
  - qr: the replay's QR codes (`/matches/{id}/replay.svg?turn=N`) of the published
    match, turn after turn (more than the codes kept), about 70 a second.
--floods runs each of them in turn (or those it names: --floods boards,qr), each on a
server of its own started afresh (a flood's matches, caps and memory left to the
next would blur its figures), each with its quiet phase, and ends with a table of
their team's POST p99, turn lateness p99 and peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.client
import json
import math
import multiprocessing
import multiprocessing.queues
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import aiohttp
from live import free_port, percentile, process_stop

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "127.0.0.2"  # Linux answers every 127.0.0.0/8 address on the loopback
BIG_TURNS, BIG_SIDE, BIG_AGENTS = 1000, 64, 24
LADDER_READER = "127.0.0.3"  # the ladder flood's reader
PICTURE_PROBE = "127.0.0.4"  # times another match's picture while the what-ifs run
SETUP = "127.0.0.5"  # makes the what-if flood's practice match
CHAINS = [f"127.0.0.{n}" for n in range(10, 40)]  # the practice flood's 30 addresses
SEEDERS = [f"127.0.0.{n}" for n in range(40, 60)]  # play the ladder's short matches
INNOCENT = 100  # the innocent guest's first address, 127.0.0.100 (then 101, ...)
FLOODS = ("boards", "ladder", "practice", "whatif", "qr")
PUBLIC_BOARDS = ROOT / "matches" / "boards" / "kakomimasu-boards.json"
WHATIF_SIDE, WHATIF_AGENTS = 64, 30
QR_RATE = 70.0  # QR codes asked a second
SOURCES = {"ladder": LADDER_READER,  # the floods' addresses where not ATTACKER's alone
           "practice": f"{ATTACKER}, 127.0.0.10-39 and (innocent) 127.0.0.{INNOCENT}+"}


def big_record(path: Path) -> None:
    """A Kakomimasu match-record/1 of BIG_TURNS turns on a BIG_SIDE² board, random moves
    (made once and kept in the scratch folder's parent: its import takes a while)."""
    rng = random.Random(7)
    side = BIG_SIDE
    points = [[rng.randint(-8, 16) for _ in range(side)] for _ in range(side)]
    actions = []
    for turn in range(BIG_TURNS):
        turn_actions = []
        for _team in (0, 1):
            mine = []
            for agent in range(BIG_AGENTS):
                x, y = rng.randrange(side), rng.randrange(side)
                kind = "put" if turn == 0 else rng.choice(["move", "move", "remove", "stay"])
                mine.append({"agent": agent, "type": kind} |
                            ({} if kind == "stay" else {"x": x, "y": y}))
            turn_actions.append(mine)
        actions.append(turn_actions)
    path.write_text(json.dumps({
        "format": "match-record/1", "game": "kakomimasu", "title": "Bench: 1,000 turns on 64×64",
        "board": {"width": side, "height": side, "points": points}, "agents": BIG_AGENTS,
        "turns": BIG_TURNS, "teams": [{"name": "Big A"}, {"name": "Big B"}],
        "actions": actions}))


class System:
    """The server under attack: the demo's one process, or the venue layout."""

    def __init__(self, scratch: Path, venue: bool, practice: bool = False) -> None:
        self.scratch, self.venue, self.services_started = scratch, venue, False
        self.env = dict(os.environ, SPECTATOR_VAR_DIR=str(scratch), DJANGO_DEBUG="0",
                        LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
        for name in ("DATABASE_URL", "REDIS_URL", "SPECTATOR_TRUSTED_NETWORKS",
                     "SPECTATOR_PRACTICE", "SPECTATOR_PRACTICE_MAX_MATCHES",
                     "SPECTATOR_PRACTICE_MAX_PER_CALLER", "SPECTATOR_PRACTICE_GUEST_HOURS"):
            self.env.pop(name, None)  # (the shipped caps)
        if practice:  # the floods: anyone may practise, on the venue too
            self.env["SPECTATOR_PRACTICE"] = "open"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(scratch / "server.log", "w")  # noqa: SIM115
        if venue:  # a database and a Redis db of the bench's own, on the tests' services
            # (stopped again at the end unless they were running already: left running,
            # they would hold the ports of another checkout's `make test`)
            self.services_started = subprocess.run(
                ["redis-cli", "-p", "26379", "ping"], capture_output=True).returncode != 0
            subprocess.run(["bash", "tests/databases.sh", "start"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            self.env |= {"DATABASE_URL": VENUE_DATABASE, "REDIS_URL": VENUE_REDIS}
            for command in (["dropdb", "--if-exists"], ["createdb"]):
                subprocess.run([*_pg(command[0]), *command[1:], "-h", "127.0.0.1", "-p",
                                "25432", "-U", "postgres", "spectator_attack"], check=True)
            subprocess.run(["redis-cli", "-p", "26379", "-n", "15", "flushdb"], check=True,
                           stdout=subprocess.DEVNULL)
            self.process = subprocess.Popen(
                ["bash", "deploy/serve.sh", "2"], cwd=ROOT, stdout=self.log,
                stderr=subprocess.STDOUT, env=self.env | {"PORT": str(self.port)},
                start_new_session=True)
        else:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "demo", "--port", str(self.port)], cwd=ROOT,
                stdout=self.log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.base + "/", timeout=2).read()
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise SystemExit(f"the server did not start: see {scratch / 'server.log'}")

    def manage(self, *args: str) -> str:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                              check=True, capture_output=True, text=True).stdout

    def pids(self) -> list[int]:
        """The server's processes: the demo, or every daphne, clock and nginx of serve.sh."""
        try:
            group = os.getpgid(self.process.pid)
        except ProcessLookupError:  # the server has stopped: nothing left to measure
            return []
        found = subprocess.run(["pgrep", "-g", str(group)],
                               capture_output=True, text=True).stdout.split()
        return [int(pid) for pid in found]

    def memory_mib(self) -> tuple[float, float, float, dict[str, float]]:
        """The memory of the server's processes (PostgreSQL's and Redis's own are not
        counted): their proportional set size (each page shared by several processes,
        a library's, counted once in all, in shares), the largest one's resident size,
        the sum of their resident sizes (shared pages counted in each), and each
        process's proportional set size by what it is."""
        pss = rss_total = largest = 0
        each: dict[str, float] = {}
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if name in ("postgres", "redis-server", "bash", "pgrep", "sleep", "nginx"):
                continue  # the services' own, and the scripts'; nginx's few MB
            rss, share = _kib(status, "VmRSS:"), _kib(rollup, "Pss:")
            if rss is None or share is None:  # a process ending (a zombie has no memory)
                continue
            pss, rss_total, largest = pss + share, rss_total + rss, max(largest, rss)
            each[f"{pid} {_role(command)}"] = share / 1024
        return pss / 1024, largest / 1024, rss_total / 1024, each

    def database_bytes(self) -> int | str:
        """The database's size; on the venue, what psql said instead when it could not
        connect (asked again a few times: PostgreSQL busy, or its connections all taken)."""
        if not self.venue:
            return sum(path.stat().st_size for path in self.scratch.glob("db.sqlite3*"))
        said = ""
        for _ in range(5):
            done = subprocess.run([*_pg("psql"), "-h", "127.0.0.1", "-p", "25432", "-U",
                                   "postgres", "-tAc",
                                   "SELECT pg_database_size('spectator_attack')"],
                                  capture_output=True, text=True)
            if done.returncode == 0:
                return int(done.stdout.strip())
            said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "?"
            time.sleep(1)
        return f"psql failed: {said}"

    def stop(self) -> None:
        with contextlib_suppress():
            os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.services_started:
            subprocess.run(["bash", "tests/databases.sh", "stop"], cwd=ROOT,
                           stdout=subprocess.DEVNULL)


VENUE_DATABASE = "postgres://postgres@127.0.0.1:25432/spectator_attack"
# Redis db 15: `make test`'s workers take db 1 + their index (tests/workers.py), serve.sh
# db 1; the bench flushes its own at each start, so it must be none of theirs.
VENUE_REDIS = "redis://127.0.0.1:26379/15"


def _pg(program: str) -> list[str]:
    """A PostgreSQL client program of Debian's newest server, as root its owner."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{program}"))
    return [str(found[-1]) if found else program]


class contextlib_suppress:  # noqa: N801 (a tiny suppress(OSError), no import for one use)
    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        return kind is not None and issubclass(kind, OSError)


# --- the team's program and the prober (127.0.0.1) ---------------------------------


class Team:
    """Plays the live match: posts a legal-looking action list as each step opens, and
    times the answer; watches the match's socket and times each turn's message from its
    deadline."""

    def __init__(self, base: str, match: dict) -> None:
        self.base, self.match = base, match
        self.token = match["teams"][0]["token"]
        self.posts: list[tuple[float, float]] = []  # (when, ms)
        self.lateness: list[tuple[float, float]] = []
        self.statuses: dict[int, int] = {}

    async def play(self, until: float) -> None:
        async with aiohttp.ClientSession() as session:
            headers = {"Authorization": f"Bearer {self.token}"}
            async with session.get(f"{self.base}/api/matches/{self.match['id']}",
                                   headers=headers) as answer:
                state = await answer.json()
            start, strategy = state["start_at"] / 1000, state["strategy_ms"] / 1000
            period = strategy + state["transition_ms"] / 1000
            watching = asyncio.create_task(self.watch(session, headers, start, strategy,
                                                      period, until))
            turn = 1
            while time.time() < until and turn <= state["turns"]:
                opens = start + (turn - 1) * period
                await asyncio.sleep(max(0.0, opens + 0.05 - time.time()))
                body = {"turn": turn, "actions": [
                    {"agent": agent, "type": "put", "x": (turn + agent) % 9, "y": agent}
                    for agent in range(state["agents"])]}
                sent = time.perf_counter()
                try:
                    async with session.post(
                            f"{self.base}/api/matches/{self.match['id']}/actions", json=body,
                            headers=headers, timeout=aiohttp.ClientTimeout(total=30)) as answer:
                        await answer.read()
                        self.statuses[answer.status] = self.statuses.get(answer.status, 0) + 1
                except (aiohttp.ClientError, TimeoutError):
                    self.statuses[0] = self.statuses.get(0, 0) + 1
                self.posts.append((time.time(), (time.perf_counter() - sent) * 1000))
                turn += 1
            watching.cancel()

    async def watch(self, session, headers, start, strategy, period, until) -> None:
        url = f"{self.base.replace('http', 'ws')}/ws/matches/{self.match['id']}/"
        while time.time() < until:
            try:
                async with session.ws_connect(url, headers=headers, max_msg_size=0) as socket_:
                    async for message in socket_:
                        arrived = time.time()
                        data = json.loads(message.data)
                        if data["type"] == "turn":
                            deadline = start + (data["turn"] - 1) * period + strategy
                            self.lateness.append((arrived, (arrived - deadline) * 1000))
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)


async def probe_index(base: str, until: float, times: list) -> None:
    async with aiohttp.ClientSession() as session:
        while time.time() < until:
            began = time.perf_counter()
            try:
                async with session.get(f"{base}/", timeout=aiohttp.ClientTimeout(total=60)) as r:
                    await r.read()
            except (aiohttp.ClientError, TimeoutError):
                pass
            times.append((time.time(), (time.perf_counter() - began) * 1000))
            await asyncio.sleep(0.25)


def _kib(text: str, field: str) -> int | None:
    """A field in kB of a /proc status or smaps_rollup file."""
    line = next((line for line in text.splitlines() if line.startswith(field)), None)
    return None if line is None else int(line.split()[1])


def _role(command: list[bytes]) -> str:
    """What a server's process is, from its command line, in a few words."""
    words = [word.decode(errors="replace") for word in command if word]
    if any("multiprocessing" in word for word in words):
        return "a spawned helper: " + " ".join(words[-2:])
    for word in words:
        if word in ("runclock", "rundrawing", "demo") or word.endswith("daphne"):
            return " ".join(words[words.index(word):])[:60]
    return " ".join(words)[:60]


def sample_memory(system: System, until: float, samples: list) -> None:
    while time.time() < until:
        samples.append((time.time(), system.memory_mib()))
        time.sleep(0.2)


async def probe_picture(base: str, path: str, until: float, times: list) -> None:
    """Another match's board picture twice a second, from an address of its own."""
    connector = aiohttp.TCPConnector(local_addr=(PICTURE_PROBE, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        while time.time() < until:
            began, status = time.perf_counter(), 0
            try:
                async with session.get(base + path,
                                       timeout=aiohttp.ClientTimeout(total=60)) as answer:
                    await answer.read()
                    status = answer.status
            except (aiohttp.ClientError, TimeoutError):
                pass
            times.append((time.time(), (time.perf_counter() - began) * 1000, status))
            await asyncio.sleep(0.5)


def call(port: int, address: str, method: str, path: str, body=None, token: str | None = None,
         timeout: float = 60) -> tuple[int, bytes]:
    """One request from `address` on a connection of its own: its status (0: no answer)
    and its body."""
    headers = {"Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                            source_address=(address, 0))
    try:
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read()
    except (OSError, http.client.HTTPException):
        return 0, b""
    finally:
        connection.close()


def answered(data: bytes) -> dict:
    """An answer's JSON object ({} for anything else)."""
    try:
        found = json.loads(data)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


@functools.cache
def public_boards() -> list[dict]:
    return list(json.loads(PUBLIC_BOARDS.read_text()).values())


def board_entry(rng: random.Random, name: str, side: int | None = None) -> dict:
    """A public boards file's entry, `{name: board}`, made from a public board: tiled to
    another size (up to 64×64, or side×side), each point moved a little."""
    base = rng.choice(public_boards())
    width = side or rng.randint(base["width"], 64)
    height = side or rng.randint(base["height"], 64)
    points = [max(-16, min(16, base["points"][x % base["width"] + (y % base["height"]) *
                                               base["width"]] + rng.randint(-2, 2)))
              for y in range(height) for x in range(width)]
    return {name: {"name": name, "width": width, "height": height, "points": points,
                   "nAgent": base.get("nAgent") or 6, "totalTurn": 1}}


# The caps' own count of the practice matches under way, and the most one caller has,
# as the server reads them (matches/services/practice.py, `_caps`), 4 times a second.
PRACTICE_COUNT = """
import json, time
from collections import Counter
from django.conf import settings
from matches.models import Match
print(json.dumps({"caps": [settings.PRACTICE_MAX_MATCHES,
                           settings.PRACTICE_MAX_PER_CALLER]}), flush=True)
while True:
    try:
        callers = Counter(Match.objects.unfinished().exclude(practice_by="")
                          .filter(first_game=None).values_list("practice_by", flat=True))
    except Exception as error:  # a locked SQLite file, say: the next reading
        print(json.dumps({"error": str(error)}), flush=True)
    else:
        print(json.dumps({"at": time.time(), "running": sum(callers.values()),
                          "most": max(callers.values(), default=0)}), flush=True)
    time.sleep(0.25)
"""


class PracticeCount:
    """Reads PRACTICE_COUNT's lines from a `manage.py shell` of the server's settings."""

    def __init__(self, system: System) -> None:
        self.caps: list[int] = []
        self.samples: list[tuple[float, int, int]] = []
        self.errors: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", PRACTICE_COUNT], cwd=ROOT,
            env=system.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        for line in self.process.stdout:
            if not line.startswith("{"):  # the shell's own words ("objects imported")
                continue
            sample = answered(line.encode())
            if "caps" in sample:
                self.caps = sample["caps"]
            elif "at" in sample:
                self.samples.append((sample["at"], sample["running"], sample["most"]))
            else:
                self.errors.append(sample.get("error") or line.strip()[:200])

    def stop(self) -> None:
        process_stop(self.process)


# --- the attacker (127.0.0.2) -----------------------------------------------------


class Attacker:
    """Every part of the attack in threads of one process (a process of its own, as a
    real attacker's: its threads never hold the measuring team's interpreter), each
    connection opened again as soon as it ends, until `stop`."""

    def __init__(self, port: int, big: int, live: int, stop: threading.Event,
                 extra: dict | None = None) -> None:
        self.port, self.big, self.live, self.stop = port, big, live, stop
        self.extra = extra or {}  # what the floods need: a token of the live match, ...
        self.answers: dict[str, dict[int, int]] = {}
        self.errors: dict[str, dict[str, int]] = {}  # the floods' refusals by their code
        self.times: dict[str, list[float]] = {}  # the floods' answers' times (ms), by
        # part and status
        self.received = 0
        self.lock = threading.Lock()
        self.serial = 0

    def count(self, part: str, status: int, size: int = 0) -> None:
        with self.lock:
            counts = self.answers.setdefault(part, {})
            counts[status] = counts.get(status, 0) + 1
            self.received += size

    def connect(self) -> socket.socket:
        raw = socket.socket()
        raw.bind((ATTACKER, 0))
        raw.settimeout(30)
        raw.connect(("127.0.0.1", self.port))
        return raw

    def request(self, method: str, path: str, headers: str = "", body: bytes = b"") -> bytes:
        return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{headers}"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def unread(self, part: str, request: bytes, held: int) -> None:
        """`held` connections that send `request` and never read; one is opened again
        when the server closes it."""
        sockets: list[socket.socket] = []
        while not self.stop.is_set():
            while len(sockets) < held and not self.stop.is_set():
                try:
                    raw = self.connect()
                    raw.sendall(request)
                    sockets.append(raw)
                    self.count(part, 1)
                except OSError:
                    self.count(part, 0)
                    time.sleep(0.05)
            time.sleep(0.5)
            for raw in list(sockets):  # one the server closed reads as b"" at once
                try:
                    closed = raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if closed:
                    sockets.remove(raw)
                    raw.close()
        for raw in sockets:
            raw.close()

    def fetch(self, part: str, paths) -> None:
        """GET each of `paths` in turn, reading the whole answer."""
        while not self.stop.is_set():
            path = next(paths)
            try:
                with self.connect() as raw:
                    raw.sendall(self.request("GET", path, "Connection: close\r\n"))
                    parts = []
                    while chunk := raw.recv(65536):
                        parts.append(chunk)
                    answer = b"".join(parts)
                status = int(answer[9:12]) if answer[:5] == b"HTTP/" else 0
                self.count(part, status, len(answer))
            except OSError:
                self.count(part, 0)
            if status == 429:
                time.sleep(0.02)

    def post(self) -> None:
        body = b'{"actions": [], "pad": "' + b"x" * (64 * 1024 - 40) + b'"}'
        while not self.stop.is_set():
            try:
                with self.connect() as raw:
                    raw.sendall(self.request("POST", f"/api/matches/{self.live}/actions",
                                             "Content-Type: application/json\r\n"
                                             "Connection: close\r\n", body))
                    answer = raw.recv(65536)
                self.count("posts", int(answer[9:12]) if answer[:5] == b"HTTP/" else 0)
            except (OSError, ValueError):
                self.count("posts", 0)

    # --- the floods of issue 45 ---

    def next_serial(self) -> int:
        with self.lock:
            self.serial += 1
            return self.serial

    def call(self, part: str, method: str, path: str, address: str = ATTACKER, body=None,
             token: str | None = None, timeout: float = 60) -> tuple[int, dict]:
        """One request, counted under `part` with its time and its refusal's code."""
        began = time.perf_counter()
        status, data = call(self.port, address, method, path, body, token, timeout)
        elapsed = (time.perf_counter() - began) * 1000
        found = answered(data) if status >= 400 or method == "POST" else {}
        with self.lock:
            self.times.setdefault(f"{part} {status}", []).append(elapsed)
            if status >= 400 or status == 0:
                code = f"{status} {found.get('error', '')}".strip()
                codes = self.errors.setdefault(part, {})
                codes[code] = codes.get(code, 0) + 1
        self.count(part, status, len(data))
        return status, found

    def sent_boards(self) -> None:
        """Practice requests, each with a board of its own (short matches against level
        1, so that the caps let the next ones in)."""
        rng = random.Random(os.getpid() * 1000 + self.next_serial())
        while not self.stop.is_set():
            board = board_entry(rng, f"Flood {self.next_serial()}")
            status, _ = self.call("boards", "POST", "/api/practice", body={
                "game": "kakomimasu", "opponent": "level-1", "board": board, "turns": 1,
                "strategy_seconds": 0.5, "transition_seconds": 0, "name": "Flooder"})
            if status in (0, 429):
                time.sleep(0.05)

    def read_paths(self, part: str, paths, address: str = ATTACKER) -> None:
        """GET each of `paths` in turn, from `address`."""
        while not self.stop.is_set():
            status, _ = self.call(part, "GET", next(paths), address)
            if status in (0, 429):
                time.sleep(0.02)

    def chain(self, address: str) -> None:
        """A practice chain: a guest's request, then again with the token it gave, and
        again; each match long, against level 4."""
        token = None
        while not self.stop.is_set():
            status, found = self.call("practice", "POST", "/api/practice", address, body={
                "game": "kakomimasu", "opponent": "level-4", "turns": 200,
                "strategy_seconds": 5, "name": f"Chain {address.rsplit('.', 1)[1]}"},
                token=token)
            if status == 201:
                token = found.get("token") or token
            else:
                time.sleep(0.1)

    def innocent(self) -> None:
        """An innocent guest: one practice request every 2 seconds, each from an address
        never seen before."""
        number = INNOCENT
        while not self.stop.wait(2.0) and number < 255:
            self.call("innocent", "POST", "/api/practice", f"127.0.0.{number}", body={
                "game": "kakomimasu", "opponent": "level-1", "turns": 3,
                "strategy_seconds": 0.5, "name": "Innocent"})
            number += 1

    def whatif_bursts(self) -> None:
        """40 what-ifs at once, half anonymous, half with a token of another match; the
        next 40 once all are answered."""
        path = f"/api/matches/{self.extra['whatif']}/whatif"
        body = {"from_turn": 0, "play_on": {"turns": 100,
                                            "teams": {"0": "level-4", "1": "level-4"}}}
        token = self.extra["other_token"]
        while not self.stop.is_set():
            burst = [threading.Thread(target=self.call, daemon=True, args=(
                "whatif, anonymous" if each % 2 else "whatif, other token", "POST", path),
                kwargs={"body": body, "token": None if each % 2 else token})
                for each in range(40)]
            for thread in burst:
                thread.start()
            for thread in burst:
                thread.join()
            self.count("bursts", 1)

    def qr_codes(self, threads: int) -> None:
        """One of `threads` threads asking QR_RATE codes a second in all, each of another
        turn of the published match (more turns than the codes the server keeps)."""
        period = threads / QR_RATE
        due = time.monotonic() + random.random() * period
        while not self.stop.is_set():
            late = time.monotonic() - due
            if late < 0:
                time.sleep(-late)
            elif late > 1:  # far behind (the server slow): no burst to catch up
                due = time.monotonic()
            due += period
            turn = BIG_TURNS - self.next_serial() % BIG_TURNS
            self.call("qr", "GET", f"/matches/{self.big}/replay.svg?turn={turn}")

    async def catch_up(self, until: float) -> None:
        """10 sockets with ?since=0 on the published match, read to the end."""
        connector = aiohttp.TCPConnector(local_addr=(ATTACKER, 0), limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            async def one() -> None:
                url = f"ws://127.0.0.1:{self.port}/ws/matches/{self.big}/?since=0"
                while time.time() < until:
                    try:
                        async with session.ws_connect(
                                url, headers={"Origin": f"http://127.0.0.1:{self.port}"},
                                max_msg_size=0, timeout=aiohttp.ClientWSTimeout(ws_close=2)
                        ) as socket_:
                            async for message in socket_:
                                self.count("since=0", 1, len(message.data or b""))
                                if message.type == aiohttp.WSMsgType.TEXT and \
                                        '"type":"viewers"' in message.data.replace(" ", ""):
                                    break  # caught up: again from 0
                    except (aiohttp.ClientError, TimeoutError):
                        self.count("since=0", 0)
                        await asyncio.sleep(0.05)
            await asyncio.gather(*(one() for _ in range(10)))

    PARTS = ("streams", "sockets", "since", "pictures", "reads", "posts")

    def run(self, seconds: float, parts: tuple[str, ...] = PARTS) -> None:
        until = time.time() + seconds
        origin = f"Origin: http://127.0.0.1:{self.port}\r\n"
        upgrade = ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + origin)
        pictures = iter(f"/matches/{self.big}/board.png?turn={turn}&lang={lang}"
                        for turn in range(BIG_TURNS, 0, -1) for lang in ("ja", "vi", "en"))
        reads = iter(lambda: f"/api/matches/{self.big}", None)
        threads = {
            "streams": [threading.Thread(target=self.unread, args=(
                "streams", self.request("GET", "/v1/matches/stream"), 100))],
            "sockets": [threading.Thread(target=self.unread, args=(
                "sockets", self.request("GET", f"/ws/matches/{self.live}/", upgrade), 1000))],
            "pictures": [threading.Thread(target=self.fetch, args=("pictures", pictures))
                         for _ in range(16)],
            "reads": [threading.Thread(target=self.fetch, args=("api reads", reads))
                      for _ in range(8)],
            "posts": [threading.Thread(target=self.post) for _ in range(4)],
            "boards": [threading.Thread(target=self.sent_boards) for _ in range(2)] +
                      [threading.Thread(target=self.read_paths, args=(
                          "v1/boards", iter(lambda: "/v1/boards", None)))
                       for _ in range(8)],
            "ladder": [threading.Thread(target=self.read_paths, args=(
                "ladder", ladder_paths(), LADDER_READER)) for _ in range(8)],
            "practice": [threading.Thread(target=self.chain, args=(address,))
                         for address in [ATTACKER] * 4 + CHAINS] +
                        [threading.Thread(target=self.innocent)],
            "whatif": [threading.Thread(target=self.whatif_bursts)],
            "qr": [threading.Thread(target=self.qr_codes, args=(32,)) for _ in range(32)],
        }
        for part, started in threads.items():
            for thread in started if part in parts else ():
                thread.daemon = True
                thread.start()
        if "since" in parts:
            asyncio.run(self.catch_up(until))
        self.stop.wait(max(0.0, until - time.time()))
        self.stop.set()


def ladder_paths():
    """The ladders of every rated game, page after page, and the practice page (a
    thread's own round of them, from a place of its own)."""
    pages = []
    for page in range(1, 4):
        for game in ("kakomimasu", "procon2020", "blokus-duo", "chaser"):
            pages.append(f"/api/practice/ladder?game={game}&page={page}&limit=100")
        pages += ["/practice/", "/api/practice/ladder?game=kakomimasu"]
    number = random.randrange(len(pages))
    while True:
        number += 1
        yield pages[number % len(pages)]


def attack_apart(port: int, big: int, live: int, seconds: float, parts: tuple[str, ...],
                 extra: dict, results: multiprocessing.queues.Queue) -> None:
    """The attack, in a process of its own: what it was answered, and how many bytes."""
    attacker = Attacker(port, big, live, threading.Event(), extra)
    attacker.run(seconds, parts)
    with attacker.lock:
        results.put((attacker.answers, attacker.received, attacker.errors,
                     {part: list(times) for part, times in attacker.times.items()}))


# --- the run ----------------------------------------------------------------------


def window(samples: list[tuple[float, float]], begin: float, end: float) -> list[float]:
    return [value for at, value in samples if begin <= at < end]


def figures(name: str, values: list[float], goal: str = "") -> str:
    if not values:
        return f"{name:<34} (none)"
    return (f"{name:<34} p50 {percentile(values, 0.5):8.1f}  p99 {percentile(values, 0.99):8.1f}"
            f"  max {max(values):8.1f}  n={len(values):<5} {goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venue", action="store_true", help="attack `make serve`'s layout")
    parser.add_argument("--seconds", type=float, default=20.0, help="the attack's length")
    parser.add_argument("--quiet", type=float, default=20.0, help="the quiet phase's length")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (logs)")
    parser.add_argument("--show", action="store_true",
                        help="print every POST's latency and turn's lateness by its time")
    parser.add_argument("--parts", default=",".join(Attacker.PARTS),
                        help="the attack's parts, separated by commas (default: all of them "
                             f"but the floods: {', '.join(FLOODS)})")
    parser.add_argument("--floods", nargs="?", const=",".join(FLOODS), metavar="FLOODS",
                        help="each flood of issue 45 in turn, on a server of its own "
                             "(default: all of them), then a table of their figures")
    parser.add_argument("--seed-matches", type=int, default=60, metavar="N",
                        help="the ladder flood: short practice matches played first")
    options = parser.parse_args()
    chosen = (options.floods or options.parts).split(",")
    unknown = [part for part in chosen if part not in (*Attacker.PARTS, *FLOODS)]
    if unknown:
        parser.error(f"no such part: {', '.join(unknown)} (the parts: "
                     f"{', '.join((*Attacker.PARTS, *FLOODS))})")
    record = Path(tempfile.gettempdir()) / "spectator-attack-big-record.json"
    if not record.exists():
        big_record(record)
    if not options.floods:
        trial(options, tuple(chosen), record)
        return
    summaries = {flood: trial(options, (flood,), record) for flood in chosen}
    print(f"\n== the floods, {'venue layout' if options.venue else 'demo'}: quiet → attacked")
    print(f"{'flood':<10} {'team POST p99 (ms)':<24}{'turn lateness p99 (ms)':<24}"
          f"{'peak memory (MiB)':<24}")
    for flood, summary in summaries.items():
        cells = []
        for key, goal in (("post", 100), ("lateness", 250), ("memory", 500)):
            quiet, attacked = summary["quiet"][key], summary["attacked"][key]
            mark = "?" if math.isnan(attacked) else "ok" if attacked < goal else "OVER"
            cells.append(f"{quiet:7.1f} → {attacked:7.1f} {mark:<4}")
        print(f"{flood:<10} " + "".join(f"{cell:<24}" for cell in cells))
    print("goals: POST p99 < 100 ms, turn lateness p99 < 250 ms, peak memory < 500 MiB")


def trial(options: argparse.Namespace, parts: tuple[str, ...], record: Path) -> dict:
    """Start a server, play the live match through a quiet phase and an attack of
    `parts`, print what was seen, stop the server; the figures of the two phases."""
    scratch = Path(tempfile.mkdtemp(prefix="spectator-attack-"))
    floods = [part for part in parts if part in FLOODS]
    print(f"starting {'the venue layout' if options.venue else 'the demo'} in {scratch}"
          f" (attack: {', '.join(parts)})", flush=True)
    system = System(scratch, options.venue, practice=bool(floods))
    counter: PracticeCount | None = None
    notes: dict = {}
    pictures: list = []
    try:
        big = _imported(system, record)
        extra = prepare(system, parts, options, notes)
        total = options.quiet + options.seconds + 12
        live = json.loads(system.manage(
            "creatematch", "--board", "random:5", "--teams", "Bench", "Other", "--agents", "6",
            "--turns", str(int(total / 1.25) + 4), "--strategy-seconds", "1",
            "--transition-seconds", "0.25", "--start-in", "3", "--public", "--json"))
        extra["other_token"] = live["teams"][1]["token"]  # a token of another match
        if "practice" in parts:
            counter = PracticeCount(system)
        time.sleep(3)
        team = Team(system.base, live)
        began = time.time() + 4
        quiet_end = began + options.quiet
        attack_end = quiet_end + options.seconds
        index_times: list = []
        memory: list = []
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        threading.Thread(target=sample_memory, args=(system, attack_end + 2, memory),
                         daemon=True).start()
        database: dict = {}
        attacked: dict = {}

        def attack() -> None:
            time.sleep(max(0.0, quiet_end - time.time()))
            apart = context.Process(target=attack_apart, args=(
                system.port, big, live["id"], options.seconds, parts, extra, results),
                daemon=True)
            apart.start()
            answered = results.get(timeout=options.seconds + 120)  # (it did not die)
            attacked.update(zip(("answers", "received", "errors", "times"), answered,
                                strict=True))
            apart.join()

        def sizes() -> None:
            time.sleep(max(0.0, began - time.time()))
            database["began"] = system.database_bytes()
            time.sleep(max(0.0, quiet_end - time.time()))
            database["quiet"] = system.database_bytes()
            time.sleep(max(0.0, attack_end - time.time()))
            database["attacked"] = system.database_bytes()

        helpers = [threading.Thread(target=attack), threading.Thread(target=sizes)]
        for helper in helpers:
            helper.start()

        async def measure() -> None:
            measures = [team.play(attack_end + 1),
                        probe_index(system.base, attack_end + 1, index_times)]
            if "whatif" in parts:  # another match's picture, while the what-ifs run
                measures.append(probe_picture(system.base, f"/matches/{live['id']}/board.png",
                                              attack_end + 1, pictures))
            await asyncio.gather(*measures)
        asyncio.run(measure())
        for helper in helpers:
            helper.join()
        if "ladder" in parts:
            notes["ladder after"] = ladder_rows(system.port)
    finally:
        if counter is not None:
            counter.stop()
        system.stop()
    phases = {"quiet": (began, quiet_end), "attacked": (quiet_end, attack_end)}
    summary: dict = {}
    print(f"\n{'demo (one process, SQLite)' if not options.venue else 'venue layout'}: "
          f"{options.quiet:.0f} s quiet, then {options.seconds:.0f} s of attack from "
          + "; ".join(f"{part} {SOURCES.get(part, ATTACKER)}" for part in parts))
    for phase, (begin, end) in phases.items():
        print(f"-- {phase}")
        posts = window(team.posts, begin, end)
        lateness = window(team.lateness, begin, end)
        print(figures("team POST latency (ms)", posts, "goal p99 < 100"))
        print(figures("turn lateness, deadline→turn (ms)", lateness, "goal p99 < 250"))
        print(figures("GET / (ms)", window(index_times, begin, end), "goal p99 < 1000"))
        if "whatif" in parts:
            seen = [(at, ms) for at, ms, _ in pictures]
            statuses = [status for at, _, status in pictures if begin <= at < end]
            print(figures("another match's board.png (ms)", window(seen, begin, end),
                          str(dict(sorted(Counter(statuses).items())))))
        seen = [sample for at, sample in memory if begin <= at < end]
        peak = max((total for total, _, _, _ in seen), default=float("nan"))
        largest = max((one for _, one, _, _ in seen), default=float("nan"))
        resident = max((every for _, _, every, _ in seen), default=float("nan"))
        print(f"{'server memory, peak (MiB)':<34} {peak:8.1f}  goal < 500  (proportional: "
              f"shared pages once; resident, each process's own count: {resident:.1f}; "
              f"its largest process {largest:.1f})")
        if seen and options.venue:
            at_peak = max(seen, key=lambda sample: sample[0])[3]
            print("  at the peak: " + "; ".join(
                f"{who} {mib:.1f}" for who, mib in sorted(at_peak.items())))
        summary[phase] = {"post": percentile(posts, 0.99), "memory": peak,
                          "lateness": percentile(lateness, 0.99)}
    if options.show:
        for name, samples in (("POST", team.posts), ("lateness", team.lateness)):
            print(f"{name} by second of the attack:", " ".join(
                f"{at - quiet_end:+.1f}:{value:.0f}" for at, value in samples
                if quiet_end - 2 <= at < attack_end))
    sizes_read = [database.get(moment) for moment in ("began", "quiet", "attacked")]
    if all(isinstance(size, int) for size in sizes_read):
        grew_quiet = database["quiet"] - database["began"]
        grew_attacked = database["attacked"] - database["quiet"]
        print(f"{'database growth (bytes)':<34} quiet {grew_quiet:,}  attacked "
              f"{grew_attacked:,}  added by the attack {max(0, grew_attacked - grew_quiet):,}  "
              "goal < 1,000,000")
    else:
        print(f"{'database growth (bytes)':<34} unknown: {sizes_read}")
    print(f"team's answers: {team.statuses}")
    if not attacked:
        print("attacker: no report (its process died?)")
    else:
        print(f"attacker: received {attacked['received'] / 1e6:.1f} MB;")
        for part, counts in sorted(attacked["answers"].items()):
            print(f"  {part:<10} {dict(sorted(counts.items()))}  (0: refused or failed to "
                  "connect, 1: opened)" if part in ("streams", "sockets") else
                  f"  {part:<10} {dict(sorted(counts.items()))}")
        for part, codes in sorted(attacked["errors"].items()):
            print(f"  {part + ', refusals':<24} {dict(sorted(codes.items()))}")
        for part, times in sorted(attacked["times"].items()):
            print(figures(f"  {part} (ms)", times))
        if "qr" in attacked["answers"]:
            asked = sum(attacked["answers"]["qr"].values())
            print(f"  qr: {asked / options.seconds:.1f} asked a second (aimed at {QR_RATE:.0f})")
    if counter is not None:
        report_practice(counter, notes, quiet_end, attack_end)
    for name, value in notes.items():
        print(f"{name}: {value}")
    if options.keep:
        print(f"kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return summary


def report_practice(counter: PracticeCount, notes: dict, begin: float, end: float) -> None:
    """The practice flood: the matches under way at the peak beside the caps."""
    during = [sample for sample in counter.samples if begin <= sample[0] < end + 5]
    peak = max((running for _, running, _ in during), default=None)
    most = max((one for _, _, one in during), default=None)
    caps = counter.caps or ["?", "?"]
    print(f"practice matches under way, peak: {peak} (cap {caps[0]}); most for one "
          f"caller: {most} (cap {caps[1]}); {len(during)} readings"
          + (f", {len(counter.errors)} failed (the last: {counter.errors[-1]})"
             if counter.errors else ""))
    if peak is not None and caps[0] != "?" and (peak > caps[0] or most > caps[1]):
        print("  PAST THE CAPS: requests at once ran past them")


def prepare(system: System, parts: tuple[str, ...], options: argparse.Namespace,
            notes: dict) -> dict:
    """What the floods need before the quiet phase: the ladder's finished matches, the
    what-if flood's large practice match."""
    extra: dict = {}
    if "ladder" in parts:
        began = time.time()
        notes["ladder seeding"] = seed_ladder(system.port, options.seed_matches)
        time.sleep(3)  # the last games rated
        notes["ladder seeding"]["seconds"] = round(time.time() - began)
        notes["ladder before"] = ladder_rows(system.port)
        print(f"seeded: {notes['ladder seeding']}; ladder rows: {notes['ladder before']}",
              flush=True)
    if "whatif" in parts:
        board = board_entry(random.Random(45), "What-if 64", WHATIF_SIDE)
        status, data = call(system.port, SETUP, "POST", "/api/practice", body={
            "game": "kakomimasu", "opponent": "none", "board": board,
            "agents": WHATIF_AGENTS, "turns": 200, "strategy_seconds": 10, "name": "What-if"})
        if status != 201:
            raise SystemExit(f"the what-if flood's practice match was refused: {status} "
                             f"{data[:300]!r}")
        extra["whatif"] = answered(data)["match"]
        print(f"the what-if flood's match: {extra['whatif']} ({WHATIF_SIDE}×{WHATIF_SIDE}, "
              f"{WHATIF_AGENTS} agents a team)", flush=True)
    return extra


# The ladder's seeds: each game's body (the guest never acts: it loses, and is rated)
# and how long its match lasts (3 s to its start, its turns or the guest's clock).
SEEDS = {"kakomimasu": ({"turns": 3, "strategy_seconds": 0.5, "transition_seconds": 0}, 6),
         "procon2020": ({"turns": 3, "strategy_seconds": 0.5, "transition_seconds": 0}, 15),
         "blokus-duo": ({"clock": 10, "first": True}, 16)}
SEED_ORDER = ("kakomimasu", "procon2020", "kakomimasu", "blokus-duo", "kakomimasu")


def seed_ladder(port: int, count: int) -> dict:
    """`count` short practice matches against level 1, from SEEDERS (one at a time
    each, under the caps), each guest of a name of its own; how many of each game."""
    lock = threading.Lock()
    asked = [0]
    played: dict = {}
    refused: dict = {}

    def seeder(address: str) -> None:
        while True:
            with lock:
                if asked[0] >= count:
                    return
                number = asked[0]
                asked[0] += 1
            game = SEED_ORDER[number % len(SEED_ORDER)]
            fields, lasts = SEEDS[game]
            body = {"game": game, "opponent": "level-1", "name": f"Seed {number}", **fields}
            for _ in range(60):
                status, data = call(port, address, "POST", "/api/practice", body=body)
                if status == 201:
                    with lock:
                        played[game] = played.get(game, 0) + 1
                    time.sleep(lasts)
                    break
                code = f"{status} {answered(data).get('error', '')}"
                with lock:
                    refused[code] = refused.get(code, 0) + 1
                if status != 429:
                    break
                time.sleep(5 if answered(data).get("error") == "rate_limited" else 1)

    threads = [threading.Thread(target=seeder, args=(address,)) for address in SEEDERS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"played": played, "refused on the way": refused}


def ladder_rows(port: int) -> dict:
    """Each rated game's ladder rows on its first page of 100 (its levels among them)."""
    rows = {}
    for game in ("kakomimasu", "procon2020", "blokus-duo", "chaser"):
        status, data = call(port, SETUP, "GET",
                            f"/api/practice/ladder?game={game}&limit=100")
        try:
            rows[game] = len(json.loads(data)) if status == 200 else f"status {status}"
        except ValueError:
            rows[game] = "not JSON"
    return rows


def _imported(system: System, record: Path) -> int:
    """Import the big record, published; its match id."""
    out = system.manage("importrecord", str(record), "--publish")
    return int(next(word for word in out.split() if word.isdigit()))


if __name__ == "__main__":
    main()
