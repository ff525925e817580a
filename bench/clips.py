"""How long an animated GIF of a match takes (matches/clips.py), and how large it is:
100 turns of a 24 x 24 Kakomimasu match between built-in players, drawn as
/matches/<id>/replay.gif draws it, best and median of several runs.

    .venv/bin/python bench/clips.py [--runs 5]

The goal (issue "Teams learn from their matches"): under 600 ms and under 1 MB on the
project's machine. The figures are printed, not asserted: timing is no test."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--side", type=int, default=24)
    parser.add_argument("--turns", type=int, default=100)
    options = parser.parse_args()

    from matches.bots import bots_for
    from matches.bots.arena import play_match
    from matches.clips import clip_gif
    from matches.rules import rules_for
    from matches.rules.records import MatchRecord
    from matches.rules.timeline import states

    rng = random.Random(1)
    side = options.side
    board = {"width": side, "height": side,
             "points": [[rng.randint(-16, 16) for _ in range(side)] for _ in range(side)]}
    bots = bots_for("kakomimasu")
    played = play_match("kakomimasu", board, 8, options.turns, (bots["greedy"], bots["random"]),
                        seed=3)
    record = MatchRecord(game="kakomimasu", board=board, agents=8, turns=options.turns,
                         teams=({"name": "奈良高専"}, {"name": "Hà Nội"}),
                         actions=played.actions)
    views = [view for _, view in states(record)]
    rules = rules_for("kakomimasu")
    times = []
    for _ in range(options.runs):
        started = time.perf_counter()
        gif = clip_gif(rules, board, views, teams=["奈良高専", "Hà Nội"], turns=options.turns,
                       turn_word="turn")
        times.append((time.perf_counter() - started) * 1000)
    print(f"{len(views)} frames of a {side}x{side} Kakomimasu board: "
          f"best {min(times):.0f} ms, median {statistics.median(times):.0f} ms, "
          f"{len(gif) / 1024:.0f} KiB (goal: under 600 ms and 1024 KiB)")


if __name__ == "__main__":
    main()
