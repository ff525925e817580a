"""Live latency on loopback: python bench/live.py [--clients 100 1000] [--rate 200]
[--watchers 100]

Starts the whole system as one server process on the embedded default (SQLite,
in-memory channel layer, clock on the server's loop) in a scratch folder, then:
  (a) for each client count, runs a short live match with 1-second turns and
      measures, for every turn each websocket client receives, the time from the
      turn's deadline to its arrival. Two more figures help to read it: the
      clock's part (deadline to the message's server_time, stamped when the turn
      is broadcast), and the client's own loop lag (how late a 10 ms sleep of
      the client wakes during the match). All clients share one process and
      one loop, so a late arrival can be the client's doing: with 1,000 sockets
      it spends about 60 ms of CPU per turn. Its garbage collector is off while
      it measures (a 30 ms full pass showed as a late turn). Splitting the
      clients over two processes gave the same figures on a 2-core machine:
      what they gain they take from the server's core;
  (b) sends submissions at a fixed rate (open loop), spread over the teams of
      enough matches that no token passes the rate limit (20 a second), and
      measures each one's latency from its scheduled send time to its answer;
  (c) plays Blokus Duo games (alternating turns; 4 by default, one after another)
      between the built-in greedy and random bots over HTTP while 100 websocket
      clients watch, and measures, for every move, the time from sending the legal
      move to its `turn` message's arrival at each client (the turn is played the
      moment the move arrives), and the server's part: to the message's server_time.
Everything stays on 127.0.0.1; every loop is bounded and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the bots' pure modules, for (c)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, scratch: str) -> None:
        # every client is on 127.0.0.1: a trusted network's caps (a venue's screens)
        self.env = dict(os.environ, SPECTATOR_VAR_DIR=scratch, DJANGO_DEBUG="0",
                        LOG_LEVEL="WARNING", SPECTATOR_TRUSTED_NETWORKS="127.0.0.0/8")
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.database = os.path.join(scratch, "db.sqlite3")  # (the embedded default's)
        self.manage("migrate", "-v0")
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--no-bots", "--port", str(self.port)],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise SystemExit("the server did not start")

    def manage(self, *args: str) -> str:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                              check=True, capture_output=True, text=True).stdout

    def create_match(self, turns: int, strategy: float, transition: float, start_in: float):
        out = self.manage("creatematch", "--board", "Kakom-1", "--teams", "Blue", "Orange",
                          "--public",  # anyone may watch it: the clients are anonymous
                          "--turns", str(turns), "--strategy-seconds", str(strategy),
                          "--transition-seconds", str(transition), "--start-in", str(start_in),
                          "--json")
        return json.loads(out)

    def memory_mib(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        rss = next(line for line in status.splitlines() if line.startswith("VmRSS"))
        return int(rss.split()[1]) / 1024

    def stop(self) -> None:
        process_stop(self.process)


def process_stop(process: subprocess.Popen) -> None:
    """Ask a process to end; after 10 s, end it."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def watch(session, url: str, arrivals: list, ready: asyncio.Event, done: asyncio.Event):
    for attempt in range(5):  # a connection refused while the server is busy accepting
        try:
            return await _watch(session, url, arrivals, ready, done)
        except aiohttp.ClientOSError:
            await asyncio.sleep(0.2 * (attempt + 1))
    raise ConnectionError(f"could not connect to {url}")


async def _watch(session, url: str, arrivals: list, ready: asyncio.Event, done: asyncio.Event):
    async with session.ws_connect(url, max_msg_size=0) as socket_:
        async for message in socket_:
            arrived = time.time()
            data = json.loads(message.data)
            if data["type"] == "snapshot":
                ready.set()
            elif data["type"] == "turn":
                arrivals.append((data["turn"], arrived, data["server_time"] / 1000))
            elif data["type"] == "end":
                break
            if done.is_set():
                break


async def loop_lag(lags: list, until: float, step: float = 0.01) -> None:
    """How late each short sleep of this process's loop wakes, in ms, until `until`."""
    while time.time() < until:
        asked = time.perf_counter()
        await asyncio.sleep(step)
        lags.append((time.time(), (time.perf_counter() - asked - step) * 1000))


async def fanout(server: Server, clients: int) -> None:
    turns, strategy, transition = 10, 0.8, 0.2
    start_in = 4 + clients / 100
    match = server.create_match(turns, strategy, transition, start_in)
    start = match["start_at"] / 1000
    url = f"ws://127.0.0.1:{server.port}/ws/matches/{match['id']}/"
    end = start + turns * (strategy + transition)
    arrivals: list[list] = [[] for _ in range(clients)]
    lags: list[tuple[float, float]] = []
    lag_task = asyncio.create_task(loop_lag(lags, end + 1))
    done = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    # The client's own garbage collections (30 ms with 1,000 sockets) would show up as
    # late turns: like timeit, measure with the collector off. The run is short.
    gc.disable()
    async with aiohttp.ClientSession(connector=connector,
                                     headers={"Origin": server.base}) as session:
        tasks = []
        for index in range(clients):
            ready = asyncio.Event()
            tasks.append(asyncio.create_task(watch(session, url, arrivals[index], ready, done)))
            if index % 20 == 19:
                await asyncio.sleep(0.1)
        limit = end + 10
        await asyncio.wait(tasks, timeout=max(limit - time.time(), 1))
        failed = [t.exception() for t in tasks if t.done() and t.exception()]
        if failed:
            print(f"  {len(failed)} clients failed, e.g. {failed[0]!r}")
        memory = server.memory_mib()
        done.set()
        for task in tasks:
            task.cancel()
        lag_task.cancel()
    gc.enable()

    def deadline(turn: int) -> float:
        return start + (turn - 1) * (strategy + transition) + strategy

    latencies = [(arrived - deadline(turn)) * 1000
                 for client in arrivals for turn, arrived, _ in client]
    stamps = {turn: stamped for client in arrivals for turn, _, stamped in client}
    clock = [(stamped - deadline(turn)) * 1000 for turn, stamped in stamps.items()]
    lag = [late for at, late in lags if start <= at <= end + 1]
    received = sum(len(client) for client in arrivals)
    if not latencies:
        print(f"  {clients:>5} clients: no turn message arrived")
        return
    print(f"  {clients:>5} clients: deadline-to-client p50 {percentile(latencies, 0.5):6.1f} ms"
          f"  p99 {percentile(latencies, 0.99):6.1f} ms  max {max(latencies):6.1f} ms"
          f"  ({received}/{clients * turns} turn messages; server {memory:.0f} MiB)")
    print(f"         clock (deadline to broadcast) p50 {percentile(clock, 0.5):5.1f} ms"
          f"  max {max(clock):5.1f} ms; client loop lag p99 {percentile(lag, 0.99):5.1f} ms"
          f"  max {max(lag, default=0):5.1f} ms")


async def submissions(server: Server, rate: int, seconds: float) -> None:
    # A token may send 20 requests a second (then 429): spread the load over enough
    # matches that each team sends at most 10 a second, each to its own match's URL.
    count = max(1, -(-rate // 20))
    created = [server.create_match(turns=3, strategy=seconds + 5 + 2 * count, transition=0.2,
                                   start_in=2 + 1.5 * count) for _ in range(count)]
    await asyncio.sleep(max(m["start_at"] for m in created) / 1000 - time.time() + 0.5)
    targets = [(f"{server.base}/api/matches/{m['id']}/actions", team["token"])
               for m in created for team in m["teams"]]
    body = json.dumps({"actions": [{"agent": 0, "type": "put", "x": 3, "y": 3}]})
    latencies: list[float] = []
    statuses: dict[int, int] = {}

    async def send(session, index: int, at: float) -> None:
        await asyncio.sleep(max(at - time.monotonic(), 0))
        url, token = targets[index % len(targets)]
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        async with session.post(url, data=body, headers=headers) as response:
            await response.read()
            statuses[response.status] = statuses.get(response.status, 0) + 1
        latencies.append((time.monotonic() - at) * 1000)

    count = int(rate * seconds)
    began = time.monotonic() + 0.2
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        await asyncio.gather(*(send(session, i, began + i / rate) for i in range(count)))
    print(f"  {rate} requests/s for {seconds:.0f} s: p50 {percentile(latencies, 0.5):.1f} ms"
          f"  p99 {percentile(latencies, 0.99):.1f} ms  mean {statistics.mean(latencies):.1f} ms"
          f"  (answers: {dict(sorted(statuses.items()))})")


async def alternating(server: Server, clients: int, games: int) -> None:
    timed: list[tuple[float, float]] = []  # (move to arrival, move to server_time), s
    moves = 0
    for game in range(games):
        moves += await alternating_game(server, clients, game, timed)
    if not timed:
        print(f"  {clients:>5} clients: no turn message arrived")
        return
    latencies = [arrival * 1000 for arrival, _ in timed]
    server_part = [stamped * 1000 for _, stamped in timed]
    print(f"  {clients:>5} clients, {games} games, {moves} moves: move-to-client p50 "
          f"{percentile(latencies, 0.5):6.1f} ms  p99 {percentile(latencies, 0.99):6.1f} ms"
          f"  max {max(latencies):6.1f} ms  ({len(latencies)} turn messages timed)")
    print(f"         of which move to the turn's server_time (request, rules, storage): "
          f"p50 {percentile(server_part, 0.5):6.1f} ms  "
          f"p99 {percentile(server_part, 0.99):6.1f} ms")


async def alternating_game(server: Server, clients: int, game: int, timed: list) -> int:
    """One game, the greedy bot against the random one (sides swapped every other game);
    appends each turn message's timings to `timed`; returns the moves played."""
    from matches.bots.blokus_duo import greedy_bot, random_bot

    match = json.loads(server.manage(
        "creatematch", "--game", "blokus-duo", "--teams", "Blue", "Orange", "--public",
        "--clock", "600", "--start-in", str(3 + clients / 100), "--json"))
    base = f"{server.base}/api/matches/{match['id']}"
    tokens = [team["token"] for team in match["teams"]]
    url = f"ws://127.0.0.1:{server.port}/ws/matches/{match['id']}/"
    arrivals: list[list] = [[] for _ in range(clients)]
    sent: dict[int, float] = {}
    done = asyncio.Event()
    rng = __import__("random").Random(3 + game)
    bots = (greedy_bot, random_bot) if game % 2 == 0 else (random_bot, greedy_bot)
    gc.disable()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     headers={"Origin": server.base}) as session:
        tasks = []
        for index in range(clients):
            tasks.append(asyncio.create_task(
                watch(session, url, arrivals[index], asyncio.Event(), done)))
            if index % 20 == 19:
                await asyncio.sleep(0.1)
        await asyncio.sleep(max(match["start_at"] / 1000 - time.time(), 0) + 0.2)
        for _ in range(200):  # at most 84 turns; passes are the server's
            async with session.get(base) as response:
                state = await response.json()
            if state["status"] == "finished":
                break
            team, turn = state["to_move"], state["strategy_turn"]
            body = json.dumps({"actions": bots[team](state, team, rng), "turn": turn})
            headers = {"Authorization": f"Bearer {tokens[team]}",
                       "Content-Type": "application/json"}
            sent[turn] = time.time()
            async with session.post(f"{base}/actions", data=body, headers=headers) as response:
                await response.read()
            wait_until = time.monotonic() + 2
            while (time.monotonic() < wait_until and
                   sum(bool(client) and client[-1][0] >= turn for client in arrivals) < clients):
                await asyncio.sleep(0.005)
        await asyncio.wait(tasks, timeout=5)
        done.set()
        for task in tasks:
            task.cancel()
    gc.enable()
    timed.extend((arrived - sent[turn], stamped - sent[turn]) for client in arrivals
                 for turn, arrived, stamped in client if turn in sent)
    return len(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--watchers", type=int, default=100,
                        help="websocket clients watching the Blokus Duo game")
    parser.add_argument("--games", type=int, default=4,
                        help="Blokus Duo games played one after another for (c)")
    parser.add_argument("--only", choices=["a", "b", "c"], nargs="+", default=["a", "b", "c"],
                        help="the sections to run (default all)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="spectator-bench-") as scratch:
        server = Server(scratch)
        try:
            if "a" in options.only:
                print("Websocket fan-out, one server process, 1-second turns:")
                for clients in options.clients:
                    asyncio.run(fanout(server, clients))
            if "b" in options.only:
                print("Submission API, one server process:")
                asyncio.run(submissions(server, options.rate, options.seconds))
            if "c" in options.only:
                print("Alternating turns (Blokus Duo, bots over HTTP), one server process:")
                asyncio.run(alternating(server, options.watchers, options.games))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
