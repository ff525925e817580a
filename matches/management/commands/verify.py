"""python manage.py verify ID

Recompute a match from its stored counted actions and compare with its stored
turns. Prints "verified: ..." (exit 0) or the first differing turn and cell
(exit 1).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.models import Match
from matches.selectors import match_verify


class Command(BaseCommand):
    help = "Recompute a match from its counted actions and compare with its stored turns."

    def add_arguments(self, parser):
        parser.add_argument("match_id", type=int)

    def handle(self, *args, match_id: int, **options):
        match = Match.objects.select_related("board").filter(pk=match_id).first()
        if match is None:
            raise CommandError(f"there is no match {match_id}", returncode=2)
        verdict = match_verify(match)
        if not verdict.verified:
            raise CommandError(f"match {match_id} {verdict}", returncode=1)
        self.stdout.write(f"match {match_id} {verdict}")
