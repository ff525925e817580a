"""python manage.py kifu RECORD.json [-o GAME.txt]

Write the game record (棋譜) of a Blokus Duo match record: one move a line in its
canonical code (smallest orientation number, then smallest position), `----` for
a pass, CRLF line ends. A record of another game, or one with a turn whose move
was not played (a game record cannot say so), is refused with exit status 2.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.management.helpers import read_input, write_output
from matches.rules.files import game_record_text
from matches.rules.records import RecordError, parse_record


class Command(BaseCommand):
    help = "Write the game record (棋譜) of a Blokus Duo match record."
    requires_system_checks: list = []  # pure computation: no database

    def add_arguments(self, parser):
        parser.add_argument("record", help="a match-record/1 JSON file, or - for stdin")
        parser.add_argument("-o", "--output", help="write the game record to this file")

    def handle(self, *args, record: str, output: str | None, **options):
        try:
            text = game_record_text(parse_record(read_input(record)))
        except RecordError as error:
            raise CommandError(f"{record}: {error}", returncode=2) from None
        write_output(self, output, text)  # CRLF as written: stdout adds no line end
