"""What a part of the test suite costs: python bench/suite.py [PYTEST ARGS...]

Runs pytest with the given arguments (default: the browser tests, two processes, as
make test hands them out) and prints the wall time and the CPU seconds the whole
machine was busy meanwhile, read from /proc/stat: the browsers, servers and commands
the tests start are counted too, which pytest's own durations leave out.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile",
           "--no-loadscope-reorder", "tests/e2e"]


def busy_and_idle() -> tuple[float, float]:
    """The machine's busy and idle CPU seconds since boot."""
    with open("/proc/stat") as stat:
        user, nice, system, idle, iowait, irq, softirq, steal = map(
            int, stat.readline().split()[1:9])
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq + steal) / tick, (idle + iowait) / tick


def main() -> None:
    args = sys.argv[1:] or DEFAULT
    busy0, idle0 = busy_and_idle()
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=ROOT)
    wall = time.monotonic() - start
    busy1, idle1 = busy_and_idle()
    print(f"pytest {' '.join(args)}: exit {done.returncode}, wall {wall:.0f} s, "
          f"machine busy {busy1 - busy0:.0f} CPU s, idle {idle1 - idle0:.0f} CPU s")


if __name__ == "__main__":
    main()
