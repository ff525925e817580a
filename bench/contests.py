"""A Swiss tournament's arithmetic: python bench/contests.py [--teams 256] [--rounds 9]
[--repeat 20]

Plays --rounds Swiss rounds of --teams teams with random results (each round: the
table by the GPCC rules, then the round's pairs from it, no rematches, a bye for an odd
team out), and times the whole of it, pairing and tables, --repeat times. Prints the
median and the slowest. Goal (issue "Contests"): 256 teams over 9 rounds in under 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matches.tournaments.pairing import swiss_round  # noqa: E402
from matches.tournaments.standings import FixtureResult, standings  # noqa: E402


def tournament(teams: int, rounds: int, seed: int) -> list:
    rng = random.Random(seed)
    results, played, byes, firsts = [], [], [], {}
    for _ in range(rounds):
        ranking = [row.team for row in standings(teams, results, "gpcc", byes)]
        pairs, bye = swiss_round(ranking, played, byes, firsts)
        if bye is not None:
            byes.append(bye)
        for first, second in pairs:
            played.append((first, second))
            firsts[first] = firsts.get(first, 0) + 1
            outcome = rng.random()
            winner = None if outcome < 0.1 else first if outcome < 0.55 else second
            results.append(FixtureResult((first, second), winner))
    return standings(teams, results, "gpcc", byes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--teams", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=20)
    options = parser.parse_args()
    times = []
    for seed in range(options.repeat):
        start = time.perf_counter()
        table = tournament(options.teams, options.rounds, seed)
        times.append((time.perf_counter() - start) * 1000)
    print(f"Swiss, {options.teams} teams, {options.rounds} rounds (pairing and GPCC tables "
          f"each round), {options.repeat} tournaments:")
    print(f"  median {statistics.median(times):.1f} ms, slowest {max(times):.1f} ms "
          f"(goal: under 50 ms); the last winner scored {table[0].score}")


if __name__ == "__main__":
    main()
