"""What one web process carries on this machine: python bench/capacity.py
[--clients 1000] [--held 2000 4000 6000] [--answer-rates 100 200 300 400 600]
[--read-rates 50 100 200 300 400] [--client-processes 2] [--storm-runs 1]
[--only storm held answers reads]

Starts the whole system as one server process on the embedded default (SQLite,
in-memory channel layer, the clock on the server's loop: `manage.py demo --no-bots`,
as bench/live.py does) in a scratch folder, and beside it, for comparison, a bare
broadcaster: a minimal `websockets` server in a process of its own that sends each
newcomer a text the size of the real snapshot, and every second, at the turn's
deadline, a text the size of a real turn to every client. The clients run in
`--client-processes` processes (bench/loadgen.py's lean websocket client, garbage
collector off), and measure both servers alike, one after the other, in the same run.

  storm:   a live public match with 1-second turns (0.8 s strategy, 0.2 s transition);
           `--clients` viewers all start to connect at once, `--lead` seconds before a
           turn's deadline, so that the turn falls during their arrival. For that turn:
           when each viewer first had it (its `turn` message, or a snapshot that already
           holds it) after its deadline, p50/p99/max and how many had it more than
           250 ms late; how long the viewers took to connect (start to snapshot); then
           the steady turns after it (deadline to arrival); when the clock resolved the
           storm's turn and those after it (their stored time, after their deadline).
           The same for the bare broadcaster, and the ratios. `--storm-runs N`: N
           storms in a row, and the median of their p99 ratios.
  held:    sockets held on one match: for each count of `--held` (after the storm's),
           viewers connected before the match starts, then its turns' deadline-to-arrival
           p50/p99, the real server's and the bare broadcaster's; the most sockets whose
           turn p99 stayed under 250 ms (the bench lifts the sockets' caps above them:
           by default a process takes 5,000, and 4,000 from one trusted address).
  answers: valid submissions at fixed rates (open loop), spread over enough teams that no
           token passes the answer API's rate limit; each one's latency from its scheduled
           send time to its answer; the highest rate whose p99 stays under 10 ms.
  reads:   page reads at fixed rates (open loop), half the match's page (GET /matches/ID/)
           and half its state (GET /api/matches/ID); the highest rate whose answers were
           all 200 with p99 under 100 ms.
Everything stays on 127.0.0.1; every process it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import multiprocessing
import os
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime
from urllib.parse import urlsplit

import aiohttp
from live import Server, free_port, percentile
from loadgen import Turns, Viewer, Watcher, client_processes, collect, ended, submit_process, view

STRATEGY, TRANSITION = 0.8, 0.2
LATE_MS = 250.0
CONNECT_SECONDS = 20  # a viewer not connected by then counts as failed


def deadline(start: float, turn: int) -> float:
    return start + (turn - 1) * (STRATEGY + TRANSITION) + STRATEGY


# --- the clients (each group of viewers in a process of its own) ---------------------

class Storming(Watcher):
    """loadgen's viewer, noting also its snapshot's turn and arrival, and the sizes."""

    def message(self, payload: bytes, arrived: float):
        kind, turn, _ = self.turns(payload)
        viewer = self.viewer
        if kind == "snapshot" and viewer.snapshot is None:
            viewer.snapshot = (turn, arrived)
            viewer.sizes.setdefault("snapshot", len(payload))
        elif kind == "turn":
            viewer.sizes.setdefault("turn", len(payload))
        super().message(payload, arrived)


def storm_process(plan: dict, results, stop) -> None:
    gc.disable()  # a full collection with 1,000 sockets would show as a late turn
    asyncio.run(_storm(plan, results, stop))


async def _storm(plan: dict, results, stop) -> None:
    """Connect plan["count"] viewers from plan["at"] (epoch s), at most plan["slots"]
    handshakes under way at once; report when all have their snapshot (or failed),
    listen until stopped, then report what each received and when."""
    parts = urlsplit(plan["url"])
    viewers = []
    for _ in range(plan["count"]):
        viewer = Viewer(parts.hostname, parts.port, parts.path)
        viewer.snapshot, viewer.sizes = None, {}
        viewers.append(viewer)
    turns = Turns()
    slots = asyncio.Semaphore(plan["slots"])
    await asyncio.sleep(max(plan["at"] - time.time(), 0))
    began = time.time()

    tasks: list[asyncio.Task] = []

    async def start(viewer: Viewer) -> None:
        async with slots:
            tasks.append(asyncio.create_task(view(viewer, turns, Storming)))
            await viewer.ready.wait()

    starting = [asyncio.create_task(start(viewer)) for viewer in viewers]
    # a server that has not answered a viewer by then has failed it
    await asyncio.wait(starting, timeout=CONNECT_SECONDS)
    for task in starting:
        task.cancel()
    for viewer in viewers:
        if not viewer.connected and not viewer.error:
            viewer.error = f"no snapshot within {CONNECT_SECONDS} s"
    errors = [viewer.error for viewer in viewers if not viewer.connected]
    results.put(("ready", len(viewers) - len(errors), errors[:1]))
    await ended(stop, tasks)
    sizes: dict = {}
    for viewer in viewers:
        for kind, size in viewer.sizes.items():
            sizes.setdefault(kind, size)
    results.put(("done", began, [(viewer.snapshot, viewer.arrivals) for viewer in viewers],
                 sizes))


# --- the bare broadcaster ------------------------------------------------------------

def bare_process(port: int, start: float, sizes: dict, turns: int, until: float) -> None:
    asyncio.run(_bare(port, start, sizes, turns, until))


def _padded(message: dict, size: int) -> str:
    text = json.dumps(message, separators=(",", ":"))
    room = size - len(text) - len(',"pad":""')
    return text[:-1] + ',"pad":"' + "x" * max(room, 0) + '"}'


async def _bare(port: int, start: float, sizes: dict, turns: int, until: float) -> None:
    from websockets.asyncio.server import broadcast, serve

    clients: set = set()
    current = 0

    async def handler(socket_) -> None:
        clients.add(socket_)  # before the snapshot's frame is written: no turn between
        try:
            await socket_.send(_padded({"type": "snapshot", "turn": current},
                                       sizes["snapshot"]))
            await socket_.wait_closed()
        finally:
            clients.discard(socket_)

    async with serve(handler, "127.0.0.1", port, compression=None, ping_interval=None,
                     backlog=1024):
        for turn in range(1, turns + 1):
            await asyncio.sleep(max(deadline(start, turn) - time.time(), 0))
            current = turn
            broadcast(clients, _padded({"type": "turn", "turn": turn,
                                        "server_time": time.time() * 1000}, sizes["turn"]))
        await asyncio.sleep(max(until - time.time(), 0))


# --- one measured match --------------------------------------------------------------

def watch_match(url: str, clients: int, processes: int, at: float, slots: int,
                end: float) -> tuple[float, list, dict]:
    """Viewers of `url` from `at`; returns when they began, each one's (snapshot,
    arrivals) and the messages' sizes, once the match's last turn (at `end`) is past."""
    counts = [clients // processes + (index < clients % processes)
              for index in range(processes)]
    plans = [{"url": url, "count": count, "at": at, "slots": slots} for count in counts]
    with client_processes(storm_process, plans) as (results, running, stop):
        ready = collect(results, running, "ready", max(at, time.time()) + CONNECT_SECONDS + 30)
        failed = clients - sum(connected for connected, _ in ready)
        if failed:
            print(f"    {failed} viewers failed to connect, e.g. "
                  f"{next(errors[0] for _, errors in ready if errors)}")
        time.sleep(max(end + 0.5 - time.time(), 0))
        stop.set()
        done = collect(results, running, "done", time.time() + 60)
    began = min(report[0] for report in done)
    seen = [one for report in done for one in report[1]]
    sizes = {kind: size for report in done for kind, size in report[2].items()}
    return began, seen, sizes


def bare_server(start: float, sizes: dict, turns: int, until: float):
    port = free_port()
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=bare_process, args=(port, start, sizes, turns, until),
                              daemon=True)
    process.start()
    return process, f"ws://127.0.0.1:{port}/"


def wait_listening(url: str, seconds: float = 20) -> None:
    import socket
    parts = urlsplit(url)
    limit = time.monotonic() + seconds
    while time.monotonic() < limit:
        with socket.socket() as probe:
            if probe.connect_ex((parts.hostname, parts.port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"{url} did not start")


def storm_figures(start: float, began: float, seen: list, storm_turn: int) -> dict:
    """The storm turn's lateness at each viewer, the connects' durations, and the steady
    turns': those whose deadline came a second after the last viewer had its snapshot."""
    due = deadline(start, storm_turn)
    last = max((snapshot[1] for snapshot, _ in seen if snapshot is not None), default=due)
    after = max(storm_turn + 1, math.ceil(last - start - STRATEGY + 1))  # once all are in
    steady_from = after + 1
    had, connect = [], []
    for snapshot, arrivals in seen:
        if snapshot is None:
            continue
        connect.append((snapshot[1] - began) * 1000)
        times = [arrived for turn, arrived, _ in arrivals if turn == storm_turn]
        if snapshot[0] >= storm_turn:
            times.append(snapshot[1])
        if times:
            had.append((min(times) - due) * 1000)
    steady = [(arrived - deadline(start, turn)) * 1000 for _, arrivals in seen
              for turn, arrived, _ in arrivals if turn >= steady_from]
    first = [(arrived - deadline(start, turn)) * 1000 for _, arrivals in seen
             for turn, arrived, _ in arrivals if turn == after]
    # the steady turns' two parts: the turn's making (deadline to its server_time) and
    # its fan-out (server_time to arrival)
    stamps = {turn: stamp for _, arrivals in seen for turn, _, stamp in arrivals
              if turn >= steady_from and stamp}
    first_making = [(stamp - deadline(start, turn)) * 1000 for _, arrivals in seen
                    for turn, _, stamp in arrivals if turn == after and stamp][:1]
    making = [(stamp - deadline(start, turn)) * 1000 for turn, stamp in stamps.items()]
    fanout = [(arrived - stamp) * 1000 for _, arrivals in seen
              for turn, arrived, stamp in arrivals if turn >= steady_from and stamp]
    return {"storm": had, "connect": connect, "steady": steady, "viewers": len(seen),
            "after": after, "first": first, "making": making, "fanout": fanout,
            "first_making": first_making}


def _p(values: list, fraction: float) -> float:
    return percentile(values, fraction) if values else float("nan")


def print_storm(name: str, figures: dict) -> None:
    storm, steady, connect = figures["storm"], figures["steady"], figures["connect"]
    late = sum(value > LATE_MS for value in storm)
    missing = figures["viewers"] - len(storm)
    print(f"  {name:<6} storm turn: p50 {_p(storm, .5):7.1f} ms  p99 {_p(storm, .99):7.1f} ms"
          f"  max {max(storm, default=float('nan')):7.1f} ms  later than {LATE_MS:.0f} ms: "
          f"{late}/{figures['viewers']}" + (f" (never had it: {missing})" if missing else ""))
    print(f"         connect (start to snapshot) p50 {_p(connect, .5):6.0f} ms  "
          f"p99 {_p(connect, .99):6.0f} ms;  the first turn after it (turn {figures['after']}):"
          f" p50 {_p(figures['first'], .5):6.1f} ms  p99 {_p(figures['first'], .99):6.1f} ms"
          f" (its making {_p(figures['first_making'], .5):5.1f} ms)")
    print(f"         steady turns (from turn {figures['after'] + 1}): p50 {_p(steady, .5):6.1f}"
          f" ms  p99 {_p(steady, .99):6.1f} ms  ({len(steady)} turn messages); of which the"
          f" turn's making p50 {_p(figures['making'], .5):5.1f} ms, its fan-out p50 "
          f"{_p(figures['fanout'], .5):5.1f} ms  p99 {_p(figures['fanout'], .99):5.1f} ms")


def print_resolved(server: Server, match_id: int, start: float, storm_turn: int,
                   after: int) -> None:
    """When the clock resolved each turn (its stored `resolved_at`), after its deadline:
    the storm's turn, and the turns after it."""
    with contextlib.closing(sqlite3.connect(server.database)) as database:
        rows = database.execute("SELECT number, resolved_at FROM matches_turn WHERE "
                                "match_id = ? ORDER BY number", (match_id,)).fetchall()
    late = {number: (datetime.fromisoformat(at).replace(tzinfo=UTC).timestamp()
                     - deadline(start, number)) * 1000 for number, at in rows}
    later = [late[number] for number in late if number >= after]
    print(f"         the clock resolved the storm's turn {late.get(storm_turn, math.nan):.1f} ms "
          f"after its deadline; the turns from turn {after}: p50 {_p(later, .5):.1f} ms, "
          f"max {max(later, default=math.nan):.1f} ms")


def storm(server: Server, options) -> None:
    """`--storm-runs` storms, each against the server and then the bare broadcaster; with
    more than one, the median of their ratios at the end (the bare broadcaster's own
    p99 varies by half from run to run on a shared machine)."""
    ratios = [ratio for _ in range(options.storm_runs)
              if (ratio := storm_once(server, options)) is not None]
    if len(ratios) > 1:
        print(f"Over {len(ratios)} storms, the median ratio server/bare at p99: ", end="")
        print(";  ".join(f"{name} {statistics.median(r[name] for r in ratios):.2f} ("
                         + ", ".join(f"{r[name]:.2f}" for r in ratios) + ")"
                         for name in ("first turn after", "steady")))


def storm_once(server: Server, options) -> dict | None:
    """One storm; its p99 ratios to the bare broadcaster's (None: nothing to compare)."""
    clients, processes = options.clients, options.client_processes
    storm_turn, turns = 3, 15  # a turn during the storm; steady ones once all connected
    print(f"Storm: {clients} viewers connect at once, {options.lead:.1f} s before turn "
          f"{storm_turn}'s deadline; 1-second turns, {processes} client processes:")
    match = server.create_match(turns, STRATEGY, TRANSITION, start_in=3)
    start = match["start_at"] / 1000
    url = f"ws://127.0.0.1:{server.port}/ws/matches/{match['id']}/"
    at = deadline(start, storm_turn) - options.lead
    end = deadline(start, turns)
    began, seen, sizes = watch_match(url, clients, processes, at, clients, end)
    real = storm_figures(start, began, seen, storm_turn)
    print_storm("server", real)
    print_resolved(server, match["id"], start, storm_turn, real["after"])
    if "snapshot" not in sizes or "turn" not in sizes:
        print("  (no snapshot or turn message arrived: no bare broadcaster to compare)")
        return None
    start = time.time() + 3
    at, end = deadline(start, storm_turn) - options.lead, deadline(start, turns)
    bare, bare_url = bare_server(start, sizes, turns, end + 5)
    try:
        wait_listening(bare_url)
        began, seen, _ = watch_match(bare_url, clients, processes, at, clients, end)
    finally:
        bare.terminate()
        bare.join()
    plain = storm_figures(start, began, seen, storm_turn)
    print_storm("bare", plain)
    print(f"  (the bare broadcaster sends {sizes['snapshot']} B on connect and {sizes['turn']} B"
          " a turn: the real messages' sizes)")
    print(f"  ratio server/bare: storm turn p50 {_ratio(real['storm'], plain['storm'], .5)}"
          f"  p99 {_ratio(real['storm'], plain['storm'], .99)};  first turn after p50 "
          f"{_ratio(real['first'], plain['first'], .5)}  p99 "
          f"{_ratio(real['first'], plain['first'], .99)};  steady p50 "
          f"{_ratio(real['steady'], plain['steady'], .5)}  p99 "
          f"{_ratio(real['steady'], plain['steady'], .99)}")
    options.sizes = sizes
    if not all(real[kind] and plain[kind] for kind in ("first", "steady")):
        return None
    return {name: _p(real[kind], .99) / max(_p(plain[kind], .99), 1.0)
            for name, kind in (("first turn after", "first"), ("steady", "steady"))}


def _ratio(ours: list, theirs: list, fraction: float) -> str:
    if not ours or not theirs:
        return "  n/a"
    return f"{_p(ours, fraction) / max(_p(theirs, fraction), 1.0):5.2f}"


def held(server: Server, options) -> None:
    processes = options.client_processes
    print(f"Sockets held on one match (connected before it starts), 1-second turns, turn "
          f"p99 goal {LATE_MS:.0f} ms:")
    sizes = getattr(options, "sizes", None)
    best = {"server": 0, "bare": 0}
    for clients in options.held:
        turns, lead = 6, 4 + clients / 250
        match = server.create_match(turns, STRATEGY, TRANSITION, start_in=lead)
        start = match["start_at"] / 1000
        url = f"ws://127.0.0.1:{server.port}/ws/matches/{match['id']}/"
        _, seen, found = watch_match(url, clients, processes, time.time(), 64,
                                     deadline(start, turns))
        sizes = sizes or found
        steady = [(arrived - deadline(start, turn)) * 1000 for _, arrivals in seen
                  for turn, arrived, _ in arrivals]
        line = (f"  {clients:>6} sockets: server p50 {_p(steady, .5):6.1f} ms  "
                f"p99 {_p(steady, .99):6.1f} ms ({len(steady)}/{clients * turns} turn messages)")
        if _p(steady, .99) < LATE_MS and len(steady) == clients * turns:
            best["server"] = clients
        if sizes and "turn" in sizes:
            start = time.time() + lead
            bare, bare_url = bare_server(start, sizes, turns, deadline(start, turns) + 5)
            try:
                wait_listening(bare_url)
                _, seen, _ = watch_match(bare_url, clients, processes, time.time(), 64,
                                         deadline(start, turns))
            finally:
                bare.terminate()
                bare.join()
            plain = [(arrived - deadline(start, turn)) * 1000 for _, arrivals in seen
                     for turn, arrived, _ in arrivals]
            if _p(plain, .99) < LATE_MS and len(plain) == clients * turns:
                best["bare"] = clients
            line += (f";  bare p50 {_p(plain, .5):6.1f} ms  p99 {_p(plain, .99):6.1f} ms;  "
                     f"ratio p50 {_ratio(steady, plain, .5)}  p99 {_ratio(steady, plain, .99)}")
        print(line, flush=True)
        if _p(steady, .99) >= LATE_MS:
            break
    print(f"  most sockets with turn p99 under {LATE_MS:.0f} ms (of those tried): server "
          f"{best['server']}, bare broadcaster {best['bare']}")


# --- answers and page reads ----------------------------------------------------------

def many_matches(server: Server, count: int, strategy: float, start_in: float) -> list:
    """`count` public matches made in one `manage.py shell` (a command each is a second)."""
    code = (
        "import io, json\n"
        "from django.core.management import call_command\n"
        "made = []\n"
        f"for _ in range({count}):\n"
        "    out = io.StringIO()\n"
        "    call_command('creatematch', '--board', 'Kakom-1', '--teams', 'Blue', 'Orange',\n"
        f"                 '--public', '--turns', '3', '--strategy-seconds', '{strategy}',\n"
        f"                 '--transition-seconds', '0.2', '--start-in', '{start_in}',\n"
        "                 '--json', stdout=out)\n"
        "    made.append(json.loads(out.getvalue()))\n"
        "print(json.dumps(made))\n")
    return json.loads(server.manage("shell", "-c", code).strip().splitlines()[-1])


def open_answers(plans: list[list], seconds: float) -> tuple[list, dict]:
    """Send the planned requests from the client processes; the measured latencies
    (ms) and the statuses."""
    with client_processes(submit_process, plans) as (results, running, _):
        done = collect(results, running, "done", time.time() + seconds + 60)
    latencies = [value for report in done for value in report[0]["latency"]]
    statuses: dict = {}
    for report in done:
        for status, count in report[0]["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    return latencies, statuses


def rate_plan(requests: list[tuple[str, str]], rate: int, seconds: float, processes: int,
              warm: float = 1.0) -> list[list]:
    """Each process's share of `requests` sent round-robin at `rate` a second: `warm`
    seconds unmeasured, then `seconds` measured."""
    began = time.time() + 1.5  # the client processes' start
    plans: list[list] = [[] for _ in range(processes)]
    total = int(rate * (warm + seconds))
    for index in range(total):
        url, token = requests[index % len(requests)]
        at = began + index / rate
        plans[index % processes].append((url, token, at, index >= rate * warm))
    return plans


def answers(server: Server, options) -> None:
    per_token = 10  # a second: half the answer API's limit
    teams = -(-max(options.answer_rates) // per_token)
    seconds = options.rate_seconds
    matches = many_matches(server, -(-teams // 2), strategy=600, start_in=2)
    time.sleep(max(max(m["start_at"] for m in matches) / 1000 - time.time() + 0.3, 0))
    targets = [(f"{server.base}/api/matches/{m['id']}/actions", team["token"])
               for m in matches for team in m["teams"]]
    print(f"Answers (valid submissions, open loop, {len(targets)} teams, {seconds:.0f} s "
          "measured a rate, after each team's first answers, unmeasured):")
    # a token's first requests find its team (the strangers' thread): not what is measured
    open_answers(rate_plan(targets * 2, 60, 0, options.client_processes,
                           warm=2 * len(targets) / 60), 2 * len(targets) / 60)
    best = 0
    for rate in options.answer_rates:
        latencies, statuses = open_answers(
            rate_plan(targets, rate, seconds, options.client_processes), seconds)
        p99 = _p(latencies, .99)
        print(f"  {rate:>5}/s: p50 {_p(latencies, .5):6.1f} ms  p99 {p99:6.1f} ms  "
              f"(answers: {dict(sorted(statuses.items()))})", flush=True)
        if p99 < 10 and set(statuses) == {"202"}:
            best = rate
        elif p99 >= 100:  # far past it: higher rates are no better
            break
    print(f"  answers a second with p99 under 10 ms: {best}")


def reads(server: Server, options) -> None:
    match = server.create_match(3, 600, 0.2, start_in=1)
    time.sleep(1.2)
    targets = [(f"{server.base}/matches/{match['id']}/", ""),
               (f"{server.base}/api/matches/{match['id']}", "")]
    seconds = options.rate_seconds
    print(f"Page reads (GET /matches/ID/ and /api/matches/ID in turn, open loop, "
          f"{seconds:.0f} s measured a rate):")
    best = 0
    for rate in options.read_rates:
        latencies, statuses = open_reads(targets, rate, seconds, options.client_processes)
        p99 = _p(latencies, .99)
        print(f"  {rate:>5}/s: p50 {_p(latencies, .5):6.1f} ms  p99 {p99:6.1f} ms  "
              f"(answers: {dict(sorted(statuses.items()))})", flush=True)
        if p99 < 100 and set(statuses) == {"200"}:
            best = rate
        elif p99 >= 100:
            break
    print(f"  page reads a second with p99 under 100 ms: {best}")


def open_reads(targets: list, rate: int, seconds: float, processes: int):
    plans = rate_plan(targets, rate, seconds, processes, warm=0.5)
    with client_processes(read_process, plans) as (results, running, _):
        done = collect(results, running, "done", time.time() + seconds + 60)
    latencies = [value for report in done for value in report[0]]
    statuses: dict = {}
    for report in done:
        for status, count in report[1].items():
            statuses[status] = statuses.get(status, 0) + count
    return latencies, statuses


def read_process(plan: list, results, _stop) -> None:
    gc.disable()
    asyncio.run(_reads(plan, results))


async def _reads(plan: list, results) -> None:
    latencies: list[float] = []
    statuses: dict[str, int] = {}

    async def get(session, url: str, _token: str, at: float, measured: bool) -> None:
        await asyncio.sleep(max(at - time.time(), 0))
        try:
            async with session.get(url) as response:
                await response.read()
                status = str(response.status)
        except (aiohttp.ClientError, TimeoutError) as error:
            status = type(error).__name__
        if measured:
            latencies.append((time.time() - at) * 1000)
            statuses[status] = statuses.get(status, 0) + 1

    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     timeout=timeout) as session:
        await asyncio.gather(*(get(session, *request) for request in plan))
    results.put(("done", latencies, statuses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000, help="the storm's viewers")
    parser.add_argument("--lead", type=float, default=0.3,
                        help="seconds from the storm's start to the turn's deadline")
    parser.add_argument("--held", type=int, nargs="*", default=[2000, 4000, 6000])
    parser.add_argument("--answer-rates", type=int, nargs="+",
                        default=[100, 200, 300, 400, 600])
    parser.add_argument("--read-rates", type=int, nargs="+",
                        default=[50, 100, 200, 300, 400])
    parser.add_argument("--rate-seconds", type=float, default=4.0)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--storm-runs", type=int, default=1,
                        help="storms in a row (each against both servers), and their median")
    parser.add_argument("--only", nargs="+", choices=["storm", "held", "answers", "reads"],
                        default=["storm", "held", "answers", "reads"])
    options = parser.parse_args()
    began = time.monotonic()
    # the clients are all on 127.0.0.1: a socket cap above what is tried (the default
    # caps a process at 5,000 sockets, 4,000 from one trusted address)
    os.environ.setdefault("SPECTATOR_CAP_SOCKETS", "32,20000,20000")
    with tempfile.TemporaryDirectory(prefix="spectator-capacity-") as scratch:
        server = Server(scratch)
        print("One web process: manage.py demo --no-bots (SQLite, in-memory channel layer, "
              "the clock on the server's loop)")
        try:
            for part in options.only:
                {"storm": storm, "held": held, "answers": answers, "reads": reads}[part](
                    server, options)
        finally:
            server.stop()
    print(f"({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
