"""The large reads of a long match, in-process: python bench/reads.py [--repeat N]

On a scratch SQLite database, imports bench/attack.py's published Kakomimasu match of
1,000 turns on a 64×64 board (24 agents a team), then builds each of its large reads
from nothing (every kept text forgotten first), as the first visitor after a server's
start does: the API's state (`GET /api/matches/{id}`), the replay page's data, the
timeline and the record. For each it prints the answer's size, the build's time
(median of the repeats) and the most Python memory the build held at once
(tracemalloc's peak, what a server process grows by while it builds), then the time of
a second read, served from what was kept.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="builds of each read")
    options = parser.parse_args()
    os.environ["SPECTATOR_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-reads-")
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django

    django.setup()
    from attack import big_record
    from django.core.management import call_command

    from matches.caches import caches_reset
    from matches.models import Match
    from matches.selectors import texts

    call_command("migrate", verbosity=0)
    record = Path(tempfile.gettempdir()) / "spectator-attack-big-record.json"
    if not record.exists():
        big_record(record)
    call_command("importrecord", str(record), "--publish", stdout=open(os.devnull, "w"))  # noqa: SIM115
    match = Match.objects.get()
    print(f"{match}: {match.resolved_turns} turns on "
          f"{match.board.data['width']}×{match.board.data['height']}, finished and published")
    builds = {
        "API state (GET /api/matches/{id})": lambda: texts.public_state_text(match, None),
        "replay page's data": lambda: texts.replay_text(match),
        "timeline": lambda: texts.timeline_text(match)[0],
        "record": lambda: texts.record_text(match)[0],
    }
    for name, build in builds.items():
        times = []
        for _ in range(options.repeat):
            caches_reset()
            began = time.perf_counter()
            size = len(build())
            times.append((time.perf_counter() - began) * 1000)
        caches_reset()
        tracemalloc.start()  # (a build of its own: tracing slows it down)
        build()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        began = time.perf_counter()
        build()
        again = (time.perf_counter() - began) * 1000
        print(f"{name:<36} {size / 2**20:6.1f} MiB  built in {statistics.median(times):7.1f} ms "
              f"(at most {peak:5.1f} MiB of Python memory at once)  read again in "
              f"{again:5.1f} ms")


if __name__ == "__main__":
    main()
