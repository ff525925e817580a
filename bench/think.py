"""Level 4's thinking time on the largest boards: python bench/think.py [--games 1]
[--budget 0 --budget 1 --budget 3]

Level 4 plays a whole match against itself, in-process on the pure rules, on the
largest boards the grid games are played on: Kakomimasu 24×24 with 14 agents (30
turns) and Procon 2020 20×20 with 8 agents (30 turns), each cell's points drawn from a
seeded generator. For each budget (0: none, the bot's quick fixed work) prints each
game's think time a move, p50 and the longest, and how many actions the rules judged
not ok: a level must never run past its budget (the seats give it its step's time left,
services/seats.py). One process: the machine may be shared.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def largest_boards() -> list[tuple[str, str, dict, int]]:
    """(game, label, board, agents) of the largest boards."""
    from matches.rules import rules_for

    rng = random.Random(5)
    kakomimasu = {"width": 24, "height": 24,
                  "points": [[rng.randint(-4, 16) for _ in range(24)] for _ in range(24)]}
    rng = random.Random(9)
    half = [[rng.randint(-4, 16) for _ in range(10)] for _ in range(20)]
    starts = [(1 + 2 * i, 2 + (i % 2) * 15) for i in range(8)]
    procon = rules_for("procon2020").parse_board({
        "width": 20, "height": 20, "points": [row + row[::-1] for row in half],
        "obstacles": [[9, 9], [10, 9]],
        "treasures": [{"x": 4, "y": 10, "point": 12}, {"x": 15, "y": 10, "point": 12}],
        "start": [[list(c) for c in starts], [[19 - x, y] for x, y in starts]]})
    return [("kakomimasu", "Kakomimasu 24×24, 14 agents", kakomimasu, 14),
            ("procon2020", "Procon 2020 20×20, 8 agents", procon, 8)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="matches a board and budget")
    parser.add_argument("--budget", type=float, action="append",
                        help="seconds a move (repeatable; 0: none); default 0 and 1")
    parser.add_argument("--turns", type=int, default=30)
    options = parser.parse_args()
    from matches.bots import arena, bots_for, levels

    budgets = options.budget or [0.0, 1.0]
    print(f"{'board':<30} {'budget':>7} {'moves':>6} {'p50':>9} {'longest':>9}  not ok")
    try:
        for game, label, board, agents in largest_boards():
            level4 = bots_for(game)[levels(game)[3]]
            for budget in budgets:
                think: list[float] = []
                faults = 0
                for seed in range(options.games):
                    given = budget or None
                    played = arena.play_match(game, board, agents, options.turns,
                                              (level4, level4), seed=seed,
                                              budgets=(given, given))
                    think += played.think[0] + played.think[1]
                    faults += sum(played.faults)
                print(f"{label:<30} {budget or 'none':>7} {len(think):>6} "
                      f"{1000 * statistics.median(think):>7.0f}ms {1000 * max(think):>7.0f}ms"
                      f"  {faults}", flush=True)
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
