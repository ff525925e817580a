"""python manage.py mapfile FILE.map [-o RECORD.json]

Print the match-record/1 of a CHaser map file: its board (cells and the start
cells of Cool and Hot) and its number of turns, with no actions yet. A malformed
map is refused with one line naming the map's line, and exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.management.helpers import read_input, write_output
from matches.rules.files import map_record
from matches.rules.records import RecordError


class Command(BaseCommand):
    help = "Print the match-record/1 of a CHaser map file (N:/T:/S:/D:/C:/H: lines)."
    requires_system_checks: list = []  # pure computation: no database

    def add_arguments(self, parser):
        parser.add_argument("map", help="a CHaser .map file, or - for stdin")
        parser.add_argument("-o", "--output", help="write the record to this file")

    def handle(self, *args, map: str, output: str | None, **options):
        raw = read_input(map)
        try:
            record = map_record(raw.decode("utf-8"), name=Path(map).stem if map != "-" else "")
        except UnicodeDecodeError as error:
            raise CommandError(f"{map}: byte {error.start} is not UTF-8 text",
                               returncode=2) from None
        except RecordError as error:
            raise CommandError(f"{map}: {error}", returncode=2) from None
        text = json.dumps(record, ensure_ascii=False)
        write_output(self, output, text + "\n")
