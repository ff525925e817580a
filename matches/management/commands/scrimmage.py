"""python manage.py scrimmage PROGRAM PROGRAM [--board NAME] [--turns N]
[--strategy-seconds S] [--transition-seconds S] [--clock S] [--hall] [--json]

A match between two hosted programs' latest built versions (their ids, as
`uploadprogram` printed them), played by the workers with nobody at a keyboard
(docs/programs.md). Prints the match's id; watch it at /matches/ID/. Played fast (a
turn closes once both programs have answered) unless `--hall` keeps the timing to the
second, for an audience.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from matches.services.matches import Timing
from matches.services.programs import ProgramError, scrimmage_start


class Command(BaseCommand):
    help = "Start a match between two hosted programs (played by the workers)."

    def add_arguments(self, parser):
        parser.add_argument("programs", nargs=2, type=int, metavar="PROGRAM")
        parser.add_argument("--board", help="a board's name, or random (default)")
        parser.add_argument("--turns", type=int)
        parser.add_argument("--strategy-seconds", type=float)
        parser.add_argument("--transition-seconds", type=float)
        parser.add_argument("--clock", type=float, help="each team's thinking time "
                                                        "(alternating games)")
        parser.add_argument("--hall", action="store_true",
                            help="keep the timing to the second (for an audience); "
                                 "without it, a turn closes once both have answered")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, programs: list[int], **options):
        timing = Timing(turns=options["turns"], strategy_seconds=options["strategy_seconds"],
                        transition_seconds=options["transition_seconds"],
                        clock_seconds=options["clock"])
        try:
            match = scrimmage_start((programs[0], programs[1]), board=options["board"],
                                    timing=timing, fast=not options["hall"])
        except ProgramError as error:
            raise CommandError(f"{error.code}: {error.detail}", returncode=2) from None
        if options["json"]:
            self.stdout.write(json.dumps({"match": match.pk, "game": match.game,
                                          "start_at": match.start_at.isoformat(),
                                          "watch": f"/matches/{match.pk}/"}))
        else:
            self.stdout.write(str(match.pk))
