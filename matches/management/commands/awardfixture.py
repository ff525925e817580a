"""python manage.py awardfixture FIXTURE TEAM --reason TEXT [--judge NAME]

Award a tournament's fixture to one of its teams, TEAM being its seed (0 the first) or
its name (docs/tournaments.md, "The judges' hand"): the other team forfeits. The
fixture's matches still under way are void at once; its result stands as the judges
gave it (`decided_by: "award"`), with the reason in its note. Refused (exit status 2,
one line) for no such fixture, a team not in it, a bye, or an empty reason.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.models import Fixture
from matches.tournaments.services import FixtureError, fixture_award


class Command(BaseCommand):
    help = "Award a fixture to one of its teams (the other forfeits)."

    def add_arguments(self, parser):
        parser.add_argument("fixture", type=int)
        parser.add_argument("team", help="its seed (0 the first) or its name")
        parser.add_argument("--reason", required=True, help="why, kept in the fixture's note")
        parser.add_argument("--judge", default="organiser", help="who awards it")

    def handle(self, *args, fixture: int, team: str, reason: str, judge: str, **options):
        found = Fixture.objects.select_related("tournament").filter(pk=fixture).first()
        if found is None:
            raise CommandError(f"there is no fixture {fixture}", returncode=2)
        entrants = {entrant.index: entrant.name
                    for entrant in found.tournament.entrants.filter(index__in=found.teams)}
        seed = int(team) if team.isdigit() else next(
            (index for index, name in entrants.items() if name.casefold() == team.casefold()),
            None)
        if seed not in entrants:
            raise CommandError(f"{team!r} is not a team of fixture {fixture} "
                               f"({' or '.join(entrants.values())})", returncode=2)
        try:
            fixture_award(fixture_id=fixture, winner=seed, note=reason, judge=judge)
        except FixtureError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"fixture {fixture} awarded to {entrants[seed]}: {reason.strip()}")
