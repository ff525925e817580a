"""CHaser's TCP server: the contests' own client programs play on it unchanged
(docs/chaser-server.md; the protocol is docs/rules/chaser.md's).

One `ChaserServer` listens on a pair of ports (Cool's, Hot's) and plays a match of
games, one after another: before each game it waits for a program on each port, reads
its name (with the match's teams given, a name that is not its seat's team's is refused,
and a program waits at most `seat_wait` seconds for its game), then plays the turns step
by step with the pure functions of `matches.rules.chaser`, storing every line a program
sends before answering it and every turn once both have acted
(`matches.services.protocol`). Each side's program in game k plays team k % 2 of the
match's two teams (Cool in odd games is the first team): the contest rule that the
teams take turns at being Cool.

A fault (no `gr` or `#` where due, an unknown command, a line over 1 KiB, bytes that
are not text, a time-out, a disconnect) loses the game for that side; the other program
still gets the proper end of game. Nothing a client sends stops the server.

The protocol is one exchange at a time, so a game is played in a thread of its own with
blocking sockets, storing each line on the thread's database connection before it
answers; the messages for the screens go to the event loop the server was started on,
which sends them in order. (An asyncio version that stored through a database thread
spent most of a turn handing work between the two threads: a 150-turn game took half as
long again.)
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from channels.db import database_sync_to_async
from django import db
from django.utils import timezone

from matches.live import messages
from matches.live.broadcast import broadcast_soon, match_group
from matches.models import Submission
from matches.rules import chaser
from matches.services import protocol

log = logging.getLogger(__name__)

LINE_LIMIT = 1024  # bytes of one line, its end included
NAME_WAIT = 10.0  # seconds a program has to send its name after connecting
SEAT_WAIT = 60.0  # seconds a connected program may wait for its game (0: no limit)
END_WAIT = 1.0  # seconds the server waits for a `#` after a reply that ends the game
SEND_WAIT = 10.0  # seconds a send may block on a program that does not read
SIDES = ("cool", "hot")
RULES = chaser.ChaserRules()


class Fault(Exception):
    """A program broke the protocol: `code` names the fault, the message says what."""

    def __init__(self, code: str, detail: str, raw: bytes | None = None) -> None:
        super().__init__(detail)
        self.code, self.detail, self.raw = code, detail, raw


class Stopped(Exception):
    """The server is stopping: the game ends without a result."""


@dataclass
class Line:
    raw: bytes  # as received, its line end included
    text: str  # decoded, without the line end and surrounding spaces
    at: datetime


def decode_sent_name(raw: bytes) -> str:
    """A name line in UTF-8 or, failing that, Shift_JIS (the Ruby library sends its
    name in Shift_JIS): the whole name, without its line end and surrounding spaces."""
    body = raw.rstrip(b"\r\n")
    for encoding in ("utf-8", "cp932"):
        try:
            return body.decode(encoding).strip()
        except UnicodeDecodeError:
            continue
    raise Fault("not_text", "the name is neither UTF-8 nor Shift_JIS text", raw)


def decode_name(raw: bytes) -> str:
    """A name line's name as shown (its first four characters)."""
    return chaser.shown_name(decode_sent_name(raw))


def team_answers_to(sent: str, name: str, short: str = "") -> bool:
    """Whether a program that sent `sent` as its name may play for the team `name`
    (short code `short`): the name or the short code, whole or as shown (their first
    four characters, as the contests' programs send), ignoring case."""
    forms = {form.strip().casefold() for form in (name, short, chaser.shown_name(name),
                                                  chaser.shown_name(short))}
    return bool(sent.strip()) and sent.strip().casefold() in forms - {""}


class Program:
    """One connected client, played from the game's thread with blocking reads (each
    bounded in size and time) and writes."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.lines = connection.makefile("rb")
        peer = connection.getpeername()
        self.address = peer[0] if peer else None
        self.name = ""  # as shown
        self.sent = ""  # the whole name it sent
        self.name_line: Line | None = None  # stored with the game it plays
        self.gone = False
        self.arrived = time.monotonic()
        self.seated = threading.Event()  # set when its game takes it (or the server stops)

    def read(self, timeout: float) -> Line:
        raw = self._raw(timeout, "no line")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise Fault("not_text", "the line is not UTF-8 text", raw) from None
        return Line(raw, text, timezone.now())

    def read_name(self, timeout: float) -> str:
        """The first line: the program's name, in UTF-8 or Shift_JIS (as shown; the
        whole name in `sent`)."""
        raw = self._raw(timeout, "no name")
        self.name_line = Line(raw, "", timezone.now())
        self.sent = decode_sent_name(raw)
        return chaser.shown_name(self.sent)

    def _raw(self, timeout: float, what: str) -> bytes:
        """The next line with its end; a Fault when it does not come whole in time."""
        if self.gone:
            raise Fault("disconnected", "the connection closed")
        try:
            self.connection.settimeout(timeout)
            raw = self.lines.readline(LINE_LIMIT + 1)
        except TimeoutError:
            raise Fault("timeout", f"{what} within {timeout:g} s") from None
        except OSError:
            self.gone = True
            raise Fault("disconnected", "the connection failed") from None
        if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
            raise Fault("line_too_long", f"a line over {LINE_LIMIT} bytes", raw[:LINE_LIMIT])
        if not raw.endswith(b"\n"):
            self.gone = True
            raise Fault("disconnected", "the connection closed", raw or None)
        return raw

    def send(self, text: str) -> None:
        if self.gone:
            return
        try:
            self.connection.settimeout(SEND_WAIT)
            self.connection.sendall(text.encode() + b"\r\n")
        except OSError:
            self.gone = True

    def close(self) -> None:
        self.gone = True
        with contextlib.suppress(OSError):
            self.lines.close()
            self.connection.close()


@dataclass
class Settings:
    board: Any  # the Board row
    turns: int
    team_names: list[str] | None = None  # None: the names the programs send
    team_shorts: list[str] | None = None  # the teams' short codes, when they have them
    timeout: float = 10.0
    seat_wait: float = SEAT_WAIT  # how long a connection may wait for its game (0: ever)
    step_delay: float = 0.0
    public: bool = False
    title: str = ""


@dataclass
class Refusal:
    """A connection the server closed before it played: a name that is not its seat's
    team's (403 `wrong_team`), or a wait for its game that ran out (408
    `seat_timeout`). Kept until the game it came for (`number`) is made, then stored in
    that game's submissions (team unknown: the sender is not known to be a team) for
    the judges' audit; in the match's last game when that game never comes."""

    number: int  # the game it came for
    side: int
    raw: bytes  # its name line as received (b"" when none came)
    at: datetime
    address: str | None
    status: int
    error: str
    detail: str

    def store(self, match_id: int) -> None:
        kept = self.raw[:protocol.KEPT_BYTES]
        Submission.objects.create(
            match_id=match_id, team=None, turn=None, received_at=self.at,
            remote_addr=self.address, content_type=protocol.CONTENT_TYPE, body=kept,
            body_size=len(self.raw), body_sha256=hashlib.sha256(kept).hexdigest(),
            status_code=self.status, error=self.error, detail=self.detail)


@dataclass
class GameResult:
    match_id: int
    winner: int | None  # 0 Cool, 1 Hot, None a draw
    decided_by: str
    names: list[str] = field(default_factory=list)  # Cool's, Hot's

    @property
    def word(self) -> str:
        return "draw" if self.winner is None else SIDES[self.winner]


class ChaserGame:
    """One game between two connected programs (Cool first), played in a thread of its
    own: the protocol is one exchange at a time, so the thread reads, stores (on its own
    database connection, before answering) and answers in order, and hands each message
    for the sockets to `relay` (thread-safe, in order)."""

    def __init__(self, settings: Settings, programs: tuple[Program, Program],
                 names: list[str], title: str, relay: Callable[[str, dict], None],
                 on_start: Callable[[int], None] = lambda match_id: None,
                 stopping: threading.Event | None = None, *, games: int = 1,
                 first: int | None = None, refused: tuple[Refusal, ...] = ()) -> None:
        self.settings, self.programs, self.names, self.title = settings, programs, names, title
        self.refused = refused  # connections turned away from this game's seats
        self.games, self.first = games, first  # the match's games; its first's id
        self.relay, self.on_start = relay, on_start
        self.stopping = stopping or threading.Event()  # set: the server is going away
        self.state = chaser.new_state(settings.board.data, settings.turns)
        self.game: protocol.Game | None = None
        self.last_mover: int | None = None  # whose step (or fault) came last

    def play(self) -> GameResult | None:
        """The game's result; None when the server stopped during it."""
        try:
            return self._play()
        except Stopped:
            return None
        finally:
            db.connection.close()  # this thread's own connection

    def _play(self) -> GameResult:
        s = self.settings
        self.game = protocol.game_create(board=s.board, team_names=self.names, turns=s.turns,
                                         title=self.title, public_live=s.public,
                                         games=self.games, first=self.first)
        self.on_start(self.game.match_id)
        for refusal in self.refused:
            refusal.store(self.game.match_id)
        for player, program in enumerate(self.programs):
            if program.name_line:
                self.store(player, None, program.name_line, 200)
        turn = 0
        while not chaser.decided(self.state) and turn < s.turns:
            turn += 1
            for player in (0, 1):
                if chaser.decided(self.state):
                    break
                self.step(player, turn)
            self.state = chaser.end_turn(self.state)
            for group, message in protocol.turn_store(self.game, turn):
                self.relay(group, message)
        self.finish(turn)
        return GameResult(self.game.match_id, self.state.winner, self.state.decided_by or "",
                          self.names)

    def step(self, player: int, turn: int) -> None:
        """One player's step: `@`, `gr`, the ready digits, the command, its reply, `#`."""
        program, s = self.programs[player], self.settings
        if s.step_delay:
            time.sleep(s.step_delay)
        command = None
        try:
            program.send("@")
            self.expect(player, turn, "gr")
            program.send(chaser.ready_digits(self.state, player))
            line = program.read(s.timeout)
            command = line.text
            self.state, fields = chaser.step(self.state, player, command)
            if fields["result"] != "ok":
                self.store(player, turn, line, 400, error="unknown_command",
                           detail=fields["reason"])
                protocol.fault_store(self.game, player, turn, line.at, [{"command": command}],
                                     fields["reason"])
                self.announce(player, turn, command, "fault", fields["reason"])
                return
            self.store(player, turn, line, 202, actions=[{"command": command}])
            program.send(fields["reply"])
            self.announce(player, turn, command, "ok")
            if fields["reply"].startswith("0"):  # the game is over: a late `#` is welcome
                self.expect_end(player, turn)
                return
            self.expect(player, turn, "#")
        except Fault as fault:
            if self.stopping.is_set():  # the server closed the connection, not the program
                raise Stopped from None
            self.faulted(player, turn, fault, command)

    def expect(self, player: int, turn: int, wanted: str) -> None:
        line = self.programs[player].read(self.settings.timeout)
        if line.text != wanted:
            raise Fault(f"expected_{'gr' if wanted == 'gr' else 'hash'}",
                        f"expected {wanted!r}, got {line.text[:40]!r}", line.raw)
        self.store(player, turn, line, 200)

    def expect_end(self, player: int, turn: int) -> None:
        """After a reply that ends the game: store a `#` if one comes, fault nothing."""
        with contextlib.suppress(Fault):
            self.store(player, turn, self.programs[player].read(END_WAIT), 200)

    def faulted(self, player: int, turn: int, fault: Fault, command: str | None) -> None:
        """Store what came and the server's entry; the game is the other side's."""
        now = timezone.now()
        if fault.raw is not None:
            protocol.line_store(self.game, player, turn, fault.raw, now,
                                self.programs[player].address, status=400, error=fault.code,
                                detail=fault.detail)
        # after a played command the fault is a second entry: the command stands
        actions = [{"command": command}, {"command": None}] if command else [{"command": None}]
        protocol.fault_store(self.game, player, turn, now, actions, fault.detail)
        self.state = chaser.fault(self.state, player)
        self.announce(player, turn, command, "fault", fault.detail)
        log.info("CHaser match %s: %s faulted in turn %d: %s", self.game.match_id,
                 SIDES[player], turn, fault.detail)

    def finish(self, turn: int) -> None:
        """The end of the game for each program still there: the one that did not make
        the last step gets `@`, answers `gr` and reads a reply starting with `0`."""
        for player in (0, 1):
            program = self.programs[player]
            if program.gone or self.last_mover == player:
                continue
            with contextlib.suppress(Fault):
                program.send("@")
                line = program.read(self.settings.timeout)
                if line.text == "gr":
                    self.store(player, turn, line, 200)
                program.send("0" + chaser.ready_digits(self.state, player)[1:])
                self.expect_end(player, turn)

    def store(self, player: int, turn: int | None, line: Line, status: int, *,
              actions: list | None = None, error: str = "", detail: str = "") -> None:
        """Store a line, before the server sends anything more."""
        protocol.line_store(self.game, player, turn, line.raw, line.at,
                            self.programs[player].address, status=status, actions=actions,
                            error=error, detail=detail)

    def announce(self, player: int, turn: int, command: str | None, result: str,
                 reason: str = "") -> None:
        """The step to the match's sockets: who acted, the command, what it read."""
        self.last_mover = player
        cells = None
        if command and result == "ok" and command[0] in "ls":
            cells = chaser.cells_read(command, self.state.positions[player])
        self.relay(match_group(self.game.match_id), messages.step(
            turn, player, command, result, RULES.view(self.state), reason=reason, cells=cells))


def _db(function: Callable) -> Callable:
    """A storage function run from the loop (the demo's): on the database thread, its
    connection closed after it as after a request."""
    return database_sync_to_async(function)


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
    each game is played in a thread of its own. The event loop `start` is called on
    sends the messages for the match's screens, in the order the games hand them over."""

    def __init__(self, settings: Settings, ports: tuple[int, int], *, games: int = 3,
                 host: str = "0.0.0.0", on_game: Callable[[GameResult], None] | None = None,
                 on_start: Callable[[int, int, list[str]], None] | None = None) -> None:
        self.settings, self.ports, self.games, self.host = settings, ports, games, host
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
        """Listen on both ports (OSError if one is taken); relay from this loop."""
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.relaying = asyncio.ensure_future(self._relay())
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

    def relay(self, group: str, message: dict[str, Any]) -> None:
        """From any thread: a message for a group's sockets, sent in order by the loop."""
        self.loop.call_soon_threadsafe(self.outbox.put_nowait, (group, message))

    async def _relay(self) -> None:
        while True:
            group, message = await self.outbox.get()
            await broadcast_soon(group, message)

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
            number = self.seating
            problem = self._seat_problem(number, side, program)
            if problem:
                self._refuse(program, number, side, 403, "wrong_team", problem)
                return
            self.waiting[side].append(program)
            self.seats.notify_all()
        if not wait:
            return
        program.seated.wait(max(0.0, program.arrived + wait - time.monotonic()))
        with self.seats:
            if program in self.waiting[side]:  # its game has not taken it: it goes
                self.waiting[side].remove(program)
                self._refuse(program, self.seating, side, 408, "seat_timeout",
                             f"waited {wait:g} s for its game on {SIDES[side].title()}'s "
                             f"port; closed, so the next connection takes the seat")

    def _seat_team(self, number: int, side: int) -> int:
        """Which of the match's teams (0 the first) plays a side in game `number`: the
        first is Cool in odd games."""
        return (number - 1 + side) % 2

    def _seat_problem(self, number: int, side: int, program: Program) -> str:
        """Why a program may not take a side's seat in game `number` ("" when it may):
        with the match's teams given, its name must be its seat's team's."""
        teams = self.settings.team_names
        if not teams:
            return ""  # a free server: first come, first seated
        team = self._seat_team(number, side)
        shorts = self.settings.team_shorts or ["", ""]
        if team_answers_to(program.sent, teams[team], shorts[team]):
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

    async def _drain(self) -> None:
        """Let the loop send what the games handed over, for as long as it relays: once
        the relay has ended (cancelled with the loop's other tasks, say) nothing empties
        the outbox, and a game's thread that is still running may go on filling it."""
        while not self.outbox.empty() and not self.relaying.done():
            await asyncio.sleep(0.01)

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
            if number > 1:
                title += f" (game {number})"
            game = ChaserGame(self.settings, programs, names, title, self.relay,
                              lambda match_id, n=number, names=names:
                              self.on_start(n, match_id, names), self.stopping,
                              games=self.games, first=self.results[0].match_id
                              if self.results else None, refused=self._refusals(number))
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
        self.relaying.cancel()


# --- maps and the demo ---------------------------------------------------------------

MAPS = Path(__file__).resolve().parents[1] / "boards" / "chaser"


def map_path(name: str) -> Path:
    """A map file's path: the file itself, or the name of a map in MAPS."""
    path = Path(name)
    return path if path.exists() or path.suffix else MAPS / f"{name}.map"


def map_read(path: Path) -> dict[str, Any]:
    """The map's match-record/1 dict (chaser.parse_map); OSError, UnicodeDecodeError or
    chaser.MapError (naming the map's line) when it cannot be read."""
    return chaser.parse_map(path.read_bytes().decode("utf-8-sig"), name=path.stem)


def board_problem(name: str) -> str:
    """Why a map named by an organiser cannot be played ("" when it can)."""
    path = map_path(name)
    try:
        map_read(path)
    except OSError as error:
        known = ", ".join(sorted(p.stem for p in MAPS.glob("*.map")))
        return f"{name}: {error.strerror} (the shipped maps: {known})"
    except (UnicodeDecodeError, chaser.MapError) as error:
        return f"{path}: {error}"
    return ""


def map_settings(path: Path, record: dict[str, Any], **options: Any) -> Settings:
    """Server settings for a map read by `map_read` (its Board stored or reused)."""
    title = record["title"]  # the map's N: line, often a word like "random"
    name = path.stem if title in ("", path.stem) else f"{path.stem} ({title})"
    board = protocol.map_board(f"CHaser {name}", record["board"], f"map file {path.name}",
                               "chaser")
    options.setdefault("turns", record["turns"])
    return Settings(board=board, **options)


DEMO_TEAMS = ("Collector", "Hunter")
DEMO_TURNS = 100


async def demo(stop: threading.Event, tell: Callable[[str, int], None],
               step_delay: float = 0.3) -> None:
    """`make demo`'s CHaser: matches of three games between the built-in programs
    (matches/bots/chaser.py), which connect over TCP on loopback like contest programs,
    on the shipped maps in turn, paced for an audience; each game is published when it
    ends, and the next match starts when one ends."""
    from matches.bots.chaser import PLAYERS, play
    from matches.services.publication import match_publish

    maps = itertools.cycle(sorted(MAPS.glob("*.map")))
    stopped = asyncio.ensure_future(asyncio.to_thread(stop.wait))  # the demo's stop
    while not stop.is_set():
        path = next(maps)
        settings = await _db(map_settings)(path, map_read(path), turns=DEMO_TURNS,
                                           team_names=list(DEMO_TEAMS), step_delay=step_delay,
                                           public=True, title=f"Demo: CHaser on {path.stem}")
        def started(number: int, match_id: int, names: list[str], where: str = path.stem):
            tell(f"Match {match_id}: {names[0]} (Cool) vs {names[1]} (Hot), CHaser game "
                 f"{number} of 3 on {where}", match_id)

        server = ChaserServer(settings, (0, 0), host="127.0.0.1", on_start=started)
        await server.start()
        programs = [threading.Thread(target=_demo_program, daemon=True,
                                     args=(server.ports, team, PLAYERS[name.lower()], play, stop,
                                           name))
                    for team, name in enumerate(DEMO_TEAMS)]
        for program in programs:
            program.start()
        try:
            running = asyncio.ensure_future(server.run())
            await asyncio.wait([running, stopped], return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():  # its games end now: the server closes their programs
                server.stop()
            for result in await running:
                await _db(match_publish)(match_id=result.match_id, published=True)
        except Exception:
            log.exception("the CHaser demo match failed; the next one starts")
        finally:
            await server.close()


def _demo_program(ports: tuple[int, int], team: int, kind: type, play: Callable,
                  stop: threading.Event, name: str) -> None:
    """One team's program for every game of a demo match: Cool in odd games for team 0.
    It sends its team's name (the server seats a team's program only)."""
    for number in itertools.count(1):
        side = (team + number - 1) % 2
        player = kind(f"{ports}-{number}-{team}")
        player.name = name
        try:
            play("127.0.0.1", ports[side], player, stop)
        except OSError:
            return  # the match is over: its server has closed
        if stop.is_set():
            return


# --- a tournament's fixtures -----------------------------------------------------------

TOURNAMENT_POLL = 1.0  # how often a waiting server asks for the next fixture


async def tournament(tournament_id: int, stop: threading.Event,
                     tell: Callable[[str], None], *, ports: tuple[int, int] = chaser.PORTS,
                     host: str = "0.0.0.0", step_delay: float = 0.0,
                     timeout: float = 10.0, seat_wait: float = SEAT_WAIT) -> None:
    """Play a tournament's CHaser fixtures one after another on one pair of ports, as the
    contests do: each fixture as its round opens (the turn clock's runner opens rounds
    and settles fixtures), a match of three games between the fixture's two teams, whose
    programs connect (the first team to Cool's port in odd games). A tournament run with
    bots has the built-in programs connect on loopback. A seat is its team's: a program
    must send its team's name or short code. Returns when it is over."""
    try:
        await _tournament(tournament_id, stop, tell, ports=ports, host=host,
                          step_delay=step_delay, timeout=timeout, seat_wait=seat_wait)
    finally:  # the database thread's connections go with the server
        await _db(db.connections.close_all)()


async def _tournament(tournament_id: int, stop: threading.Event,
                      tell: Callable[[str], None], *, ports: tuple[int, int], host: str,
                      step_delay: float, timeout: float, seat_wait: float) -> None:
    from matches.bots.chaser import PLAYERS, play
    from matches.models import Entrant, Tournament
    from matches.tournaments import runner

    maps = sorted(MAPS.glob("*.map"))
    played = 0
    while not stop.is_set():
        claimed = await _db(runner.protocol_fixture_claim)(tournament_id, timezone.now())
        if claimed is None:
            over = await _db(lambda: Tournament.objects.filter(
                pk=tournament_id, finished_at__isnull=False).exists())()
            if over:
                return
            await asyncio.sleep(TOURNAMENT_POLL)
            continue
        path = map_path(claimed.board) if claimed.board else maps[played % len(maps)]
        played += 1
        record = map_read(path)
        options = {"turns": claimed.turns} if claimed.turns else {}
        shorts = await _db(lambda claimed=claimed: dict(Entrant.objects.filter(
            tournament_id=tournament_id, index__in=claimed.seeds).values_list("index", "short")))()
        settings = await _db(map_settings)(
            path, record, team_names=list(claimed.names),
            team_shorts=[shorts.get(seed, "") for seed in claimed.seeds], step_delay=step_delay,
            public=claimed.public, title=claimed.title, timeout=timeout, seat_wait=seat_wait,
            **options)

        def started(number: int, match_id: int, names: list[str], claimed=claimed) -> None:
            runner.protocol_game_link(claimed, match_id, number)
            tell(f"Match {match_id}: {names[0]} (Cool) vs {names[1]} (Hot), game {number}")

        server = ChaserServer(settings, ports, host=host, on_start=started)
        await server.start()
        tell(f"{claimed.title}: {claimed.names[0]} and {claimed.names[1]}, connect to ports "
             f"{server.ports[0]} (Cool) and {server.ports[1]} (Hot)")
        if all(claimed.bots):
            for team, bot in enumerate(claimed.bots):
                threading.Thread(target=_demo_program, daemon=True, args=(
                    server.ports, team, PLAYERS[bot], play, stop, claimed.names[team])).start()
        try:
            results = await server.run()
        finally:
            await server.close()
        if stop.is_set() or not results:
            await _db(runner.protocol_fixture_release)(claimed)
