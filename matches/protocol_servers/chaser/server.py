"""CHaser's TCP server: the contests' own client programs play on it unchanged
(docs/chaser-server.md; the protocol is docs/rules/chaser.md's).

One `ChaserServer` listens on a pair of ports (Cool's, Hot's) and plays a match of
games, one after another: before each game it waits for a program on each port, reads
its name (with the match's teams given, a name that is not its seat's team's is refused,
and a program waits at most `seat_wait` seconds for its game), then has the game driver
(game.py) play it. Each side's program in game k plays team k % 2 of the match's two
teams (Cool in odd games is the first team): the contest rule that the teams take turns
at being Cool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable

from django import db
from django.utils import timezone

from matches.live.outbox import OUTBOX
from matches.protocol_servers.chaser.connection import Fault, Program
from matches.protocol_servers.chaser.game import (
    SIDES,
    ChaserGame,
    GameResult,
    Refusal,
    Settings,
)
from matches.rules import rules_for

log = logging.getLogger(__name__)

RULES = rules_for("chaser")
NAME_WAIT = 10.0  # seconds a program has to send its name after connecting


class ChaserServer:
    """A match on one pair of ports: games one after another, each between the next
    program on Cool's port and the next on Hot's. `on_start(number, match_id, names)`
    is called when a game starts, `on_game(result)` after it (from the game's thread).

    With the match's teams given (`Settings.team_names`) a seat is its team's: a
    program whose name is neither the team's name nor its short code is closed, and
    kept for the audit (`Refusal`); without them, the first program on a port plays.
    A program may wait at most `Settings.seat_wait` seconds from connecting for its
    game to start, so that a silent connection cannot hold a seat.

    Its sockets are plain blocking ones served by threads: a thread accepts on each
    port, a thread per newcomer reads its name and closes it if its wait runs out, and
    each game is played in a thread of its own. The messages for the match's screens go
    out from the event loop `start` is called on (the process's outbox: live/outbox.py),
    in the order the games post them."""

    def __init__(self, settings: Settings, ports: tuple[int, int], *, games: int = 3,
                 host: str = "0.0.0.0", on_game: Callable[[GameResult], None] | None = None,
                 on_start: Callable[[int, int, list[str]], None] | None = None,
                 practice: str | None = None, listens: bool = True) -> None:
        self.settings, self.ports, self.games, self.host = settings, ports, games, host
        # False: no TCP port; its seats' connections are handed to `_arrived` by the
        # caller (a hosted match's, on the socket files of its programs' doors)
        self.listens = listens
        # a built-in program (matches/bots/chaser.py LEVELS) the server seats on the other
        # port for every program that comes: the computer seat of a practice server
        self.practice = practice
        self.own: set[tuple] = set()  # the addresses its own programs connect from
        self.on_game = on_game or (lambda result: None)
        self.on_start = on_start or (lambda number, match_id, names: None)
        # the programs waiting on each port, first come first; `seats` guards them
        self.waiting: tuple[list[Program], list[Program]] = ([], [])
        self.seats = threading.Condition()
        self.seating = 1  # the game whose seats are being filled
        self.refused: list[Refusal] = []  # not stored yet: see Refusal
        self.listeners: list[socket.socket] = []
        self.results: list[GameResult] = []
        self.stopping = threading.Event()
        self.playing: tuple[Program, Program] | None = None

    async def start(self) -> None:
        """Listen on both ports (OSError if one is taken); the screens' messages go out
        from this loop."""
        OUTBOX.serve_from(asyncio.get_running_loop())
        if not self.listens:
            return
        try:
            for port in self.ports:
                self.listeners.append(socket.create_server((self.host, port), backlog=16))
        except OSError:
            self.stop()
            raise
        self.ports = tuple(listener.getsockname()[1] for listener in self.listeners)
        for side, listener in enumerate(self.listeners):
            threading.Thread(target=self._accept, args=(side, listener), daemon=True,
                             name=f"chaser {SIDES[side]} {self.ports[side]}").start()

    def _accept(self, side: int, listener: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return  # the listener was closed
            threading.Thread(target=self._arrived, args=(side, connection), daemon=True).start()

    def _arrived(self, side: int, connection: socket.socket) -> None:
        """A program connected: read its name, check it against its seat's team when the
        match has teams, then let it wait for its game, at most `seat_wait` seconds from
        its connection (the thread stays to close it then)."""
        with contextlib.suppress(OSError):  # (a hosted seat's Unix socket has no Nagle)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        program = Program(connection)
        wait = self.settings.seat_wait
        try:
            program.name = program.read_name(min(NAME_WAIT, wait) if wait else NAME_WAIT)
        except Fault as fault:
            log.info("a program on %s's port %d was turned away: %s", SIDES[side],
                     self.ports[side], fault.detail)
            program.close()
            return
        with self.seats:
            if self.stopping.is_set():  # it came as the server closed (stop() has
                program.close()         # already let the waiting ones go): it goes too
                return
            number = self.seating
            problem = self._seat_problem(number, side, program)
            if problem:
                self._refuse(program, number, side, 403, "wrong_team", problem)
                return
            self.waiting[side].append(program)
            self.seats.notify_all()
            own = self._own(connection)
            if own:
                program.seat = f"level-{self.practice}"
        if self.practice and not own:
            self._seat_practice(1 - side)
        if not wait:
            return
        program.seated.wait(max(0.0, program.arrived + wait - time.monotonic()))
        with self.seats:
            if program in self.waiting[side]:  # its game has not taken it: it goes
                self.waiting[side].remove(program)
                self._refuse(program, self.seating, side, 408, "seat_timeout",
                             f"waited {wait:g} s for its game on {SIDES[side].title()}'s "
                             f"port; closed, so the next connection takes the seat")

    def _own(self, connection: socket.socket) -> bool:
        """Whether a connection is one of the server's own practice programs."""
        try:
            address = connection.getpeername()
        except OSError:
            return False
        if address in self.own:
            self.own.discard(address)
            return True
        return False

    def _seat_practice(self, side: int) -> None:
        """Start the practice program on a side's port, for the program that just came
        to the other side (it plays that game, then leaves)."""
        from matches.bots.chaser import LEVELS, PLAYERS, play

        level = int(self.practice)
        player = PLAYERS[LEVELS[level - 1]](f"{self.ports}-{time.monotonic()}")
        player.name = f"Lv {level}"  # 4 characters: all a screen shows of a name

        def connected(address: tuple) -> None:
            with self.seats:
                self.own.add(address)

        def run() -> None:
            try:
                play("127.0.0.1", self.ports[side], player, self.stopping, connected=connected)
            except OSError:
                return  # the server closed
        threading.Thread(target=run, daemon=True, name=f"chaser level {level}").start()

    def _seat_team(self, number: int, side: int) -> int:
        """Which of the match's teams (0 the first) plays a side in game `number`: the
        first is Cool in odd games."""
        return (number - 1 + side) % 2

    def _seat_problem(self, number: int, side: int, program: Program) -> str:
        """Why a program may not take a side's seat in game `number` ("" when it may):
        with the match's teams given, its name must be its seat's team's."""
        teams = self.settings.team_names
        if not teams or self.settings.seats_by_port:
            return ""  # a free server (first come, first seated), or doors to the seats
        team = self._seat_team(number, side)
        shorts = self.settings.team_shorts or ["", ""]
        if RULES.answers_to(program.sent, teams[team], shorts[team]):
            return ""
        known = f"{teams[team]!r}" + (f" or {shorts[team]!r}" if shorts[team] else "")
        return (f"the name {program.sent[:40]!r} is not this seat's team's "
                f"({SIDES[side].title()} in game {number} is {known}); closed")

    def _refuse(self, program: Program, number: int, side: int, status: int, error: str,
                detail: str) -> None:
        """Close a program that may not play, log it, and keep it for the audit of the
        game it came for (called with `seats` held)."""
        program.close()
        log.warning("CHaser %s's port %d: refused a connection from %s (%s): %s",
                    SIDES[side], self.ports[side], program.address, error, detail)
        line = program.name_line
        self.refused.append(Refusal(number, side, line.raw if line else b"",
                                    line.at if line else timezone.now(), program.address,
                                    status, error, detail))

    def _refusals(self, number: int | None = None) -> tuple[Refusal, ...]:
        """Take the refusals kept for games up to `number` (None: all)."""
        with self.seats:
            taken = [r for r in self.refused if number is None or r.number <= number]
            self.refused = [r for r in self.refused if number is not None and r.number > number]
        return tuple(taken)

    async def run(self) -> list[GameResult]:
        """Play the match (in a thread: see `play`)."""
        try:
            return await asyncio.to_thread(self.play)
        finally:
            await self._drain()

    DRAIN_SECONDS = 5.0

    async def _drain(self) -> None:
        """Let the outbox send what the games posted, DRAIN_SECONDS at most (a channel
        layer that no longer answers must not hold the server's end)."""
        await OUTBOX.drained(self.DRAIN_SECONDS)

    def play(self) -> list[GameResult]:
        """`games` games, sides swapped every game, until one team has more wins than
        the games left could give the other (or the server stops)."""
        wins = [0, 0]
        for number in range(1, self.games + 1):
            programs = self._seat(number)
            if programs is None:
                break  # stopped while waiting
            self.playing = programs
            names = self._names(number, programs)
            title = self.settings.title or f"{names[0]} vs {names[1]}"
            game = ChaserGame(self.settings, programs, names, title,
                              lambda match_id, n=number, names=names:
                              self.on_start(n, match_id, names), self.stopping,
                              games=self.games, first=self.results[0].match_id
                              if self.results else None, refused=self._refusals(number),
                              number=number)
            try:
                result = game.play()
            finally:
                for program in programs:
                    program.close()
                self.playing = None
            if result is None or self.stopping.is_set():
                break
            self.results.append(result)
            self.on_game(result)
            if result.winner is not None:
                wins[(result.winner + number - 1) % 2] += 1  # by team, not by side
            if abs(wins[0] - wins[1]) > self.games - number:
                break
        self._store_late_refusals()
        return self.results

    def _store_late_refusals(self) -> None:
        """Refusals kept for a game that never came: in the match's last game."""
        refused = self._refusals()
        if not refused or not self.results:
            return
        try:
            for refusal in refused:
                refusal.store(self.results[-1].match_id)
        finally:
            db.connection.close()  # this thread's own connection

    def _seat(self, number: int) -> tuple[Program, Program] | None:
        """Game `number`'s two programs, the first waiting on each port, taken together
        once both are there (so that neither is held while the other has not come: a
        waiting program may go at the end of its wait); None once the server stops. A
        program whose name is not its seat's team's (it came while another game was
        being seated) is refused here."""
        with self.seats:
            self.seating = number
            while not self.stopping.is_set():
                for side in (0, 1):
                    waiting = self.waiting[side]
                    while waiting and (problem := self._seat_problem(number, side, waiting[0])):
                        self._refuse(waiting.pop(0), number, side, 403, "wrong_team", problem)
                if all(self.waiting):
                    programs = self.waiting[0].pop(0), self.waiting[1].pop(0)
                    for program in programs:
                        program.seated.set()
                    self.seating = number + 1  # who comes now comes for the next game
                    return programs
                self.seats.wait(0.2)
        return None

    def _names(self, number: int, programs: tuple[Program, Program]) -> list[str]:
        """Cool's and Hot's team names: the match's teams, the first one Cool in odd
        games; without them, the names the programs sent."""
        teams = self.settings.team_names
        if teams:
            return [teams[0], teams[1]] if number % 2 else [teams[1], teams[0]]
        names = [program.name or SIDES[side].title() for side, program in enumerate(programs)]
        if names[0] == names[1]:
            names = [f"{name} ({SIDES[side]})" for side, name in enumerate(names)]
        return names

    def stop(self) -> None:
        """Stop listening and end a game in progress (its programs are disconnected)."""
        self.stopping.set()
        for listener in self.listeners:
            with contextlib.suppress(OSError):
                # closing alone would leave the port listening until the thread blocked
                # in accept() took one more connection (Linux): shutdown wakes it now
                listener.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                listener.close()
        for program in self.playing or ():
            program.close()
        with self.seats:
            for waiting in self.waiting:
                for program in waiting:
                    program.close()
                    program.seated.set()
                waiting.clear()
            self.seats.notify_all()

    async def close(self) -> None:
        self.stop()
        await self._drain()


