"""python manage.py exportrecord ID [-o RECORD.json] [--debug]

Write a match's match-record/1: its board, teams and the counted actions of every
resolved turn; with `--debug`, its teams' debug output too (docs/formats.md, "Debug"),
which a record published with it carries anyway. A match whose record could not be
read back (a string no UTF-8 text can hold, in an action a team sent) is refused with
one line naming the field, and
exit status 2; so is a game whose board is secret until it starts (Procon 2020's second
field), as the API refuses its record to everyone, judges included. A file is written
whole or not at all.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from matches.management.helpers import write_output
from matches.models import Match
from matches.rules.checks import RecordError, plain_strings
from matches.selectors import match_export


class Command(BaseCommand):
    help = "Write the match-record/1 of a match (stdout by default)."

    def add_arguments(self, parser):
        parser.add_argument("match_id", type=int)
        parser.add_argument("-o", "--output", help="write the record to this file")
        parser.add_argument("--debug", action="store_true",
                            help="with both teams' debug output, turn by turn")

    def handle(self, *args, match_id: int, output: str | None, debug: bool = False, **options):
        match = Match.objects.select_related("board").filter(pk=match_id).first()
        if match is None:
            raise CommandError(f"there is no match {match_id}", returncode=2)
        if match.board_hidden(timezone.now()):
            raise CommandError(f"match {match_id}: its board is secret until its game starts",
                               returncode=2)
        record = match_export(match, debug=True if debug else None)
        try:
            plain_strings(record)
        except RecordError as error:
            raise CommandError(f"match {match_id}: {error}", returncode=2) from None
        write_output(self, output, json.dumps(record, ensure_ascii=False) + "\n")
