"""python manage.py importrecord RECORD [--publish]

Store a match record (match-record/1 of any game, or a Blokus Duo game record) as
a finished match whose turns the rules compute, and print the new match's id. A
bad record is refused with the records module's one-line error, exit status 2, and
nothing is stored.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.management.helpers import read_record
from matches.rules.records import RecordError
from matches.services.archive import match_import


class Command(BaseCommand):
    help = "Import a match record as a finished match; prints its id."

    def add_arguments(self, parser):
        parser.add_argument("record", help="a match-record/1 JSON file (or a Blokus Duo "
                                           "game record), or - for stdin")
        parser.add_argument("--publish", action="store_true",
                            help="publish it at once (otherwise judges and its teams only)")

    def handle(self, *args, record: str, publish: bool, **options):
        try:
            match = match_import(read_record(record), published=publish)
        except RecordError as error:  # well formed, but more than the database can hold
            raise CommandError(f"{record}: {error}", returncode=2) from None
        self.stdout.write(str(match.pk))
