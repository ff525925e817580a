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
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from pathlib import Path

import aiohttp
from live import free_port, percentile

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "127.0.0.2"  # Linux answers every 127.0.0.0/8 address on the loopback
BIG_TURNS, BIG_SIDE, BIG_AGENTS = 1000, 64, 24


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

    def __init__(self, scratch: Path, venue: bool) -> None:
        self.scratch, self.venue, self.services_started = scratch, venue, False
        self.env = dict(os.environ, SPECTATOR_VAR_DIR=str(scratch), DJANGO_DEBUG="0",
                        LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
        for name in ("DATABASE_URL", "REDIS_URL", "SPECTATOR_TRUSTED_NETWORKS"):
            self.env.pop(name, None)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(scratch / "server.log", "w")  # noqa: SIM115
        if venue:  # a database and a Redis db of the bench's own, on the tests' services
            # (stopped again at the end unless they were running already: left running,
            # they would hold the ports of another checkout's `make test`)
            self.services_started = subprocess.run(
                ["redis-cli", "-p", "56379", "ping"], capture_output=True).returncode != 0
            subprocess.run(["bash", "tests/databases.sh", "start"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            self.env |= {"DATABASE_URL": VENUE_DATABASE, "REDIS_URL": VENUE_REDIS}
            for command in (["dropdb", "--if-exists"], ["createdb"]):
                subprocess.run([*_pg(command[0]), *command[1:], "-h", "127.0.0.1", "-p",
                                "55432", "-U", "postgres", "spectator_attack"], check=True)
            subprocess.run(["redis-cli", "-p", "56379", "-n", "2", "flushdb"], check=True,
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

    def database_bytes(self) -> int:
        if not self.venue:
            return sum(path.stat().st_size for path in self.scratch.glob("db.sqlite3*"))
        out = subprocess.run([*_pg("psql"), "-h", "127.0.0.1", "-p", "55432", "-U", "postgres",
                              "-tAc", "SELECT pg_database_size('spectator_attack')"],
                             check=True, capture_output=True, text=True).stdout
        return int(out.strip())

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


VENUE_DATABASE = "postgres://postgres@127.0.0.1:55432/spectator_attack"
VENUE_REDIS = "redis://127.0.0.1:56379/2"


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


# --- the attacker (127.0.0.2) -----------------------------------------------------


class Attacker:
    """Every part of the attack in threads of one process (a process of its own, as a
    real attacker's: its threads never hold the measuring team's interpreter), each
    connection opened again as soon as it ends, until `stop`."""

    def __init__(self, port: int, big: int, live: int, stop: threading.Event) -> None:
        self.port, self.big, self.live, self.stop = port, big, live, stop
        self.answers: dict[str, dict[int, int]] = {}
        self.received = 0
        self.lock = threading.Lock()

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
        }
        for part, started in threads.items():
            for thread in started if part in parts else ():
                thread.daemon = True
                thread.start()
        if "since" in parts:
            asyncio.run(self.catch_up(until))
        self.stop.wait(max(0.0, until - time.time()))
        self.stop.set()


def attack_apart(port: int, big: int, live: int, seconds: float, parts: tuple[str, ...],
                 results: multiprocessing.queues.Queue) -> None:
    """The attack, in a process of its own: what it was answered, and how many bytes."""
    attacker = Attacker(port, big, live, threading.Event())
    attacker.run(seconds, parts)
    with attacker.lock:
        results.put((attacker.answers, attacker.received))


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
                        help="the attack's parts, separated by commas (default: all of them)")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="spectator-attack-"))
    record = Path(tempfile.gettempdir()) / "spectator-attack-big-record.json"
    if not record.exists():
        big_record(record)
    print(f"starting {'the venue layout' if options.venue else 'the demo'} in {scratch}")
    system = System(scratch, options.venue)
    try:
        big = _imported(system, record)
        total = options.quiet + options.seconds + 12
        live = json.loads(system.manage(
            "creatematch", "--board", "random:5", "--teams", "Bench", "Other", "--agents", "6",
            "--turns", str(int(total / 1.25) + 4), "--strategy-seconds", "1",
            "--transition-seconds", "0.25", "--start-in", "3", "--public", "--json"))
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
                system.port, big, live["id"], options.seconds,
                tuple(options.parts.split(",")), results), daemon=True)
            apart.start()
            answered = results.get(timeout=options.seconds + 120)  # (it did not die)
            attacked.update(zip(("answers", "received"), answered, strict=True))
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
            await asyncio.gather(team.play(attack_end + 1),
                                 probe_index(system.base, attack_end + 1, index_times))
        asyncio.run(measure())
        for helper in helpers:
            helper.join()
    finally:
        system.stop()
    phases = {"quiet": (began, quiet_end), "attacked": (quiet_end, attack_end)}
    print(f"\n{'demo (one process, SQLite)' if not options.venue else 'venue layout'}: "
          f"{options.quiet:.0f} s quiet, then {options.seconds:.0f} s of attack from {ATTACKER}")
    for phase, (begin, end) in phases.items():
        print(f"-- {phase}")
        print(figures("team POST latency (ms)", window(team.posts, begin, end), "goal p99 < 100"))
        print(figures("turn lateness, deadline→turn (ms)", window(team.lateness, begin, end),
                      "goal p99 < 250"))
        print(figures("GET / (ms)", window(index_times, begin, end), "goal p99 < 1000"))
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
    if options.show:
        for name, samples in (("POST", team.posts), ("lateness", team.lateness)):
            print(f"{name} by second of the attack:", " ".join(
                f"{at - quiet_end:+.1f}:{value:.0f}" for at, value in samples
                if quiet_end - 2 <= at < attack_end))
    grew_quiet = database["quiet"] - database["began"]
    grew_attacked = database["attacked"] - database["quiet"]
    print(f"{'database growth (bytes)':<34} quiet {grew_quiet:,}  attacked {grew_attacked:,}  "
          f"added by the attack {max(0, grew_attacked - grew_quiet):,}  goal < 1,000,000")
    print(f"team's answers: {team.statuses}")
    print(f"attacker: received {attacked['received'] / 1e6:.1f} MB;")
    for part, counts in sorted(attacked["answers"].items()):
        print(f"  {part:<10} {dict(sorted(counts.items()))}  (0: refused or failed to connect,"
              " 1: opened)" if part in ("streams", "sockets") else
              f"  {part:<10} {dict(sorted(counts.items()))}")
    if options.keep:
        print(f"kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)


def _imported(system: System, record: Path) -> int:
    """Import the big record, published; its match id."""
    out = system.manage("importrecord", str(record), "--publish")
    return int(next(word for word in out.split() if word.isdigit()))


if __name__ == "__main__":
    main()
