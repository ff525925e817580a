"""What a process pays to start: python bench/startup.py [--runs 5]

Times `django.setup()` in fresh processes on the embedded default (no DATABASE_URL or
REDIS_URL), as every command, server and clock process (and each one the test suite
starts) pays it, and prints the CPU seconds of each run (user + system) and which heavy
client libraries were loaded (none on the embedded default since they are loaded
where they are used; with them at start it was over a second more, and daphne's app,
which brings Twisted, another half second: only `runserver` loads it now).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ("import sys, django; django.setup(); "
           "print(' '.join(sorted({n.split('.')[0] for n in sys.modules} "
           "& {'scipy', 'psycopg', 'redis', 'channels_redis', 'twisted'})) or '-')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "spectator.settings"
    seconds, loaded = [], ""
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        loaded = done.stdout.strip()
    print(f"django.setup() in a fresh process: CPU median {statistics.median(seconds):.2f} s, "
          f"min {min(seconds):.2f} s, max {max(seconds):.2f} s over {runs} runs")
    print(f"heavy client libraries loaded at start: {loaded}")


if __name__ == "__main__":
    main()
