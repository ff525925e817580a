"""python manage.py voidmatch ID --reason TEXT [--judge NAME]

Void a match (docs/tournaments.md, "The judges' hand"): it has no result and counts
nowhere, it stops at once if it is running, and every screen shows "Void by the judges:
<reason>". A tournament's fixture then plays another match at once. Every game of a
match of several goes with it. Refused (exit status 2, one line) for no such match, an
empty reason, or a match that is void already.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.models import Match
from matches.services.control import ControlError, match_void


class Command(BaseCommand):
    help = "Void a match: it has no result and counts nowhere (a tournament plays it again)."

    def add_arguments(self, parser):
        parser.add_argument("match", type=int)
        parser.add_argument("--reason", required=True, help="why, as the screens show it")
        parser.add_argument("--judge", default="organiser", help="who voids it (the audit)")

    def handle(self, *args, match: int, reason: str, judge: str, **options):
        if not Match.objects.filter(pk=match).exists():
            raise CommandError(f"there is no match {match}", returncode=2)
        try:
            first = match_void(match_id=match, reason=reason, judge=judge)
        except ControlError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"match {first.pk} is void: {first.result['reason']}")
