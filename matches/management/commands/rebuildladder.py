"""python manage.py rebuildladder [--game GAME ...]

Make each game's practice ladder again from its kept finished practice games, in the
order they ended (docs/api.md, "Practice"). The ladder moves by itself as games end;
this is for a server upgraded from a version that rated every game again on each read
(run it once after `migrate`), or to check the stored ladder against its games. The
clocks may run meanwhile: a game that ends during the rebuild is rated all the same.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from matches.models import LadderStanding
from matches.rules import GAMES
from matches.services.ladder import ladder_rebuild


class Command(BaseCommand):
    help = "Make the practice ladder again from the kept finished practice games."

    def add_arguments(self, parser):
        parser.add_argument("--game", action="append", choices=GAMES,
                            help="only this game (again for more); every game by default")

    def handle(self, *args, game: list[str] | None, **options):
        for name in game or GAMES:
            rated = ladder_rebuild(name)
            teams = LadderStanding.objects.filter(game=name, kind=LadderStanding.TEAM).count()
            self.stdout.write(f"{name}: {rated} games rated, {teams} teams on the ladder")
