"""python manage.py uploadprogram --team NAME --game GAME --language LANG PATH [--json]

Hand in a new version of a team's program for a game, as a judge does for an entrant
that handed its program in (docs/programs.md), and build it in the sandbox. Prints the
program's id; a version that does not build is refused with its build's log (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.hosting.languages import LANGUAGES
from matches.services.programs import ProgramError, program_build, program_hand_in


class Command(BaseCommand):
    help = "Hand in a team's program (a file or a zip/tar archive) and build it."

    def add_arguments(self, parser):
        parser.add_argument("path", metavar="PATH", help="a source file, an executable, or "
                                                         "a zip or tar archive")
        parser.add_argument("--team", required=True, help="the team's name")
        parser.add_argument("--game", required=True)
        parser.add_argument("--language", required=True, choices=list(LANGUAGES))
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, path: str, team: str, game: str, language: str, **options):
        source = Path(path)
        try:
            data = source.read_bytes()
        except OSError as error:
            raise CommandError(f"PATH: {error.strerror}: {path}", returncode=2) from None
        try:
            version = program_hand_in(game=game, name=team, language=language,
                                      filename=source.name, data=data, by="judge:command")
        except ProgramError as error:
            raise CommandError(f"{error.code}: {error.detail}", returncode=2) from None
        version = program_build(version.pk)
        said = {"program": version.program_id, "version": version.number,
                "team": version.program.name, "game": version.program.game,
                "language": version.language, "status": version.status,
                "build_log": version.build_log}
        if options["json"]:
            self.stdout.write(json.dumps(said, ensure_ascii=False))
        elif version.status == version.READY:
            self.stdout.write(str(version.program_id))
        if version.status != version.READY:
            if not options["json"]:
                self.stderr.write(version.build_log)
            raise CommandError(f"version {version.number} of {team}'s {game} program "
                               "did not build (its log above)", returncode=1)
