"""python manage.py exportrecord ID [-o RECORD.json]

Write a match's match-record/1: its board, teams and the counted actions of every
resolved turn.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.models import Match
from matches.selectors import match_export


class Command(BaseCommand):
    help = "Write the match-record/1 of a match (stdout by default)."

    def add_arguments(self, parser):
        parser.add_argument("match_id", type=int)
        parser.add_argument("-o", "--output", help="write the record to this file")

    def handle(self, *args, match_id: int, output: str | None, **options):
        match = Match.objects.select_related("board").filter(pk=match_id).first()
        if match is None:
            raise CommandError(f"there is no match {match_id}", returncode=2)
        text = json.dumps(match_export(match), ensure_ascii=False)
        if output:
            Path(output).write_text(text + "\n", encoding="utf-8")
        else:
            self.stdout.write(text)
