"""python manage.py chaserserver --map FILE|NAME [--ports COOL,HOT] [--turns N]
[--teams NAME NAME] [--games 3] [--once] [--timeout SECONDS] [--seat-wait SECONDS]
[--step-delay SECONDS] [--public] [--delay SECONDS] [--host ADDRESS]
python manage.py chaserserver --tournament ID [--ports COOL,HOT] [...]

CHaser's TCP server (docs/chaser-server.md): the contests' client programs connect to
Cool's port (2009) and Hot's (2010) and play a match of games, sides swapped every game,
two wins taking it. Every line is stored and every step shown live. After every game it
prints `winner: cool|hot|draw`; at the end, the match's result. With --teams (or
--tournament) a seat is its team's: a program that sends another name is closed, and
the refusal is in the game's audit. A program waits at most --seat-wait seconds for its
game.
"""

from __future__ import annotations

import asyncio
import signal
import threading

from channels.layers import get_channel_layer
from django.core.management.base import BaseCommand, CommandError

from matches.bots.chaser import LEVELS
from matches.management.helpers import delay_seconds
from matches.protocol_servers.chaser import tournament
from matches.protocol_servers.chaser.game import SEAT_WAIT, GameResult, Settings
from matches.protocol_servers.chaser.maps import MAPS, map_path, map_read, map_settings
from matches.protocol_servers.chaser.server import ChaserServer
from matches.rules import chaser
from matches.rules.checks import MAX_TURNS
from matches.rules.records import RecordError
from matches.services.clock import layer_reaches_other_processes
from matches.services.matches import team_names_check


def ports(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise ValueError
    cool, hot = (int(part) for part in parts)
    if not (0 <= cool <= 65535 and 0 <= hot <= 65535) or (cool == hot and cool):
        raise ValueError
    return cool, hot


class Command(BaseCommand):
    help = "Serve CHaser over TCP to the contests' client programs (docs/chaser-server.md)."

    def add_arguments(self, parser):
        parser.add_argument("--tournament", type=int, metavar="ID",
                            help="play a tournament's CHaser fixtures one after another as "
                                 "their rounds open (docs/tournaments.md); its maps and turns "
                                 "are the tournament's")
        parser.add_argument("--map",
                            help=f"a map file, or the name of one in {MAPS.name}/ "
                                 f"({', '.join(sorted(p.stem for p in MAPS.glob('*.map')))})")
        parser.add_argument("--ports", type=ports, default=chaser.PORTS, metavar="COOL,HOT",
                            help="Cool's and Hot's ports (default 2009,2010; 0 picks free ones)")
        parser.add_argument("--host", default="0.0.0.0", help="the address to listen on")
        parser.add_argument("--turns", type=int, help="the number of turns (default: the "
                                                      "map's T:)")
        parser.add_argument("--teams", nargs=2, metavar="NAME",
                            help="the match's two teams, the first Cool in odd games; a "
                                 "program must send its seat's team's name (default: any "
                                 "program plays, under the name it sends)")
        parser.add_argument("--games", type=int, default=3,
                            help="games in the match (default 3: two wins take it)")
        parser.add_argument("--once", action="store_true", help="play one game and exit")
        parser.add_argument("--timeout", type=float, default=10.0,
                            help="seconds a program has for each line (default 10)")
        parser.add_argument("--seat-wait", type=float, default=SEAT_WAIT, metavar="SECONDS",
                            help="seconds a program may wait, from connecting, for its game "
                                 "to start before it is closed and the next connection takes "
                                 f"its seat (default {SEAT_WAIT:g}; 0: no limit)")
        parser.add_argument("--step-delay", type=float, default=0.0,
                            help="seconds between steps, for an audience (0.3 suits a venue)")
        parser.add_argument("--practice", type=int, metavar="LEVEL",
                            help="seat the built-in program of this level (1 to "
                                 f"{len(LEVELS)}) on the other port for every program that "
                                 "connects, as a practice server's computer seat")
        parser.add_argument("--public", action="store_true",
                            help="anyone may watch the games while they run (a practice "
                                 "server's always may)")
        parser.add_argument("--delay", type=delay_seconds, default=0, metavar="SECONDS",
                            help="the spectator delay: everyone but the judges and the "
                                 "games' teams sees them this far behind")
        parser.add_argument("--title", default="", help="the games' title")

    def handle(self, *args, **options):
        if options["tournament"] is not None:
            self.tournament(options)
            return
        if not options["map"]:
            raise CommandError("--map: required (or --tournament)", returncode=2)
        practice = options["practice"]
        if practice is not None and not 1 <= practice <= len(LEVELS):
            raise CommandError(f"--practice: a level from 1 to {len(LEVELS)}", returncode=2)
        if practice is not None and options["teams"]:
            raise CommandError("--practice seats its own program: leave --teams out",
                               returncode=2)
        settings = self.settings(options)
        games = 1 if options["once"] else options["games"]
        if games < 1:
            raise CommandError("--games: at least 1", returncode=2)
        asyncio.run(self.serve(settings, options["ports"], games, options["host"], practice))

    def settings(self, options) -> Settings:
        path = map_path(options["map"])
        try:
            record = map_read(path)
        except OSError as error:
            raise CommandError(f"--map: {options['map']}: {error.strerror}", returncode=2) from None
        except UnicodeDecodeError as error:
            raise CommandError(f"--map: {path}: byte {error.start} is not UTF-8 text",
                               returncode=2) from None
        except chaser.MapError as error:
            raise CommandError(f"--map: {path}: {error}", returncode=2) from None
        turns = options["turns"] or record["turns"]
        if not 1 <= turns <= MAX_TURNS:
            raise CommandError(f"--turns: {turns} is outside 1..{MAX_TURNS}", returncode=2)
        self.check_times(options)
        names = None
        if options["teams"]:
            try:
                names = team_names_check(options["teams"])
            except RecordError as error:
                raise CommandError(f"--teams: {error}", returncode=2) from None
        return map_settings(path, record, turns=turns, team_names=names,
                            timeout=options["timeout"], seat_wait=options["seat_wait"],
                            step_delay=options["step_delay"],
                            public=options["public"] or options["practice"] is not None,
                            delay=options["delay"], title=options["title"])

    @staticmethod
    def check_times(options) -> None:
        if options["timeout"] <= 0 or options["step_delay"] < 0 or options["seat_wait"] < 0:
            raise CommandError("--timeout must be positive, and --step-delay and --seat-wait "
                               "not negative", returncode=2)

    def tournament(self, options) -> None:
        from matches.models import Tournament

        found = Tournament.objects.filter(pk=options["tournament"], game="chaser").first()
        if found is None:
            raise CommandError(f"--tournament: no CHaser tournament {options['tournament']}",
                               returncode=2)
        self.check_times(options)
        self.stdout.write(f"CHaser server for {found.name}: its fixtures one after another")
        self.stdout.flush()
        stop = threading.Event()

        async def serve() -> None:
            loop = asyncio.get_running_loop()
            for signalled in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signalled, stop.set)
            await tournament(found.pk, stop, self.say, ports=options["ports"],
                             host=options["host"], step_delay=options["step_delay"],
                             timeout=options["timeout"], seat_wait=options["seat_wait"])

        try:
            asyncio.run(serve())
        except OSError as error:
            raise CommandError(f"--ports: {error.strerror}", returncode=2) from None
        self.stdout.write("stopped" if stop.is_set() else "the tournament is over")

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    async def serve(self, settings: Settings, ports: tuple[int, int], games: int,
                    host: str, practice: int | None = None) -> None:
        server = ChaserServer(settings, ports, games=games, host=host, on_game=self.tell,
                              on_start=self.started, practice=practice)
        try:
            await server.start()
        except OSError as error:
            raise CommandError(f"--ports: {error.strerror}", returncode=2) from None
        self.stdout.write(f"CHaser server: Cool on port {server.ports[0]}, Hot on port "
                          f"{server.ports[1]}; {games} game{'s' if games > 1 else ''}")
        if practice:
            self.stdout.write(f"Practice: the level {practice} program takes the other port "
                              "for every program that connects")
        if not layer_reaches_other_processes(get_channel_layer()):
            self.stdout.write("Note: no REDIS_URL, so the channel layer is this process's own: "
                              "every game is stored, but the screens of another server "
                              "process show it only when reloaded (set REDIS_URL, as `make "
                              "serve` does, to show it live)")
        self.stdout.flush()
        loop = asyncio.get_running_loop()
        runner = asyncio.ensure_future(server.run())
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, runner.cancel)
        try:
            results = await runner
        except asyncio.CancelledError:
            self.stdout.write("stopped")
            return
        finally:
            await server.close()
        self.stdout.write(f"match: {match_words(results, settings.team_names)}")

    def started(self, number: int, match_id: int, names: list[str]) -> None:
        self.stdout.write(f"game {number}: match {match_id}, {names[0]} (Cool) vs "
                          f"{names[1]} (Hot): /matches/{match_id}/")
        self.stdout.flush()

    def tell(self, result: GameResult) -> None:
        self.stdout.write(f"winner: {result.word}")
        report = practice_report(result.match_id)
        if report:
            self.stdout.write(report)
        self.stdout.flush()


def practice_report(match_id: int) -> str:
    """A practice game's report on the visiting program in one line (its page is open
    to whoever may see the game); "" for another game."""
    from matches.models import Match
    from matches.selectors import open_report_team, team_report

    match = Match.objects.get(pk=match_id)
    team = open_report_team(match)
    if team is None:
        return ""
    summary = team_report(match, team)["summary"]
    latency = summary["latency_ms"]
    said = [f"{summary['accepted']} command{'' if summary['accepted'] == 1 else 's'}",
            f"answered in {latency['p50']} ms typical, {latency['max']} ms at worst"
            if latency else "no command answered",
            f"{summary['invalid_actions']} fault{'' if summary['invalid_actions'] == 1 else 's'}",
            {True: "won", False: "lost", None: "drawn"}[summary["won"]]]
    rehearsal = ("; a rehearsal passed" if summary["won"] and not summary["steps_missed"]
                 and match.teams.filter(seat="level-1").exists() else "")
    return f"report on {team.name}: {', '.join(said)}{rehearsal}: /matches/{match_id}/report"


def match_words(results: list[GameResult], teams: list[str] | None) -> str:
    """The match's result in words: the team with the most wins (by the names the games
    were played under)."""
    wins: dict[str, int] = {}
    for result in results:
        if result.winner is not None:
            name = result.names[result.winner]
            wins[name] = wins.get(name, 0) + 1
    if not wins:
        return "a draw"
    ranked = sorted(wins.items(), key=lambda item: -item[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return f"a draw ({ranked[0][1]} wins each)"
    return f"{ranked[0][0]} wins ({ranked[0][1]} of {len(results)} games)"
