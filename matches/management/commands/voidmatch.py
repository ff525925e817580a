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


class ControlCommand(BaseCommand):
    """A judges' action on one match (voidmatch, pausematch, resumematch, extendmatch):
    its id and who acts; `act` returns the line said, a ControlError the one-line
    refusal."""

    def add_arguments(self, parser):
        parser.add_argument("match", type=int)
        parser.add_argument("--judge", default="organiser", help="who acts (the audit)")

    def handle(self, *args, match: int, **options):
        if not Match.objects.filter(pk=match).exists():
            raise CommandError(f"there is no match {match}", returncode=2)
        try:
            said = self.act(match, **options)
        except ControlError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(said)

    def act(self, match: int, judge: str, **options) -> str:
        raise NotImplementedError


class Command(ControlCommand):
    help = "Void a match: it has no result and counts nowhere (a tournament plays it again)."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--reason", required=True, help="why, as the screens show it")

    def act(self, match: int, judge: str, reason: str, **options) -> str:
        first = match_void(match_id=match, reason=reason, judge=judge)
        return f"match {first.pk} is void: {first.result['reason']}"
