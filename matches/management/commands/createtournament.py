"""python manage.py createtournament NAME --game GAME --format FORMAT (--teams NAME... |
--teams-file FILE.csv) [...]

Creates a tournament and prints its id, its page and every team's token (shown once;
one token a team, for all its matches). The turn clock (`runclock`, or the demo's)
plays it from its start; a CHaser tournament's games are played by `chaserserver
--tournament ID`: docs/tournaments.md.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from matches.boards.specs import BoardError
from matches.management.commands.creatematch import positive
from matches.management.helpers import delay_seconds, page_address, said_time
from matches.models import Program, Tournament
from matches.protocol_servers import server_for
from matches.rules import rules_for
from matches.rules.turns import is_protocol_played
from matches.services.boards import board_choose
from matches.tournaments.services import (
    TOURNAMENT_GAMES,
    EntrantSpec,
    Plan,
    TournamentError,
    teams_from_csv,
    tournament_create,
)


def teams_file(path: str) -> list[EntrantSpec]:
    """A CSV file of teams (`teams_from_csv`), UTF-8 with or without a BOM, as
    spreadsheets write it."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"--teams-file: {error}", returncode=2) from None
    try:
        return teams_from_csv(text)
    except TournamentError as error:
        raise CommandError(f"--teams-file: {error}", returncode=2) from None


class Command(BaseCommand):
    help = "Create a tournament; prints its id, its page and every team's token."

    @staticmethod
    def board_check(game: str, board: str) -> None:
        """A board (a map, for a game played over its own server) that can be played."""
        if is_protocol_played(rules_for(game)):
            problem = server_for(game).board_problem(board)
        else:
            try:
                board_choose(game, board)
                problem = ""
            except BoardError as error:
                problem = str(error)
        if problem:
            raise CommandError(f"--boards: {problem}", returncode=2)

    @staticmethod
    def programs(ids: list[int]) -> list[EntrantSpec]:
        """The teams of a tournament of hosted programs: each named after its program's
        team (CommandError for an id that is no program's)."""
        found = Program.objects.in_bulk(ids)
        missing = [str(pk) for pk in ids if pk not in found]
        if missing:
            raise CommandError(f"--programs: no program {', '.join(missing)}", returncode=2)
        return [EntrantSpec(found[pk].name, program=pk) for pk in ids]

    def add_arguments(self, parser):
        parser.add_argument("name", metavar="NAME")
        parser.add_argument("--game", choices=TOURNAMENT_GAMES, required=True)
        parser.add_argument("--format", required=True,
                            choices=[value for value, _ in Tournament.FORMATS])
        parser.add_argument("--rounds", type=positive(int),
                            help="Swiss: the rounds (default: log2 of the teams, rounded up)")
        parser.add_argument("--double", action="store_true",
                            help="round robin: every pair twice, the sides swapped")
        parser.add_argument("--groups", type=positive(int), default=0,
                            help="groups: how many groups (each a round robin)")
        parser.add_argument("--advance", type=positive(int), default=2,
                            help="groups: the teams of each group that go on (default 2)")
        parser.add_argument("--games-per-fixture", type=positive(int),
                            help="the games two teams play a fixture (default the game's own)")
        teams = parser.add_mutually_exclusive_group(required=True)
        teams.add_argument("--teams", nargs="+", metavar="NAME")
        teams.add_argument("--programs", nargs="+", type=int, metavar="PROGRAM",
                           help="hosted programs (their ids, as uploadprogram printed them): "
                                "each a team, named after its team, played by the workers "
                                "with its latest built version (docs/programs.md)")
        teams.add_argument("--teams-file", metavar="FILE.csv",
                           help="one team a row: name, short code, affiliation")
        parser.add_argument("--boards", nargs="+", metavar="NAME",
                            help="the boards, in turn (public names, files, random)")
        parser.add_argument("--turns", type=positive(int))
        parser.add_argument("--strategy-seconds", type=positive(float), default=5.0)
        parser.add_argument("--transition-seconds", type=float, default=1.0)
        parser.add_argument("--clock", type=positive(float), metavar="SECONDS",
                            help="alternating games: each team's thinking time a game")
        parser.add_argument("--start-in", type=float, default=60.0, metavar="SECONDS")
        parser.add_argument("--gap", type=float, default=30.0, metavar="SECONDS",
                            help="between a round's end and the next round (default 30)")
        parser.add_argument("--parallel", type=int, default=0,
                            help="matches at once at most (default: a whole round)")
        parser.add_argument("--bots", action="store_true",
                            help="built-in bots play every team (rehearsals, demos)")
        parser.add_argument("--public", action="store_true",
                            help="anyone may watch it and its matches live")
        parser.add_argument("--delay", type=delay_seconds, default=0, metavar="SECONDS",
                            help="the spectator delay: everyone but the judges and a "
                                 "match's own teams sees its matches this far behind")
        parser.add_argument("--rehearsal", action="store_true",
                            help="ask each team to pass a rehearsal first: win a practice "
                                 "match against level 1 with its token (the page shows who "
                                 "has)")
        parser.add_argument("--json", action="store_true",
                            help='print {"id", "teams": [{"name", "token"}]}')

    def handle(self, *args, **options):
        if options["programs"]:
            teams = self.programs(options["programs"])
        else:
            teams = (teams_file(options["teams_file"]) if options["teams_file"]
                     else [EntrantSpec(name) for name in options["teams"]])
        for board in options["boards"] or ():  # every board is readable before anything is stored
            self.board_check(options["game"], board)
        plan = Plan(
            name=options["name"], game=options["game"], format=options["format"], teams=teams,
            start_at=timezone.now() + timedelta(seconds=max(options["start_in"], 0)),
            rounds=options["rounds"], double=options["double"], groups=options["groups"],
            advance=options["advance"], games_per_fixture=options["games_per_fixture"],
            boards=options["boards"] or (), turns=options["turns"],
            strategy_seconds=options["strategy_seconds"],
            transition_seconds=options["transition_seconds"],
            clock_seconds=options["clock"], gap_seconds=options["gap"],
            parallel=options["parallel"], bots=options["bots"], public=options["public"],
            delay_seconds=options["delay"],
            extra={"rehearsal": True} if options["rehearsal"] else {})
        try:
            created = tournament_create(plan)
        except TournamentError as error:
            raise CommandError(str(error), returncode=2) from None
        tournament = created.tournament
        pairs = [{"name": team.name, "token": token}
                 for team, token in zip(teams, created.tokens, strict=True)]
        if options["json"]:
            self.stdout.write(json.dumps({"id": tournament.pk, "teams": pairs},
                                         ensure_ascii=False))
            return
        self.stdout.write(f"Tournament {tournament.pk}: {tournament.name} "
                          f"({tournament.get_format_display()}, {len(teams)} teams), "
                          f"starts at {said_time(tournament.start_at)}")
        for pair in pairs:
            self.stdout.write(f"Token of {pair['name']}: {pair['token']}")
        self.stdout.write(f"Its page: {page_address(f'/tournaments/{tournament.pk}/')} ; each "
                          "token plays every match of its team (GET /api/matches lists them)")
        if is_protocol_played(rules_for(tournament.game)) and not options["programs"]:
            self.stdout.write(f"Its games are played by: python manage.py chaserserver "
                              f"--tournament {tournament.pk}")
