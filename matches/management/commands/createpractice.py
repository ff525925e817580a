"""python manage.py createpractice NAME [NAME ...] [--json]

Issue practice tokens: where the server's practice is for teams (SPECTATOR_PRACTICE=teams),
the holder of one may start practice matches (docs/api.md, "Practice") under its name,
weeks before a contest, with no contest match made for it. Each token is shown once.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from matches.models import PracticeTeam, new_token, token_hash
from matches.rules.checks import RecordError, team_names
from matches.services.matches import TEAM_NAME_LIMIT


class Command(BaseCommand):
    help = "Issue practice tokens for teams (shown once)."

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="+", metavar="NAME")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, names: list[str], **options):
        try:
            names = team_names(names, limit=TEAM_NAME_LIMIT, count=None)
        except RecordError as error:
            raise CommandError(f"NAME: {error}", returncode=2) from None
        taken = set(PracticeTeam.objects.filter(name__in=names).values_list("name", flat=True))
        if taken:
            raise CommandError(f"NAME: already a practice team: {', '.join(sorted(taken))}",
                               returncode=2)
        issued = []
        with transaction.atomic():
            for name in names:
                token = new_token()
                PracticeTeam.objects.create(name=name, token_hash=token_hash(token))
                issued.append({"name": name, "token": token})
        if options["json"]:
            self.stdout.write(json.dumps(issued, ensure_ascii=False))
            return
        for team in issued:
            self.stdout.write(f"{team['name']}: {team['token']}")
        self.stdout.write("Each token is shown this once; with SPECTATOR_PRACTICE=teams its "
                          "holder may start practice matches (docs/api.md, \"Practice\").")
