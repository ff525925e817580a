"""What a what-if's process costs, and that pictures never wait behind what-ifs:
python bench/jobs.py [--runs 20]

Prints (matches/jobs.py, matches/selectors/whatif.py):
- the start of a job: the first one (which starts the fork server, importing the pure
  modules once), then each next one, as the round trip of a job that does nothing;
  beside it, what a fresh interpreter importing the same modules takes (`spawn`);
- how long level-4 players think a turn, on a contest's board and on the largest (the
  figure behind WHATIF_SECONDS);
- a 64x64 board's picture drawn alone, then while WHATIFS_AT_ONCE what-ifs of minutes
  are being computed; and that a what-if past its budget ends with it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import operator
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")


def record(side: int, agents: int) -> dict:
    rng = random.Random(side)
    return {"format": "match-record/1", "game": "kakomimasu", "title": "bench",
            "board": {"width": side, "height": side,
                      "points": [[rng.randint(-4, 16) for _ in range(side)]
                                 for _ in range(side)]},
            "agents": agents, "turns": 200, "teams": [{"name": "A"}, {"name": "B"}],
            "actions": []}


def level_4(turns: int) -> dict:
    return {"turns": turns, "teams": {"0": "level-4", "1": "level-4"}}


def milliseconds(seconds: list[float]) -> str:
    return (f"median {statistics.median(seconds) * 1000:.1f} ms, min {min(seconds) * 1000:.1f},"
            f" max {max(seconds) * 1000:.1f}")


def start_cost(runs: int) -> None:
    from matches import jobs

    kind = jobs.Jobs("bench", 1, tempfile.mkdtemp(prefix="bench-jobs-"))
    began = time.perf_counter()
    kind.run(operator.add, 1, 1, seconds=60)
    first = time.perf_counter() - began
    each = []
    for _ in range(runs):
        began = time.perf_counter()
        kind.run(operator.add, 1, 1, seconds=60)
        each.append(time.perf_counter() - began)
    print(f"first job (starts the fork server): {first * 1000:.0f} ms")
    print(f"each next job, started and answered: {milliseconds(each)} over {runs} runs")
    spawned = []
    context = multiprocessing.get_context("spawn")
    for _ in range(min(runs, 5)):
        began = time.perf_counter()
        process = context.Process(target=__import__, args=("matches.variations",))
        process.start()
        process.join()
        spawned.append(time.perf_counter() - began)
    print(f"a fresh interpreter importing the same (spawn): {milliseconds(spawned)}")


def thinking() -> None:
    from matches.variations import whatif_play

    for side, agents in ((20, 8), (64, 30)):
        began = time.perf_counter()
        whatif_play(record(side, agents), 0, [], level_4(3), "bench")
        print(f"level 4 against level 4, {side}x{side}, {agents} agents a team: "
              f"{(time.perf_counter() - began) / 3:.2f} s a turn")


def pictures_beside_whatifs() -> None:
    import django

    django.setup()
    from matches import drawing
    from matches.rules import rules_for
    from matches.rules.records import parse_record
    from matches.selectors import whatif
    from matches.variations import whatif_play

    big = record(64, 30)
    rules = rules_for("kakomimasu")
    state = rules.view(rules.initial_state(parse_record(big)))

    def picture() -> float:
        began = time.perf_counter()
        drawing.draw("kakomimasu", big["board"], state, "en", title="bench",
                     teams=["A", "B"], turns=200)
        return time.perf_counter() - began

    picture()  # the drawing worker started
    alone = [picture() for _ in range(3)]
    ended: list[str] = []

    def long_whatif() -> None:
        try:
            whatif.JOBS.run(whatif_play, big, 0, [], level_4(100), "bench",
                            seconds=whatif.WHATIF_SECONDS)
        except Exception as error:
            ended.append(type(error).__name__)

    began = time.perf_counter()
    running = [threading.Thread(target=long_whatif) for _ in range(whatif.WHATIFS_AT_ONCE)]
    for thread in running:
        thread.start()
    time.sleep(1.0)
    beside = [picture() for _ in range(3)]
    for thread in running:
        thread.join()
    print(f"a 64x64 picture drawn alone: {milliseconds(alone)}; while "
          f"{whatif.WHATIFS_AT_ONCE} what-ifs of minutes are computed: {milliseconds(beside)}")
    print(f"the what-ifs ended after {time.perf_counter() - began:.1f} s "
          f"(budget {whatif.WHATIF_SECONDS} s): {', '.join(ended)}; job processes left: "
          f"{len([p for p in multiprocessing.active_children() if p.name.endswith('-job')])}")
    drawing.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    start_cost(runs)
    thinking()
    pictures_beside_whatifs()


if __name__ == "__main__":
    main()
