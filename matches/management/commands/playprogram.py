"""python manage.py playprogram --match ID --token TOKEN [--server URL] [--first]
[--poll SECONDS] -- PROGRAM ARGS...

Plays a team's match with a program that speaks lines (Blokus Duo programs, as the
GPCC rules asked: the other player's move as a 4-character code on standard input, its
own printed on standard output), relaying for it through the answer API as a team's
program would (docs/dialects.md, "Programs that speak lines"):

- each move the other team plays (and `----` for its pass) is written to the program's
  standard input, one a line, as soon as the match's state shows it;
- each line the program prints that is a move is submitted as the team's move; a
  refused one (malformed, illegal, out of turn) is stored and audited by the server as
  any refused request, and the program's next line is taken;
- every other line it prints, and every line of its standard error, is its own output,
  kept in the audit and shown with its turn in the team's replay (`/output`: docs/api.md,
  "Your program's debug output");
- a program that exits before the end is reported in the audit and the relay stops:
  the team then loses on time, as any player who stops moving; at the end of the game
  the program is stopped.
"""

from __future__ import annotations

import subprocess

from django.core.management.base import BaseCommand, CommandError

from matches.hosting.lines import LineRelay, RelayError, Server
from matches.rules import rules_for


class Command(BaseCommand):
    help = "Play a team's match with a program that reads and prints moves as lines."

    def add_arguments(self, parser):
        parser.add_argument("--match", type=int, required=True, help="the match's id")
        parser.add_argument("--token", required=True, help="the team's token")
        parser.add_argument("--server", default="http://127.0.0.1:8000",
                            help="the contest server (default http://127.0.0.1:8000)")
        parser.add_argument("--first", action="store_true",
                            help="the program expects to move first: refuse a team that "
                                 "moves second")
        parser.add_argument("--poll", type=float, default=0.1,
                            help="seconds between two readings of the match (default 0.1)")
        parser.add_argument("program", nargs="+", help="the program and its arguments "
                                                       "(after --)")

    def handle(self, *args, match, token, server, first, poll, program, **options):
        self.server = Server(server, match, token)
        try:
            state = self.server.state()
        except OSError as error:
            raise CommandError(f"--server {server}: {error}", returncode=2) from None
        except RelayError as error:
            raise CommandError(str(error), returncode=2) from None
        you = state.get("you")
        if you is None:
            raise CommandError(f"--token: not the token of a team of match {match}",
                               returncode=2)
        self.rules, self.you = rules_for(state["game"]), you
        if not self.rules.speaks_lines:
            raise CommandError(f"--match {match}: {self.rules.title} programs do not play "
                               "by lines", returncode=2)
        if first and self.rules.mover(1) != you:
            raise CommandError(f"--first: {state['teams'][you]['name']} moves second in "
                               f"match {match}", returncode=2)
        self.say(f"match {match}: {state['teams'][you]['name']} "
                 f"({'first' if self.rules.mover(1) == you else 'second'}), "
                 f"running {' '.join(program)}")
        try:
            process = subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                       errors="replace", bufsize=1)
        except OSError as error:
            raise CommandError(f"{program[0]}: {error.strerror}", returncode=2) from None
        relay = LineRelay(self.server, self.rules, you, self.say)
        try:
            code = relay.relay(process, poll)
        except RelayError as error:
            raise CommandError(str(error), returncode=2) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        if code:
            raise CommandError("the program stopped before the end of the game", returncode=code)

    def say(self, text: str) -> None:
        self.stdout.write(f"playprogram: {text}")
        self.stdout.flush()
