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

import json
import queue
import subprocess
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from matches.rules import rules_for

OUTPUT_EVERY = 1.0  # seconds between two posts of the program's own output


class Server:
    """The answer API of one match, with a team's token."""

    def __init__(self, base: str, match_id: int, token: str) -> None:
        self.base, self.match_id, self.token = base.rstrip("/"), match_id, token

    def call(self, method: str, path: str = "", body: bytes | None = None,
             content_type: str = "application/json") -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{self.base}/api/matches/{self.match_id}{path}", method=method, data=body,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            try:
                return error.code, json.loads(error.read() or b"{}")
            except ValueError:
                return error.code, {"error": "http", "detail": error.reason}

    def state(self) -> dict[str, Any]:
        status, state = self.call("GET")
        if status == 401:
            raise CommandError("--token is no team's token (mistyped, or replaced by a new "
                               "one: ask the judges)", returncode=2)
        if status == 404:
            raise CommandError(f"--match {self.match_id}: no such match, or --token is not "
                               "the token of one of its teams", returncode=2)
        if status != 200:
            raise CommandError(f"--match {self.match_id}: {status} {state.get('detail', '')}",
                               returncode=2)
        return state

    def move(self, actions: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
        return self.call("POST", "/actions", json.dumps({"actions": actions}).encode())

    def output(self, lines: list[str]) -> None:
        self.call("POST", "/output", "\n".join(lines).encode() + b"\n",
                  "text/plain; charset=utf-8")


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
        try:
            code = self.relay(process, poll)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        if code:
            raise CommandError("the program stopped before the end of the game", returncode=code)

    def say(self, text: str) -> None:
        self.stdout.write(f"playprogram: {text}")
        self.stdout.flush()

    def relay(self, process: subprocess.Popen, poll: float) -> int:
        """Tell, read and submit until the game ends (0) or the program exits (1)."""
        lines: queue.Queue[str | None] = queue.Queue()
        errors: queue.Queue[str | None] = queue.Queue()  # its standard error: all output
        threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
        said = threading.Thread(target=_read_lines, args=(process.stderr, errors), daemon=True)
        said.start()
        told, held, output, posted = 0, [], [], time.monotonic()
        while True:
            state = self.server.state()
            told = self.tell(process, state, told)
            if state["status"] == "finished":
                self.keep(output + _drained(errors))
                process.terminate()
                self.say(f"the game is over: {state.get('verdict') or state.get('result')}")
                return 0
            mine = state["status"] == "running" and state.get("to_move") == self.you
            deadline = time.monotonic() + poll
            while True:
                try:
                    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if line is None:
                    said.join(timeout=1.0)  # its standard error read to its end
                    return self.exited(process, output + _drained(errors))
                move = self.rules.program_move(line)
                if move is None:
                    output.append(line)
                else:
                    held.append(move)
            output += _drained(errors)
            if mine and held:
                self.keep(output)
                output = []
                mine = self.submit(held.pop(0))
            if output and time.monotonic() - posted >= OUTPUT_EVERY:
                self.keep(output)
                output, posted = [], time.monotonic()

    def tell(self, process: subprocess.Popen, state: dict[str, Any], told: int) -> int:
        """Write the other team's moves of the turns the program has not heard of."""
        for turn in state["actions"]:
            if turn["turn"] <= told:
                continue
            for outcome in turn["outcomes"][1 - self.you]:
                line = self.rules.program_line(outcome)
                if line is not None:
                    self.say(f"to the program: {line}")
                    try:
                        process.stdin.write(line + "\n")
                        process.stdin.flush()
                    except (BrokenPipeError, ValueError):
                        pass  # it has exited: its end of output says so next
            told = turn["turn"]
        return told

    def submit(self, actions: list[dict[str, Any]]) -> bool:
        """Submit a move; True while the team is still to move (it was refused)."""
        status, answer = self.server.move(actions)
        said = json.dumps(actions)
        if status == 202:
            self.say(f"from the program: {said}: accepted for turn {answer.get('turn')}")
            return False
        self.say(f"from the program: {said}: refused ({status} {answer.get('error')}: "
                 f"{answer.get('detail')}); taking its next line")
        return True

    def keep(self, output: list[str]) -> None:
        if output:
            self.server.output(output)

    def exited(self, process: subprocess.Popen, output: list[str]) -> int:
        status = process.wait()
        output.append(f"[playprogram] the program exited with status {status} before the "
                      "end of the game; its team will lose on time")
        self.keep(output)
        self.say(output[-1].removeprefix("[playprogram] "))
        return 1


def _drained(lines: queue.Queue) -> list[str]:
    """The lines waiting in the queue (its end, None, left out)."""
    taken = []
    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return taken
        if line is not None:
            taken.append(line)


def _read_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line.rstrip("\r\n"))
    lines.put(None)
