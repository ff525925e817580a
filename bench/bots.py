"""How long the built-in Kakomimasu bots think: python bench/bots.py [--turns 14]

In this process, on a scratch SQLite database: a match on each of three public boards
(A-1, Kakom-1, F-1) played --turns turns by the greedy bot for both teams; then each
bot is timed on every position of those games, for each team, and the mean and worst
call are printed. The demo's tournament runs these bots on the clock's thread (issue
"Work in proportion to what happens"), so their time is the clock's time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=14)
    turns = parser.parse_args().turns
    os.environ.update(SPECTATOR_VAR_DIR=tempfile.mkdtemp(prefix="bench-bots-"),
                      LOG_LEVEL="ERROR")
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from matches.bots import kakomimasu
    from matches.models import Match
    from matches.selectors.texts import public_state_text
    from matches.services.submissions import submission_by_bot
    from matches.services.transition import turn_resolve

    call_command("migrate", verbosity=0)
    positions = []
    for board in ("A-1", "Kakom-1", "F-1"):
        call_command("creatematch", "--board", board, "--teams", "A", "B", "--start-in", "0",
                     "--strategy-seconds", "1", "--transition-seconds", "0", verbosity=0,
                     stdout=open(os.devnull, "w"))  # noqa: SIM115
        match = Match.objects.order_by("-pk").first()
        for turn in range(1, turns + 1):
            match.refresh_from_db()
            at = match.opens_at(turn)
            state = json.loads(public_state_text(match, None, at))
            positions.append(state)
            for team in match.teams.all():
                actions = kakomimasu.greedy_bot(state, team.index, random.Random(turn))
                submission_by_bot(team, {"actions": actions, "turn": turn}, at, "greedy")
            turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    for name, bot in kakomimasu.BOTS.items():
        times = []
        for state in positions:
            for team in (0, 1):
                began = time.perf_counter()
                bot(state, team, random.Random(5))
                times.append((time.perf_counter() - began) * 1000)
        print(f"{name:7s} {len(times)} calls: mean {statistics.mean(times):.2f} ms, "
              f"worst {max(times):.2f} ms")


if __name__ == "__main__":
    main()
