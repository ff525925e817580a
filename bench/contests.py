"""A tournament's arithmetic and its page: python bench/contests.py [--teams 256]
[--rounds 9] [--repeat 20] [--page-teams 64]

(a) Plays --rounds Swiss rounds of --teams teams with random results (each round: the
    table by the GPCC rules, then the round's pairs from it, no rematches, a bye for an
    odd team out), and times the whole of it, pairing and tables, --repeat times.
    Goal (issue "Contests"): 256 teams over 9 rounds in under 50 ms.
(b) Stores a finished round robin of --page-teams teams (64: 2,016 fixtures, each with
    its match) in a scratch SQLite database, then times its page
    (`/tournaments/<id>/`, through Django's whole request handling) --repeat times.
    Goal: under 100 ms of server time.
Prints the median and the slowest of each.
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
    parser.add_argument("--page-teams", type=int, default=64)
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
    page(options.page_teams, options.repeat)


def page(teams: int, repeat: int) -> None:
    """(b): the standings page of a finished round robin, in a scratch database."""
    import os
    import tempfile

    scratch = tempfile.mkdtemp(prefix="bench-contests-")
    os.environ["SPECTATOR_VAR_DIR"] = scratch
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.utils import timezone

    from matches.models import Board, Fixture, Match
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create

    call_command("migrate", verbosity=0)
    created = tournament_create(Plan(
        name="Bench league", game="kakomimasu", format="round-robin",
        teams=[EntrantSpec(f"Team {n}", f"T{n}") for n in range(teams)],
        start_at=timezone.now(), public=True))
    tournament = created.tournament
    board = Board.objects.create(name="bench", game="kakomimasu", width=1, height=1,
                                 data={"width": 1, "height": 1, "points": [[0]]})
    rng = random.Random(1)
    fixtures = list(tournament.fixtures.all())
    now = timezone.now()
    for fixture in fixtures:
        outcome = rng.random()
        fixture.winner = None if outcome < 0.1 else fixture.team_a if outcome < 0.55 \
            else fixture.team_b
        fixture.finished_at, fixture.decided_by = now, "games"
        fixture.points = [{"total": rng.randrange(200), "wall": rng.randrange(100),
                           "territory": rng.randrange(100), "games": 0} for _ in range(2)]
    Fixture.objects.bulk_update(fixtures, ["winner", "finished_at", "decided_by", "points"])
    Match.objects.bulk_create([
        Match(game="kakomimasu", board=board, agents=1, turns=30, strategy_ms=1,
              transition_ms=1, start_at=now, resolved_turns=30, fixture=fixture,
              public_live=True) for fixture in fixtures])
    client = Client(HTTP_HOST="127.0.0.1")
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = client.get(f"/tournaments/{tournament.pk}/")
        times.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 200, answer.status_code
    print(f"The page of a finished round robin of {teams} teams ({len(fixtures)} fixtures), "
          f"{repeat} requests:")
    print(f"  median {statistics.median(times):.1f} ms, slowest {max(times):.1f} ms "
          f"(goal: under 100 ms); {len(answer.content) // 1024} KiB")


if __name__ == "__main__":
    main()
