"""The work the system does on its own: python bench/clockload.py [--seconds 60]
[--matches 30] [--teams 60] [--ticks 200]

(a) Starts `make demo`'s server (its seven live matches: one of each game, a Swiss
    round of three Kakomimasu matches, CHaser at 0.3 s a step) in a scratch folder,
    waits 15 s, then reads the CPU time the server's process used over --seconds of
    wall time. Goal (issue "Work in proportion to what happens"): under 20 % of a core.
(b) In this process, on a scratch SQLite database: --matches live Kakomimasu matches
    with 1-second steps and a round robin of --teams teams (half of its fixtures playing
    a match at a time), then --ticks ticks of the clock as `runclock` runs them (turns,
    the tournaments' runner, the next wake-up), each timed and its SQL queries counted,
    the simulated time moving 0.1 s a tick, and what the parts of the ticks that
    resolve turns cost (--profile: where those ticks spend their time). Goal: tick
    p99 under 20 ms.
Prints the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from live import free_port, percentile  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def demo_cpu(seconds: float) -> None:
    scratch = tempfile.mkdtemp(prefix="bench-clockload-")
    port = free_port()
    env = dict(os.environ, SPECTATOR_VAR_DIR=scratch, LOG_LEVEL="WARNING")
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    demo = subprocess.Popen([sys.executable, "manage.py", "demo", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                time.sleep(0.5)
        time.sleep(15)  # every game under way
        used, began = cpu_seconds(demo.pid), time.monotonic()
        time.sleep(seconds)
        share = (cpu_seconds(demo.pid) - used) / (time.monotonic() - began)
    finally:
        os.killpg(demo.pid, signal.SIGINT)
        demo.wait(20)
    print(f"(a) the demo's server: {share * 100:.1f} % of a core over {seconds:.0f} s "
          f"(goal: under 20 %)")


def time_parts() -> dict[str, float]:
    """Wrap the parts of a turn's resolution in timers: their seconds by name, summed."""
    from matches.live import broadcast, messages, outbox
    from matches.services import clock, transition

    spent: dict[str, float] = {}

    def timed(module, name: str, label: str) -> None:
        inner = getattr(module, name)

        def wrapper(*args, **kwargs):
            began = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - began
        setattr(module, name, wrapper)

    collecting = {"since": 0.0}

    def collector(phase: str, info: dict) -> None:  # the garbage collector's passes
        if phase == "start":
            collecting["since"] = time.perf_counter()
        else:
            spent[label_gc] += time.perf_counter() - collecting["since"]

    label_gc = "the garbage collector"
    spent[label_gc] = 0.0
    gc.callbacks.append(collector)
    for module, name, label in (
            (transition, "_claim", "claiming and reading the matches"),
            (transition, "_counted", "the counted submissions' query"),
            (clock, "next_wakeup", "the next wake-up"),
            (broadcast, "turns_news", ANNOUNCING),
            (broadcast, "summary_news", "of which the lists' line"),
            (messages, "turn", "of which the turn's message")):
        spent[label] = 0.0
        timed(module, name, label)
    sending = "sending them (the loop)"
    spent[sending] = 0.0
    send_all = outbox._send_all

    async def sent_all(triples):  # when the outbox has sent a tick's turns
        began = time.perf_counter()
        await send_all(triples)
        spent[sending] += time.perf_counter() - began
        if any(message["type"] == "turn" for _, message, _ in triples):
            SENT.append(time.perf_counter())
    outbox._send_all = sent_all
    return spent


ANNOUNCING = "announcing them"  # the parts from here on are the announcer thread's
SENT: list[float] = []


def ticks(matches: int, teams: int, count: int, profiles: list | None = None) -> None:
    scratch = tempfile.mkdtemp(prefix="bench-clockload-")
    os.environ["SPECTATOR_VAR_DIR"] = scratch
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django
    from asgiref.sync import sync_to_async

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from matches.live.outbox import OUTBOX
    from matches.models import Turn
    from matches.responsive import keep_responsive
    from matches.services.clock import tick_and_wait

    parts = time_parts()
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create
    from tests.api.conftest import Clock

    call_command("migrate", verbosity=0)
    clock = Clock(timezone.now())
    timezone.now = clock.now  # every part reads the held time, as the tests do
    call_command("creatematch", "--board", "Kakom-1", "--teams", "A", "B", "--turns", "200",
                 "--strategy-seconds", "1", "--transition-seconds", "0.5", "--start-in", "1",
                 verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    for index in range(matches - 1):
        call_command("creatematch", "--board", "Kakom-1", "--teams", f"A{index}", f"B{index}",
                     "--turns", "200", "--strategy-seconds", "1", "--transition-seconds",
                     "0.5", "--start-in", "1", stdout=open(os.devnull, "w"))  # noqa: SIM115
    tournament_create(Plan(name="Bench cup", game="kakomimasu", format="round-robin",
                           teams=[EntrantSpec(f"T{i}") for i in range(teams)],
                           start_at=clock.now(), boards=["A-1"], turns=200,
                           strategy_seconds=1.0, transition_seconds=0.5,
                           parallel=teams // 4))
    clock.advance(2)
    keep_responsive()  # as `run_clock` does when it starts
    times, queries, resolved = [], [], []

    busy_parts = dict.fromkeys(parts, 0.0)

    began_busy: list[float] = []

    def tick(first: bool = False) -> None:
        before, spent = Turn.objects.count(), dict(parts)
        with CaptureQueriesContext(connection) as captured:
            profile = cProfile.Profile() if profiles is not None and not first else None
            if profile:
                profile.enable()
            began = time.perf_counter()
            tick_and_wait(woken=first)
            elapsed = (time.perf_counter() - began) * 1000
            if profile:
                profile.disable()
        if not first:
            times.append(elapsed)
            queries.append(len(captured))
            resolved.append(Turn.objects.count() - before)
            if resolved[-1] and profile:
                profiles.append(profile)  # only the ticks that resolve turns
            if resolved[-1]:
                began_busy.append(began)
                for label, seconds in parts.items():
                    busy_parts[label] += seconds - spent[label]

    async def run() -> None:  # as `runclock` runs its ticks: a thread of their own beside
        step = sync_to_async(tick, thread_sensitive=False,  # the event loop the
                             executor=ThreadPoolExecutor(max_workers=1))  # outbox sends from
        OUTBOX.serve_from(asyncio.get_running_loop())  # as `run_clock` does
        await step(True)  # the first reading, and the tournament's first matches
        for _ in range(count):
            clock.advance(0.1)
            await step()
        await OUTBOX.drained(5.0)  # the last turns sent

    asyncio.run(run())
    print(f"(b) {count} ticks with {matches} live matches and a round robin of {teams} teams "
          f"({teams // 4} matches of it at once), simulated 0.1 s apart:")
    print(f"    tick p50 {percentile(times, 0.5):.1f} ms, p99 {percentile(times, 0.99):.1f} ms, "
          f"max {max(times):.1f} ms (goal: p99 under 20 ms)")
    print(f"    SQL queries a tick: median {statistics.median(queries):.0f}, "
          f"max {max(queries)}")
    idle = [(ms, count) for ms, count, turns in zip(times, queries, resolved, strict=True)
            if not turns]
    busy = [(ms, turns) for ms, turns in zip(times, resolved, strict=True) if turns]
    busy_queries = [count for count, turns in zip(queries, resolved, strict=True) if turns]
    if idle:
        print(f"    {len(idle)} ticks with no turn due: p50 "
              f"{percentile([ms for ms, _ in idle], 0.5):.1f} ms, p99 "
              f"{percentile([ms for ms, _ in idle], 0.99):.1f} ms, queries median "
              f"{statistics.median([count for _, count in idle]):.0f}")
    if busy:
        each = [ms / turns for ms, turns in busy]
        print(f"    {len(busy)} ticks resolving {sum(t for _, t in busy)} turns "
              f"(up to {max(t for _, t in busy)} at once): {statistics.median(each):.1f} ms "
              f"a turn (median over those ticks)")
        print("    those ticks: " + ", ".join(
            f"{ms:.1f} ms ({turns} turns, {count} queries)"
            for (ms, turns), count in zip(busy, busy_queries, strict=True)))
        labels = list(parts)
        mine = labels[:labels.index(ANNOUNCING)]
        print("    of those ticks, on average: " + ", ".join(
            f"{label} {busy_parts[label] * 1000 / len(busy):.1f} ms" for label in mine))
        print("    then, off the clock's thread (the outbox), for each of those ticks: "
              + ", ".join(
            f"{label} {parts[label] * 1000 / len(busy):.1f} ms" for label in labels
            if label not in mine))
        sent = [(done - began) * 1000 for done, began in zip(SENT[-len(busy):], began_busy,
                                                             strict=True)]
        print(f"    a tick's turns all sent {percentile(sent, 0.5):.1f} ms after the tick "
              f"began (p50), {max(sent):.1f} ms at most")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--teams", type=int, default=60)
    parser.add_argument("--ticks", type=int, default=200)
    parser.add_argument("--only", choices=["demo", "ticks"])
    parser.add_argument("--profile", choices=["cumulative", "tottime"],
                        help="profile the ticks that resolve turns; print where their "
                             "time goes")
    options = parser.parse_args()
    if options.only != "ticks":
        demo_cpu(options.seconds)
    if options.only != "demo":
        profiles: list | None = [] if options.profile else None
        ticks(options.matches, options.teams, options.ticks, profiles)
        if profiles:
            pstats.Stats(*profiles).sort_stats(options.profile).print_stats(40)


if __name__ == "__main__":
    main()
