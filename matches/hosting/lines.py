"""Playing a program that speaks lines (docs/dialects.md, "Programs that speak lines":
Blokus Duo's GPCC convention): the other team's moves written to its standard input as
the match shows them, each move it prints submitted through the answer API, every other
line it prints and its standard error kept as its debug output. `manage.py playprogram`
relays for a program on a team's own machine; a worker for a hosted one in its sandbox
(matches/hosted/play.py)."""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

OUTPUT_EVERY = 1.0  # seconds between two posts of the program's own output


class RelayError(Exception):
    """The match cannot be played with this server, match and token (said in words)."""


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
            raise RelayError("--token is no team's token (mistyped, or replaced by a new "
                             "one: ask the judges)")
        if status == 404:
            raise RelayError(f"--match {self.match_id}: no such match, or --token is not "
                             "the token of one of its teams")
        if status != 200:
            raise RelayError(f"--match {self.match_id}: {status} {state.get('detail', '')}")
        return state

    def move(self, actions: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
        return self.call("POST", "/actions", json.dumps({"actions": actions}).encode())

    def output(self, lines: list[str]) -> None:
        self.call("POST", "/output", "\n".join(lines).encode() + b"\n",
                  "text/plain; charset=utf-8")


class LineRelay:
    """Relays between one team's program (its text streams `stdin`, `stdout`, `stderr`)
    and its match on `server`, as the game's `rules` read and write lines; `say` tells
    the operator what happens."""

    def __init__(self, server: Server, rules: Any, you: int,
                 say: Callable[[str], None] = lambda text: None) -> None:
        self.server, self.rules, self.you, self.say = server, rules, you, say

    def relay(self, process: Any, poll: float, until: float | None = None) -> int:
        """Tell, read and submit until the game ends (0), the program exits (1) or
        time.monotonic() passes `until` (2). `process`: its `stdin`, `stdout` and
        `stderr` text streams, `poll()`, `wait()` and `terminate()`."""
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
            if until is not None and time.monotonic() >= until:
                self.keep(output + _drained(errors))
                return 2
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

    def tell(self, process: Any, state: dict[str, Any], told: int) -> int:
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

    def exited(self, process: Any, output: list[str]) -> int:
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
