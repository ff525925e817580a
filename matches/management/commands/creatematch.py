"""python manage.py creatematch --game GAME --board NAME|FILE|random ... --teams A B
[--short CODE_A,CODE_B]

Creates a match and prints its id, start time and the two team tokens (shown once).
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from matches.access.delay import DELAY_MAX_S
from matches.boards.specs import BoardError
from matches.management.helpers import delay_seconds, page_address, said_time
from matches.rules import LIVE_GAMES, rules_for
from matches.rules.checks import RecordError
from matches.selectors import epoch_ms
from matches.services.boards import board_choose
from matches.services.matches import (
    Timing,
    TimingError,
    match_make,
    team_names_check,
    team_shorts_check,
)


def positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise ValueError(text)
        return value
    parse.__name__ = kind.__name__
    return parse


class Command(BaseCommand):
    help = "Create a match; prints its id, start time and the team tokens."

    def add_arguments(self, parser):
        parser.add_argument("--game", choices=LIVE_GAMES, default=LIVE_GAMES[0],
                            help="the games the live system runs so far")
        parser.add_argument("--board",
                            help="a public board's name, a file (match record, board or "
                                 "Procon field JSON), or 'random' / 'random:SEED'; none for "
                                 "a game played on one board only")
        parser.add_argument("--turns", type=positive(int), help="default: the board's, else 30")
        parser.add_argument("--strategy-seconds", type=positive(float),
                            help="simultaneous games: each turn's strategy step (default 5)")
        parser.add_argument("--transition-seconds", type=float,
                            help="simultaneous games: each transition step (default 1)")
        parser.add_argument("--secret-board", metavar="BOARD",
                            help="a match of two games (Procon 2020): the second game's field, "
                                 "kept secret until it starts (a file or random; default "
                                 "random)")
        parser.add_argument("--between", type=float, default=30.0, metavar="SECONDS",
                            help="a match of two games: the pause between them (default 30)")
        parser.add_argument("--clock", type=positive(float), metavar="SECONDS",
                            help="alternating games: each team's thinking time for the game "
                                 "(a chess clock; default the game's own)")
        parser.add_argument("--teams", nargs=2, required=True, metavar="NAME")
        parser.add_argument("--short", metavar="A,B", type=lambda text: text.split(","),
                            help="each team's short code, for where its full name does not "
                                 "fit (a wall of matches, a phone), e.g. HN,NARA")
        parser.add_argument("--agents", type=positive(int), help="default: the board's, else 6")
        parser.add_argument("--start-in", type=float, default=10.0, metavar="SECONDS")
        parser.add_argument("--title", default="")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--public", action="store_true",
                            help="anyone may watch it while it runs (otherwise judges and its "
                                 "teams only, until a judge publishes it)")
        parser.add_argument("--delay", type=delay_seconds, default=0, metavar="SECONDS",
                            help="the spectator delay: everyone but the judges and its teams "
                                 f"sees it this far behind (0 to {DELAY_MAX_S})")

    def handle(self, *args, **options):
        self.timing_check(options)
        try:  # before anything is stored
            team_names_check(options["teams"])
        except RecordError as error:
            raise CommandError(f"--teams: {error}", returncode=2) from None
        try:
            team_shorts_check(options["short"])
        except RecordError as error:
            raise CommandError(f"--short: {error}", returncode=2) from None
        board = self.board(options["game"], options["board"])
        secret = self.secret_board(options)  # checked before anything is stored
        try:
            made = self.make(options, [board, *secret])
        except RecordError as error:  # the title
            raise CommandError(f"--{error}", returncode=2) from None
        match, games, tokens = made.match, made.games, made.tokens
        if options["json"]:
            printed = {
                "id": match.pk, "start_at": epoch_ms(match.start_at),
                "start_at_iso": match.start_at.isoformat(),
                "teams": [{"name": name, "token": token}
                          for name, token in zip(options["teams"], tokens, strict=True)],
            }
            if len(games) > 1:
                printed["games"] = [game.pk for game in games]
            self.stdout.write(json.dumps(printed))
            return
        for number, game in enumerate(games, start=1):
            of = f" (game {number} of {len(games)})" if len(games) > 1 else ""
            shown = "a secret field" if game.secret_board else game.board.name
            self.stdout.write(f"Match {game.pk}{of}: {shown}, {game.turns} turns, "
                              f"{game.agents} agents a team")
            self.stdout.write(f"Starts at {said_time(game.start_at)}")
        for name, token in zip(options["teams"], tokens, strict=True):
            self.stdout.write(f"Token of {name}: {token}")
        self.stdout.write(f"Watch it at {page_address(f'/matches/{match.pk}/')} ; a person "
                          f"plays a team at {page_address(f'/matches/{match.pk}/play')} with "
                          "the team's token")

    def make(self, options, boards):
        return match_make(
            game=options["game"],
            team_names=options["teams"],
            team_shorts=options["short"],
            boards=boards,
            timing=self.timing(options),
            agents=options["agents"],
            start_at=timezone.now() + timedelta(seconds=options["start_in"]),
            title=options["title"],
            public_live=options["public"],
            delay_seconds=options["delay"],
        )

    def secret_board(self, options) -> list:
        """The second game's board, for a game whose match is two games (Procon 2020):
        --secret-board, random by default; none for any other game."""
        rules = rules_for(options["game"])
        if rules.games_per_match == 1:
            if options["secret_board"] is not None:
                raise CommandError(f"--secret-board: a match of {rules.title} is one game",
                                   returncode=2)
            return []
        try:
            return [self.board(options["game"], options["secret_board"] or "random")]
        except CommandError as error:
            raise CommandError(str(error).replace("--board", "--secret-board", 1),
                               returncode=2) from None

    def timing_check(self, options) -> None:
        """The timing `match_make` is given, as every way of making a match checks it
        (Timing.checked), refused in this command's words (its options' names)."""
        try:
            self.timing(options).checked(rules_for(options["game"]))
        except TimingError as error:
            option = {"clock_seconds": "clock"}.get(error.field, error.field)
            raise CommandError(f"--{option.replace('_', '-')}: {error}", returncode=2) from None

    @staticmethod
    def timing(options) -> Timing:
        return Timing(turns=options["turns"], strategy_seconds=options["strategy_seconds"],
                      transition_seconds=options["transition_seconds"],
                      clock_seconds=options["clock"], between_seconds=options["between"])

    def board(self, game: str, text: str | None):
        try:
            return board_choose(game, text)
        except BoardError as error:
            raise CommandError(f"--board: {error}", returncode=2) from None
