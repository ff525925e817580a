"""Rules-engine speed, in-process: python bench/rules.py [--repeat N]

For each benchmark match it prints the mean and p99 time of resolving one turn,
and the time to compute the whole timeline/1 (median of the repeats).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from matches.rules import rules_for  # noqa: E402
from matches.rules.records import parse_record  # noqa: E402
from matches.rules.timeline import compute_timeline  # noqa: E402

VECTORS = ROOT / "tests" / "conformance"
MATCHES = [
    ("kakomimasu", "random24_s42_0", "24x24, 14 agents a team, 100 turns"),
    ("kakomimasu", "stress_nested12", "twelve nested rings built and broken"),
]


def turn_times(record) -> list[float]:
    rules = rules_for(record.game)
    state = rules.initial_state(record)
    times = []
    for actions in record.actions:
        start = time.perf_counter()
        state, _ = rules.resolve_turn(state, actions)
        times.append(time.perf_counter() - start)
    return times


def timeline_time(record) -> float:
    start = time.perf_counter()
    compute_timeline(record)
    return time.perf_counter() - start


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat
    print(f"{'match':<18} {'turns':>5} {'turn mean':>10} {'turn p99':>10} {'timeline':>10}")
    for game, name, about in MATCHES:
        record = parse_record((VECTORS / game / f"{name}.record.json").read_text())
        timeline_time(record)  # warm up imports and caches
        turns = [t for _ in range(repeat) for t in turn_times(record)]
        whole = statistics.median(timeline_time(record) for _ in range(repeat))
        print(
            f"{name:<18} {len(record.actions):>5} {statistics.mean(turns) * 1e3:>8.3f}ms"
            f" {percentile(turns, 0.99) * 1e3:>8.3f}ms {whole * 1e3:>8.2f}ms   {about}"
        )


if __name__ == "__main__":
    main()
