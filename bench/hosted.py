"""Hosted matches a minute: python bench/hosted.py [--matches 12] [--turns 30]
[--chaser-turns 125] [--chsr PATH] [--chaser-only] [--deployed]

Starts, in a scratch folder on the embedded default (SQLite, the filesystem queue), a
server (`manage.py demo --no-bots`) and Celery workers, hands in two small Python
programs that speak the answer API (they poll their match every 50 ms and answer each
turn once), then starts `--matches` Kakomimasu scrimmages at once (A-1, `--turns`
turns, fast play: a turn closes once both have answered, 0.1 s transitions) and prints
how many finished a minute, from the first start to the last end: with one worker,
then with two. Each worker runs as many runs at once as the matches need (a run waits
on its program, which mostly waits on the server); the figure per worker core is the
machine's figure over its cores (os.cpu_count(): server, clock, workers and programs
all share them). Goal (issue 48): at least 30 such matches a minute per core.

Then a hosted CHaser match (best of three, `--chaser-turns` turns a game) between two
handed-in Python programs that answer at once, with reads only (look and search, so
each game runs to its last turn), served by the worker and reached through their doors
as any hosted program's: each game's time from its first line of turn 1 (the answer to
the first `@`) to its last line's arrival (what its programs wait through: the store of
its last turns, once both have their end, is not in it; bench/store.py times that), and
the program's step (its command's arrival to the next) p50/p99 from the stored lines.
Goal: a game no longer than the public Ruby server chsr.rb's, which stores nothing,
while storing every line. With `--chsr PATH/chsr.rb` (Ruby installed) the same two
programs, each a process of its own without a sandbox, then play three games on it (its
fixed ports 2009 and 2010): each game's time from the first `@` a program read to the
later one's end. The demo server's ladder is off (its matches would be played beside
these). `--chaser-only`: that match (and chsr.rb's games) alone, without the scrimmages.
With `--deployed`, on the PostgreSQL and Redis of DATABASE_URL and REDIS_URL instead, as
a league's several worker machines need them (a database of its own, empty: the bench
migrates it and hands its programs in; `bash tests/databases.sh start` and `env` give a
PostgreSQL and a Redis, where `createdb` makes it one: the test one, fsync and
synchronous_commit off).

Measured 2026-11-29, late evening (three runs, then two `--deployed`), after a team's
own reads were served from ASGI, a CHaser server's lines kept in its machine's journal
on PostgreSQL and a fast game's turns stored 0.1 s apart behind it: Kakomimasu
65.4-78.9 matches a minute with one worker (32.7-39.5 a core), 68.2-89.6 with two
(34.1-44.8); on PostgreSQL 41.0-44.5 (20.5-22.3 a core), 40.8-42.0 with two. CHaser,
hosted 0.15-0.22 s for 125 turns (median of the 9 games 0.17), chsr.rb 0.20-0.24 (median
0.20), a program's line to its next p50 0.21-0.22 ms, p99 3.7-3.9 ms; on PostgreSQL hosted
0.12-0.19 s (median 0.17), chsr.rb 0.19-0.24 s, p50 0.15-0.16 ms, p99 7.5-7.9 ms. (Earlier
that evening: Kakomimasu 30.2-35.5 a core on SQLite, 19.2-20.6 on PostgreSQL; CHaser on
PostgreSQL 0.45-0.48 s against chsr.rb's 0.17, each line a round trip to PostgreSQL
before its answer.)
Ctrl-C stops it and everything it started.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROGRAM = """
    import json, os, time, urllib.error, urllib.request

    BASE, TOKEN, MATCH = (os.environ[name] for name in
                          ("SPECTATOR_URL", "SPECTATOR_TOKEN", "SPECTATOR_MATCH"))

    def call(method, path, body=None):
        request = urllib.request.Request(BASE + path, method=method, headers={
            "Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
            data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            return json.load(error)

    answered = None
    while True:
        match = call("GET", f"/api/matches/{MATCH}")
        if match.get("status") == "finished":
            break
        step = match.get("strategy_turn")
        if match.get("status") == "running" and step and step != answered:
            call("POST", f"/api/matches/{MATCH}/actions", {"turn": step, "actions": []})
            answered = step
        time.sleep(0.05)
"""


READER = """
    import os, socket, time

    connection = socket.create_connection(("127.0.0.1", int(os.environ["CHASER_PORT"])))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stream = connection.makefile("rwb")
    reads = ["lu", "sr", "ld", "sl", "su", "lr", "sd", "ll"]

    def send(text):
        stream.write(text.encode() + b"\\r\\n")
        stream.flush()

    send("reader")
    step, began = 0, None
    while stream.readline().strip() == b"@":
        began = began or time.time()
        send("gr")
        ready = stream.readline()
        if not ready or ready[:1] == b"0":
            break
        send(reads[step % len(reads)])
        answer = stream.readline()
        if not answer or answer[:1] == b"0":
            break
        send("#")
        step += 1
    if os.environ.get("BENCH_TIMES"):  # (--chsr: its first `@` and its end, for the bench)
        with open(os.environ["BENCH_TIMES"], "a") as times:
            times.write(f"{began} {time.time()}\\n")
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"the server did not listen on {port}")


class Started:
    """The processes the bench started, ended together (Ctrl-C, SIGTERM, the end)."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen] = []

    def start(self, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        with open(log, "ab") as output:
            process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=output,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process

    def stop(self, processes: list[subprocess.Popen] | None = None) -> None:
        for process in processes if processes is not None else self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes if processes is not None else self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def round_of(count: int, turns: int, programs: tuple[int, int]) -> tuple[float, int]:
    """Start `count` scrimmages at once; (seconds from the first start to the last end,
    how many finished with every turn played)."""
    from datetime import timedelta

    from django.utils import timezone

    from matches.models import HostedRun, Match
    from matches.services.matches import Timing
    from matches.services.programs import scrimmage_start

    start = timezone.now()
    timing = Timing(turns=turns, strategy_seconds=5, transition_seconds=0.1)
    matches = [scrimmage_start(programs, board="A-1", timing=timing, now=start)
               for _ in range(count)]
    ids = [match.pk for match in matches]
    while True:
        runs = HostedRun.objects.filter(match_id__in=ids)
        if set(runs.values_list("status", flat=True)) == {HostedRun.DONE}:
            break
        if timezone.now() - start > timedelta(minutes=10):
            raise SystemExit("ten minutes and the round is not over")
        time.sleep(0.5)
    ended = list(Match.objects.filter(pk__in=ids))
    first = min(match.start_at for match in ended)  # (a fast one starts once it is taken)
    last = max(match.deadline(match.turns) for match in ended)
    complete = sum(1 for match in ended if match.resolved_turns == match.turns)
    return (last - first).total_seconds(), complete


def chaser_match(programs: tuple[int, int], turns: int) -> None:
    """A hosted CHaser scrimmage: each game's time and the programs' steps, printed."""
    from django.utils import timezone

    from matches.models import HostedRun, Match, Submission
    from matches.services.matches import Timing
    from matches.services.programs import scrimmage_start

    match = scrimmage_start(programs, board="akisato_m01", timing=Timing(turns=turns),
                            now=timezone.now())
    deadline = time.monotonic() + 300
    while set(HostedRun.objects.filter(match=match).values_list("status", flat=True)) \
            != {HostedRun.DONE}:
        if time.monotonic() > deadline:
            raise SystemExit("five minutes and the CHaser match is not over")
        time.sleep(0.5)
    steps: list[float] = []
    for game in [match, *Match.objects.filter(first_game=match).order_by("pk")]:
        game = Match.objects.get(pk=game.pk)
        # (from the first line of turn 1, the answer to the first `@`, as chsr.rb's games
        # are timed from it: not from the name lines, which wait for the other program)
        times = sorted(Submission.objects.filter(match=game, team__isnull=False,
                                                 turn__isnull=False)
                       .values_list("received_at", flat=True))
        if len(times) < 2:
            continue
        by_team: dict[int, list] = {}
        for team, at in Submission.objects.filter(match=game, team__isnull=False) \
                .values_list("team__index", "received_at").order_by("received_at"):
            by_team.setdefault(team, []).append(at)
        for seen in by_team.values():
            steps += [(b - a).total_seconds() * 1000 for a, b in zip(seen, seen[1:], strict=False)]
        print(f"CHaser game {game.pk}: {game.resolved_turns} turns, {len(times)} lines "
              f"stored, {(times[-1] - times[0]).total_seconds():.2f} s "
              f"({(times[-1] - times[0]).total_seconds() * 125 / max(1, game.resolved_turns):.2f}"
              " s for 125 turns)")
    steps.sort()
    if steps:
        print(f"a program's lines, one to the next: p50 {steps[len(steps) // 2]:.2f} ms, "
              f"p99 {steps[int(len(steps) * 0.99)]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--chaser-turns", type=int, default=125)
    parser.add_argument("--chsr", help="the path of chsr.rb: the same CHaser programs on it")
    parser.add_argument("--chaser-only", action="store_true",
                        help="the CHaser match (and chsr.rb's games) only")
    parser.add_argument("--deployed", action="store_true",
                        help="on DATABASE_URL's PostgreSQL and REDIS_URL's Redis")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-hosted-"))
    os.environ.update(SPECTATOR_VAR_DIR=str(scratch), SPECTATOR_DEMO_HOSTED="0",
                      SPECTATOR_LADDER_GAMES_AN_HOUR="0",
                      DJANGO_SETTINGS_MODULE="spectator.settings")
    if not options.deployed:
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
    elif not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("--deployed: set DATABASE_URL and REDIS_URL")
    started = Started()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        run(options, scratch, started)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        started.stop()


def handed_in(source: Path, game: str, teams: tuple[str, str]) -> tuple[int, int]:
    """The two teams' programs (the same Python source), as uploadprogram prints their ids."""
    from django.core.management import call_command

    ids = []
    for team in teams:
        printed = io.StringIO()
        call_command("uploadprogram", str(source), "--team", team, "--game", game,
                     "--language", "python", stdout=printed)
        ids.append(int(printed.getvalue().split()[-1]))
    return ids[0], ids[1]


def run(options, scratch: Path, started: Started) -> None:
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=ROOT, check=True)
    import django

    django.setup()

    from matches.hosting import sandbox

    why = sandbox.available()
    if why:
        raise SystemExit(f"no sandbox here: {why}")
    source = scratch / "main.py"
    source.write_text(textwrap.dedent(PROGRAM))
    programs = handed_in(source, "kakomimasu", ("Bench A", "Bench B"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started.start([python, "manage.py", "demo", "--no-bots", "--port", str(port)],
                  dict(os.environ), scratch / "server.log")
    wait_for_port(port)
    cores = os.cpu_count() or 1
    if not options.chaser_only:
        print(f"{options.matches} hosted Kakomimasu scrimmages at once, {options.turns} "
              f"turns, fast play; {cores} cores")
    workers: list[subprocess.Popen] = []
    for count in (1,) if options.chaser_only else (1, 2):
        while len(workers) < count:
            workers.append(started.start(
                [python, "-m", "celery", "-A", "spectator", "worker", "--pool", "threads",
                 "--concurrency", str(2 * options.matches), "--without-mingle",
                 "--without-gossip", "--loglevel", "WARNING", "-n", f"bench{len(workers)}@%h"],
                dict(os.environ, SPECTATOR_HOSTED_SERVER=base), scratch / "worker.log"))
        time.sleep(3)  # (the workers' start)
        if options.chaser_only:
            break
        seconds, complete = round_of(options.matches, options.turns, tuple(programs))
        per_minute = options.matches / seconds * 60
        print(f"{count} worker(s): {seconds:6.1f} s, {complete}/{options.matches} played "
              f"out; {per_minute:5.1f} matches a minute, {per_minute / cores:5.1f} a core")
    reader = scratch / "reader.py"
    reader.write_text(textwrap.dedent(READER))
    chaser_match(handed_in(reader, "chaser", ("Reader A", "Reader B")), options.chaser_turns)
    if options.chsr:
        chsr_games(Path(options.chsr), reader, options.chaser_turns, scratch)


def chsr_games(path: Path, reader: Path, turns: int, scratch: Path) -> None:
    """The same two programs, each a process of its own (no sandbox), on the public Ruby
    server chsr.rb (its fixed ports 2009 and 2010, `-w 0`, the same map with its turns
    set): each game's time from the first `@` either program read to the later's end."""
    text = (ROOT / "matches" / "boards" / "chaser" / "akisato_m01.map").read_text()
    map_file = scratch / "chsr.map"
    map_file.write_text("\n".join(f"T:{turns}" if line.startswith("T:") else line
                                  for line in text.splitlines()) + "\n")
    for number in range(1, 4):
        times = scratch / f"chsr-{number}.times"
        server = subprocess.Popen(["ruby", str(path), "-w", "0", "-m", str(map_file)],
                                  cwd=path.parent, stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            programs = [subprocess.Popen([sys.executable, str(reader)], env=dict(
                os.environ, CHASER_PORT=str(port), BENCH_TIMES=str(times)))
                for port in (2009, 2010)]
            time.sleep(0.5)
            server.stdin.write(b"\n")  # its Enter, once both are connected
            server.stdin.flush()
            for program in programs:
                program.wait(60)
        finally:
            server.kill()
            server.wait()
        spans = [tuple(map(float, line.split())) for line in times.read_text().splitlines()]
        seconds = max(end for _, end in spans) - min(begun for begun, _ in spans)
        print(f"chsr.rb game {number}: the same programs, no sandbox, {seconds:.2f} s "
              f"({seconds * 125 / turns:.2f} s for 125 turns)")


if __name__ == "__main__":
    main()
