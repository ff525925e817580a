"""Fan-out and API figures over several daphne processes with Redis:

    python bench/fanout.py [--clients 1000,5000] [--servers 1,4] [--layer core,pubsub]
                           [--turns 10] [--api-rate 1000] [--api-seconds 8]

Runs the venue deployment on loopback: PostgreSQL, Redis, daphne processes and one
`runclock`, started afresh for each channel layer (CHANNEL_LAYER, with a Redis key
prefix of the bench's own) and number of daphne processes, and warmed up with a
one-turn match. Then:
  (a) fan-out: for each client count, a live public Kakomimasu match with 1-second
      turns that starts once that many websocket clients, spread round-robin over the
      daphne processes, are connected. The clients run in several client processes
      (bench/loadgen.py: one asyncio loop each, garbage collector off while they
      measure, as in bench/live.py) so that the client side is not the bottleneck.
      For every turn message each client receives: the time from the turn's deadline
      to its arrival. To read it: the clock's part (deadline to the message's
      server_time, stamped just before the broadcast), the channel layer's
      (server_time to the turn's first arrival at any client), the client loops'
      lag; and what the fan-out costs the servers: the daphne processes' CPU time
      over the match per turn, and their VmRSS once every client is connected; and
      the client processes' CPU time per turn, taken from the same cores;
  (b) the submission API on `--api-servers` daphne processes: valid submissions from
      the teams of enough running matches that no token sends more than
      `--api-per-token` requests a second, at a fixed rate (open loop) from several
      client processes, after one unmeasured second at that rate; each one's latency
      from its scheduled send time to its answer, and the part until the application
      received it (the answer's `received_at`); and the CPU time per request of the
      daphne processes, of this machine's PostgreSQL processes and of the clients.
PostgreSQL and Redis are DATABASE_URL and REDIS_URL, else the test services
(`tests/databases.sh start`, Redis database 15). The bench works in a database of its
own, `spectator_bench` (--database), dropped and created afresh each run, and its
channel layer has a key prefix of its own. Everything stays on 127.0.0.1; every
process it starts is stopped at the end, on Ctrl-C and errors too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
from live import free_port, percentile
from loadgen import REQUEST_TIMEOUT, client_processes, collect, submit_process, watch_process

ROOT = Path(__file__).resolve().parent.parent
STRATEGY, TRANSITION = 0.8, 0.2  # 1-second turns
REDIS_BENCH_DB = 15  # on the test services' Redis, when REDIS_URL is not given


def comma_list(kind):
    def parse(text: str) -> list:
        return [kind(item) for item in text.split(",") if item.strip()]
    return parse


# --- PostgreSQL, Redis and Django in this process (it creates the matches) ----------

def service_urls(database: str) -> tuple[str, str]:
    """DATABASE_URL (with the bench's own database name) and REDIS_URL: from the
    environment, else from the test services, started if they are not running."""
    database_url, redis_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if not (database_url and redis_url):
        subprocess.run(["bash", "tests/databases.sh", "start"], cwd=ROOT, check=True)
        out = subprocess.run(["bash", "tests/databases.sh", "env"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        found = dict(line.split("=", 1) for line in out.split())
        database_url = database_url or found["DATABASE_URL"]
        redis_url = redis_url or f"{found['REDIS_URL'].rsplit('/', 1)[0]}/{REDIS_BENCH_DB}"
    return urlsplit(database_url)._replace(path=f"/{database}").geturl(), redis_url


def database_create(url: str) -> None:
    """Drop the bench's database if it is there and create it empty."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = sql.Identifier(parts.path.lstrip("/"))
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(name))


def django_setup(database_url: str, redis_url: str, scratch: str) -> None:
    """Set the environment every process shares, then Django here, and migrate."""
    os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url, SPECTATOR_VAR_DIR=scratch,
                      DJANGO_SETTINGS_MODULE="spectator.settings", DJANGO_DEBUG="0",
                      CHANNEL_LAYER_PREFIX="spectator-bench",
                      # every client is on 127.0.0.1: a venue's trusted network
                      SPECTATOR_TRUSTED_NETWORKS="127.0.0.0/8",
                      LOG_LEVEL="WARNING")
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def create_match(turns: int, strategy: float, start_in: float) -> dict:
    from django.core.management import call_command

    out = StringIO()
    call_command("creatematch", "--board", "Kakom-1", "--teams", "Blue", "Orange",
                 "--turns", str(turns), "--strategy-seconds", str(strategy),
                 "--transition-seconds", str(TRANSITION), "--start-in", str(start_in),
                 "--public", "--json", stdout=out)
    return json.loads(out.getvalue())


def match_start(match_id: int, in_seconds: float) -> float:
    """Move a match's start (turn 1 opens then) to `in_seconds` from now, as an
    organiser would; epoch seconds. The clock reads it afresh on every tick."""
    from datetime import timedelta

    from django.utils import timezone

    from matches.models import Match

    start_at = timezone.now() + timedelta(seconds=in_seconds)
    Match.objects.filter(pk=match_id).update(start_at=start_at)
    return start_at.timestamp()


def raise_open_files(needed: int) -> None:
    """Every socket is a file: take the hard limit, and say if even that is too low."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard != resource.RLIM_INFINITY and hard < needed:
        print(f"warning: at most {hard} open files a process (hard limit), {needed} needed "
              "when one daphne serves every client: raise it (ulimit -Hn, as root)")


# --- the servers ----------------------------------------------------------------------

class Cluster:
    """`servers` daphne processes on free ports and one `runclock`, on one channel layer."""

    def __init__(self, servers: int, layer: str, scratch: str) -> None:
        self.env = dict(os.environ, CHANNEL_LAYER=layer)
        self.logs = Path(scratch)
        self.ports = [free_port() for _ in range(servers)]
        self.processes: dict[str, subprocess.Popen] = {}
        try:
            for port in self.ports:
                self.spawn(f"daphne-{port}", "-m", "daphne", "-v", "0", "-b", "127.0.0.1",
                           "-p", str(port), "spectator.asgi:application")
            self.spawn("runclock", "manage.py", "runclock")
            self.wait_listening()
        except BaseException:
            self.stop()
            raise
        self.daphnes = [self.processes[f"daphne-{port}"].pid for port in self.ports]

    def spawn(self, name: str, *args: str) -> None:
        with open(self.logs / f"{name}.log", "w") as log:
            self.processes[name] = subprocess.Popen([sys.executable, *args], cwd=ROOT,
                                                    env=self.env, stdout=log,
                                                    stderr=subprocess.STDOUT)

    def wait_listening(self) -> None:
        waiting, deadline = set(self.ports), time.monotonic() + 60
        while waiting and time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    log = (self.logs / f"{name}.log").read_text()[-2000:]
                    raise SystemExit(f"{name} exited ({process.returncode}):\n{log}")
            for port in list(waiting):
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        waiting.discard(port)
            time.sleep(0.1)
        if waiting:
            raise SystemExit(f"daphne did not listen on {sorted(waiting)} within 60 s")

    def address(self, index: int) -> str:
        """The index-th server's, round-robin."""
        return f"127.0.0.1:{self.ports[index % len(self.ports)]}"

    def ws_url(self, index: int, match_id: int) -> str:
        return f"ws://{self.address(index)}/ws/matches/{match_id}/"

    def api_url(self, index: int, match_id: int) -> str:
        return f"http://{self.address(index)}/api/matches/{match_id}/actions"

    def memory_mib(self) -> list[float]:
        """Each daphne's resident memory (VmRSS)."""
        def rss(pid: int) -> float:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) / 1024
        return [rss(pid) for pid in self.daphnes]

    def cpu_seconds(self) -> float:
        """User and system CPU time of the daphne processes so far, summed."""
        return cpu_seconds(self.daphnes)

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    """User and system CPU time of each of these processes so far (those gone: none)."""
    found = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of these processes so far, summed."""
    return sum(cpu_by_pid(pids).values())


def postgres_pids() -> list[int]:
    """This machine's PostgreSQL processes (none when the database is elsewhere)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "postgres":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


# --- the two measures -----------------------------------------------------------------

def warm_up(cluster: Cluster) -> None:
    """A one-turn match watched through every daphne. The first turn a process relays
    (and the clock's first broadcast) costs some 100 ms more, as code and connections
    are first used; servers that have been running do not pay it again."""
    match = create_match(1, 0.5, start_in=3)

    async def watch(session: aiohttp.ClientSession, index: int) -> None:
        # A browser's handshake: the Origin of the page, host and port, as the server checks.
        origin = {"Origin": f"http://{cluster.address(index)}"}
        async with session.ws_connect(cluster.ws_url(index, match["id"]),
                                      headers=origin) as socket_:
            async for message in socket_:
                if json.loads(message.data)["type"] == "end":
                    return

    async def watch_all() -> None:
        async with aiohttp.ClientSession() as session:
            watching = (watch(session, index) for index in range(len(cluster.ports)))
            await asyncio.wait_for(asyncio.gather(*watching), timeout=30)

    asyncio.run(watch_all())


def fanout(cluster: Cluster, clients: int, options) -> dict:
    """One live match watched by `clients` websocket clients; its figures. The match
    starts once every client is connected, however long that takes."""
    turns, parts = options.turns, options.client_processes
    match = create_match(turns, STRATEGY, start_in=3600)
    urls = [cluster.ws_url(index, match["id"]) for index in range(clients)]
    idle_memory = cluster.memory_mib()
    with client_processes(watch_process, [urls[part::parts] for part in range(parts)]) as (
            results, processes, stop):
        ready = collect(results, processes, "ready", by=time.time() + 60 + clients / 20)
        memory = cluster.memory_mib()
        start = match_start(match["id"], in_seconds=2)
        end = start + turns * (STRATEGY + TRANSITION)
        time.sleep(max(start - 0.5 - time.time(), 0))
        client_pids = [process.pid for process in processes]
        cpu, client_cpu = cluster.cpu_seconds(), cpu_seconds(client_pids)
        time.sleep(max(end + 3 - time.time(), 0))  # past the last turn's fan-out
        cpu, client_cpu = cluster.cpu_seconds() - cpu, cpu_seconds(client_pids) - client_cpu
        stop.set()
        done = collect(results, processes, "done", by=time.time() + 60)

    def deadline(turn: int) -> float:
        return start + (turn - 1) * (STRATEGY + TRANSITION) + STRATEGY

    arrivals = [arrival for found, _ in done for arrival in found]
    stamps, earliest = {}, {}  # per turn: its server_time, its first arrival anywhere
    for turn, arrived, stamped in arrivals:
        stamps[turn], earliest[turn] = stamped, min(earliest.get(turn, arrived), arrived)
    connected = sum(count for count, _ in ready)
    return {
        "clients": clients, "connected": connected, "errors": [e for _, es in ready for e in es],
        "expected": connected * turns, "received": len(arrivals),
        "latency": [(arrived - deadline(turn)) * 1000 for turn, arrived, _ in arrivals],
        "clock": [(stamped - deadline(turn)) * 1000 for turn, stamped in stamps.items()],
        "hop": [(earliest[turn] - stamped) * 1000 for turn, stamped in stamps.items()],
        "lag": [late for _, lags in done for at, late in lags if start <= at <= end + 1],
        "memory": memory, "idle_memory": idle_memory, "cpu_per_turn": cpu * 1000 / turns,
        "client_cpu_per_turn": client_cpu * 1000 / turns,
    }


def submissions(cluster: Cluster, options) -> dict:
    """Valid submissions at a fixed rate, spread over enough teams' tokens. The first
    second at that rate warms the servers up (connections, first queries) unmeasured."""
    rate, seconds = options.api_rate, options.api_seconds
    count = math.ceil(rate / options.api_per_token / 2)
    # A strategy step long enough for every request, however late its answer.
    step = seconds + REQUEST_TIMEOUT + 15
    matches = [create_match(1, step, start_in=3 + 0.1 * count) for _ in range(count)]
    teams = [(match["id"], team["token"]) for match in matches for team in match["teams"]]
    began = max(match["start_at"] for match in matches) / 1000 + 2.5
    plan = []
    for index in range(int(rate * (seconds + 1))):
        match_id, token = teams[index % len(teams)]
        plan.append((cluster.api_url(index, match_id), token, began + index / rate,
                     index >= rate))
    plans = [plan[part::options.client_processes] for part in range(options.client_processes)]
    with client_processes(submit_process, plans) as (results, processes, _):
        # PostgreSQL's backends for the servers' connections may start meanwhile.
        groups = {"daphne": lambda: cluster.daphnes, "PostgreSQL": postgres_pids,
                  "clients": lambda: [process.pid for process in processes]}
        before = {name: cpu_by_pid(pids()) for name, pids in groups.items()}
        done = collect(results, processes, "done", by=began + step + 30)
        cpu = {}
        for name, pids in groups.items():
            now = cpu_by_pid(pids())
            if now:
                cpu[name] = sum(seconds - before[name].get(pid, 0) for pid, seconds in now.items())
    reports = [report for (report,) in done]
    statuses: dict[str, int] = {}
    for report in reports:
        for status, number in report["statuses"].items():
            statuses[status] = statuses.get(status, 0) + number
    latency = [latency for report in reports for latency in report["latency"]]
    answered = max(report["last"] for report in reports) - (began + 1)
    return {"latency": latency, "reached": [ms for report in reports for ms in report["reached"]],
            "statuses": dict(sorted(statuses.items())), "tokens": len(teams),
            "cpu_per_request": {name: seconds * 1000 / len(plan) for name, seconds in cpu.items()},
            "throughput": len(latency) / answered}


# --- output ---------------------------------------------------------------------------

HEADER = (f"{'layer':<7}{'servers':>7}{'clients':>8}{'p50':>8}{'p99':>8}{'max':>8}"
          f"{'turn messages':>18}{'CPU':>7}  RSS MiB")


def fanout_line(layer: str, servers: int, figures: dict) -> str:
    latency, memory = figures["latency"], figures["memory"]
    line = f"{layer:<7}{servers:>7}{figures['clients']:>8}"
    if not latency:
        return f"{line}  no turn message arrived"
    each = " + ".join(f"{mib:.0f}" for mib in memory)
    return (f"{line}{percentile(latency, 0.5):8.1f}{percentile(latency, 0.99):8.1f}"
            f"{max(latency):8.1f}{figures['received']:>10}/{figures['expected']:<7}"
            f"{figures['cpu_per_turn']:7.0f}  {sum(memory):.0f} = {each}")


def fanout_notes(figures: dict) -> str:
    clock, hop, lag = figures["clock"], figures["hop"], figures["lag"]
    notes = [f"clock p50 {percentile(clock, 0.5):.0f} ms, max {max(clock, default=0):.0f} ms",
             f"broadcast to first client p50 {percentile(hop, 0.5):.0f} ms",
             f"client processes' CPU per turn {figures['client_cpu_per_turn']:.0f} ms",
             f"client lag p99 {percentile(lag, 0.99):.0f} ms, max {max(lag, default=0):.0f} ms",
             f"RSS before the clients {sum(figures['idle_memory']):.0f} MiB"]
    if figures["connected"] < figures["clients"]:
        notes.append(f"{figures['clients'] - figures['connected']} clients failed, "
                     f"e.g. {figures['errors'][0] if figures['errors'] else '?'}")
    return "    " + "; ".join(notes)


def api_lines(servers: int, options, figures: dict) -> str:
    latency, reached, tokens = figures["latency"], figures["reached"], figures["tokens"]
    return (f"  {options.api_rate} requests/s for {options.api_seconds:g} s, {servers} daphne "
            f"processes, {tokens} team tokens ({options.api_rate / tokens:.1f} requests/s each)\n"
            f"  latency p50 {percentile(latency, 0.5):.1f} ms  p99 {percentile(latency, 0.99):.1f}"
            f" ms  mean {statistics.mean(latency):.1f} ms  max {max(latency):.1f} ms;"
            f" answers {figures['statuses']}, {figures['throughput']:.0f} a second\n"
            f"  of which until the application received it: p50 {percentile(reached, 0.5):.1f} ms"
            f"  p99 {percentile(reached, 0.99):.1f} ms\n"
            "  CPU per request: " + ", ".join(f"{name} {ms:.2f} ms" for name, ms
                                              in figures["cpu_per_request"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=comma_list(int), default=[1000, 5000])
    parser.add_argument("--servers", type=comma_list(int), default=[1, 4],
                        help="daphne processes (default: 1,4)")
    parser.add_argument("--layer", type=comma_list(str), default=["core", "pubsub"],
                        help="channel layers, core and/or pubsub (the API runs on the first)")
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--api-rate", type=int, default=1000, help="0: no API measure")
    parser.add_argument("--api-seconds", type=float, default=8)
    parser.add_argument("--api-servers", type=int, default=4)
    parser.add_argument("--api-per-token", type=float, default=10,
                        help="requests a second per team token (issue 5 limits it to 20)")
    parser.add_argument("--database", default="spectator_bench")
    options = parser.parse_args()
    if not set(options.layer) <= {"core", "pubsub"}:
        parser.error("--layer: core and/or pubsub")
    # A plain `kill` ends the bench like Ctrl-C does: through the `finally`s below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    raise_open_files(max(options.clients, default=0) + 256)
    with tempfile.TemporaryDirectory(prefix="spectator-fanout-") as scratch:
        database_url, redis_url = service_urls(options.database)
        database_create(database_url)
        django_setup(database_url, redis_url, scratch)
        where = urlsplit(database_url)
        print(f"PostgreSQL {where.hostname}:{where.port}{where.path}, Redis "
              f"{urlsplit(redis_url).netloc}{urlsplit(redis_url).path}; {os.cpu_count()} cores,"
              f" load average {os.getloadavg()[0]:.2f} at the start")
        run(options, scratch)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


def run(options, scratch: str) -> None:
    if options.clients:
        print(f"Websocket fan-out, {options.turns} turns of 1 s: deadline-to-client latency "
              "(ms), the daphne processes' CPU per turn (ms) and RSS with the clients connected")
        print(HEADER)
    for layer in options.layer if options.clients else []:
        for servers in options.servers:
            with Cluster(servers, layer, scratch) as cluster:
                warm_up(cluster)
                for clients in options.clients:
                    figures = fanout(cluster, clients, options)
                    print(fanout_line(layer, servers, figures))
                    print(fanout_notes(figures), flush=True)
    if options.api_rate:
        print(f"Submission API ({options.layer[0]} layer), open loop:")
        with Cluster(options.api_servers, options.layer[0], scratch) as cluster:
            print(api_lines(options.api_servers, options, submissions(cluster, options)))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted")
