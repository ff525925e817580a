"""CHaser's game driver: one game between two connected programs, each line a program
sends turned into its step with the pure functions of `matches.rules.chaser`, stored
(`matches.services.protocol`) before it is answered, and every turn stored once both
have acted.

The protocol is one exchange at a time, so a game is played in a thread of its own with
blocking sockets, storing each line on the thread's database connection before it
answers; the messages for the screens are posted to the process's outbox
(live/outbox.py), which builds and sends them in order off this thread. (An asyncio
version that stored through a database thread spent most of a turn handing work between
the two threads: a 150-turn game took half as long again.)

A fault (no `gr` or `#` where due, an unknown command, a line over 1 KiB, bytes that
are not text, a time-out, a disconnect) loses the game for that side; the other program
still gets the proper end of game. Nothing a client sends stops the server.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django import db
from django.utils import timezone

from matches.live import messages
from matches.live.broadcast import step_announce
from matches.live.viewers import viewers
from matches.models import Submission
from matches.protocol_servers.chaser.connection import EXPECTED, Fault, Line, Program
from matches.rules import chaser
from matches.services import protocol
from matches.services.control import VOID

SEAT_WAIT = 60.0  # seconds a connected program may wait for its game (0: no limit)

log = logging.getLogger(__name__)

END_WAIT = 1.0  # seconds the server waits for a `#` after a reply that ends the game
SIDES = ("cool", "hot")
RULES = chaser.ChaserRules()


class Stopped(Exception):
    """The server is stopping, or the judges made the match void: the game ends without
    a result."""


HOLD_POLL = 0.25  # seconds between looks at a match the judges hold
# Seconds between looks at the match (whether the judges hold it, what else they or a
# tournament changed, whether anyone watches it): a game without a step delay plays a
# step in a fraction of a millisecond, and a look is a query.
HOLD_LOOK = 0.05
# While no socket watches a game, its turns are stored together, this long apart at
# least, behind the game on a thread of their own (a transaction a turn was a third of a
# fast game's time; a batch stored on the game's thread, a third on PostgreSQL): a game
# its programs play as fast as they answer (0.15 s) stores once or twice while it is
# played and the rest once both programs have their end (0.02 s apart: 0.18-0.29 s a
# game against 0.13-0.17 on PostgreSQL, 0.18-0.22 against 0.14-0.16 on SQLite, in
# alternate runs of bench/hosted.py --chaser-only); a game of slower programs stores
# each turn this long after it at most. Each as soon as it is played while one watches,
# and whatever is played before a hold, a void or the end.
STORE_EVERY = 0.1


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
    delay: int = 0  # the spectator delay of its games, s (access/delay.py)
    title: str = ""
    title_parts: dict = field(default_factory=dict)  # a title the server made (titles.py)
    # A match whose first game was made ahead (a hosted scrimmage's, whose id was given
    # out when it was asked for): game 1 is played as that match, not made anew.
    made: int | None = None
    # A seat is taken by whatever comes to its port (a hosted match's programs, each
    # behind a door to its own seat), not by the team's name.
    seats_by_port: bool = False


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
    database connection, before answering) and answers in order, and posts each step
    for the sockets to the outbox (in order)."""

    def __init__(self, settings: Settings, programs: tuple[Program, Program],
                 names: list[str], title: str,
                 on_start: Callable[[int], None] = lambda match_id: None,
                 stopping: threading.Event | None = None, *, games: int = 1,
                 first: int | None = None, refused: tuple[Refusal, ...] = (),
                 number: int = 1) -> None:
        self.settings, self.programs, self.names, self.title = settings, programs, names, title
        self.refused = refused  # connections turned away from this game's seats
        self.games, self.first = games, first  # the match's games; its first's id
        self.number = number  # this game's, from 1 (a later game's title says it)
        self.on_start = on_start
        self.stopping = stopping or threading.Event()  # set: the server is going away
        self.state = chaser.new_state(settings.board.data, settings.turns)
        self.game: protocol.Game | None = None
        self.storer: protocol.Storer | None = None  # (the game's, once it is made)
        self.last_mover: int | None = None  # whose step (or fault) came last
        # (side, turn) of a reply that ended the game: its `#` is read at the end
        self.owed: tuple[int, int] | None = None
        self.looked = -HOLD_LOOK  # when hold() last asked the database (monotonic)
        # The turns both have played, not yet stored (each its counted lines), and when
        # turns were last stored (monotonic)
        self.pending: list[dict[int, tuple[int, Any]]] = []
        self.stored_at = time.monotonic()
        # The turn's counted lines so far: each side's last accepted, (id, actions).
        self.counted: dict[int, tuple[int, Any]] = {}
        self.before = self.state  # the position the step under way is played on
        # Whether a socket watches the match (`viewers`, at the last look): its steps and
        # turns are built for its sockets only then (its end and its lists' line always)
        self.watched = True

    def play(self) -> GameResult | None:
        """The game's result; None when the server stopped during it."""
        try:
            return self._play()
        except Stopped:
            self.turn_stored(at_once=True)
            return None
        finally:
            if self.storer is not None:
                self.storer.close()
            if self.game is not None:  # (its last lines, kept by the process's journal)
                try:
                    protocol.lines_move(self.game)
                except Exception:  # (left in the journal: moved once this process has ended)
                    log.exception("CHaser match %s: its last lines not moved",
                                  self.game.match_id)
            db.connection.close()  # this thread's own connection

    def _play(self) -> GameResult:
        s = self.settings
        seats = [program.seat for program in self.programs]
        visitors = [program.address or "?" for program in self.programs if not program.seat]
        self.game = protocol.game_adopt(s.made) if s.made and self.number == 1 else \
            protocol.game_create(board=s.board, team_names=self.names, turns=s.turns,
                                         title=self.title, public_live=s.public,
                                         title_parts=s.title_parts
                                         if self.title == s.title else None,
                                         games=self.games, first=self.first,
                                         number=self.number, seats=seats,
                                         delay_seconds=s.delay,
                                         practice_by=f"tcp:{visitors[0]}"
                                         if any(seats) and visitors else "")
        self.storer = protocol.Storer(self.game)
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
            self.pending.append(self.counted)
            self.counted = {}
        self.finish(turn)
        self.turn_stored(at_once=True)
        return GameResult(self.game.match_id, self.state.winner, self.state.decided_by or "",
                          self.names)

    def hold(self) -> None:
        """Before a step: while the judges hold the match (services/control.py), wait,
        sending the programs nothing (each waits for its `@`, as between any two
        steps); a void match ends here. The match is looked at (protocol.game_look: what
        the judges or a tournament changed) at most once a HOLD_LOOK, and so is whether
        a socket watches it (live/viewers.py: the count every process's sockets keep in
        the cache that reaches as far as the channel layer: both shared, or both this
        process's own)."""
        now = time.monotonic()
        if now - self.looked < HOLD_LOOK:
            return
        self.looked = now
        watched = viewers(self.game.match_id) > 0
        if watched and not self.watched:  # (its sockets see the turns stored behind it
            self.storer.drain()           # before the next step)
        self.watched = watched
        while True:
            match = protocol.game_look(self.game)
            if (match.result or {}).get("decided_by") == VOID:
                raise Stopped
            if match.paused_at is None:
                return
            self.turn_stored(at_once=True)  # (what was played before the hold)
            if self.stopping.wait(HOLD_POLL):
                raise Stopped

    def step(self, player: int, turn: int) -> None:
        """One player's step: `@`, `gr`, the ready digits, the command, its reply, `#`."""
        program, s = self.programs[player], self.settings
        if s.step_delay:
            time.sleep(s.step_delay)
        self.hold()
        self.before = self.state  # the position the step is played on
        command = None
        try:
            program.send("@")
            self.turn_stored()  # the turn before, while the program answers its `@`
            self.expect(player, turn, "gr")
            program.send(chaser.ready_digits(self.state, player))
            line = program.read(s.timeout)
            command = line.text
            self.state, fields = chaser.step(self.state, player, command)
            if fields["result"] != "ok":
                self.store(player, turn, line, 400, error="unknown_command",
                           detail=fields["reason"])
                self.fault_entry(player, turn, line.at, [{"command": command}],
                                 fields["reason"])
                self.announce(player, turn, command, "fault", fields["reason"])
                return
            actions = [{"command": command}]
            self.counted[player] = (self.store(player, turn, line, 202, actions=actions),
                                    actions)
            program.send(fields["reply"])
            self.announce(player, turn, command, "ok")
            if fields["reply"].startswith("0"):  # the game is over: a late `#` is welcome,
                self.owed = (player, turn)  # read once the other program knows (finish)
                return
            self.expect(player, turn, "#")
        except Fault as fault:
            if self.stopping.is_set():  # the server closed the connection, not the program
                raise Stopped from None
            self.faulted(player, turn, fault, command)

    def turn_stored(self, at_once: bool = False) -> None:
        """Store the turns both have played, if they are not yet: a turn is derived from
        its stored lines, so it is stored while the next program thinks (after its
        `@`), not between the last line and that `@`; its announcement still comes
        before the next step's. While no socket watches, turns are stored together,
        STORE_EVERY apart at least, behind the game (protocol.Storer: once the last
        batch is stored, whatever was played since); at once (`at_once`, or while a
        socket watches), once those are stored."""
        if self.storer is None:  # (no game yet)
            return
        if not at_once and not self.watched:
            if self.pending and not self.storer.busy \
                    and time.monotonic() - self.stored_at >= STORE_EVERY:
                self.storer.put(self.pending, False)
                self.pending, self.stored_at = [], time.monotonic()
            return
        self.storer.drain()
        if self.pending:
            protocol.turns_store(self.game, self.pending, self.watched)
            self.pending, self.stored_at = [], time.monotonic()

    def expect(self, player: int, turn: int, wanted: str) -> None:
        line = self.programs[player].read(self.settings.timeout)
        if line.text != wanted:
            raise Fault(f"expected_{'gr' if wanted == 'gr' else 'hash'}",
                        EXPECTED(wanted=repr(wanted), got=repr(line.text[:40])), line.raw)
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
        self.fault_entry(player, turn, now, actions, fault.detail)
        self.state = chaser.fault(self.state, player)
        self.announce(player, turn, command, "fault", fault.detail)
        log.info("CHaser match %s: %s faulted in turn %d: %s", self.game.match_id,
                 SIDES[player], turn, fault.detail)

    def finish(self, turn: int) -> None:
        """The end of the game for each program still there: the one that did not make
        the last step gets `@`, answers `gr` and reads a reply starting with `0`; then
        the `#` the last mover may still send after its own reply that ended the game is
        read (END_WAIT at most), not before: the other program is not kept waiting for
        it, nor for the last mover's program to end and close its connection (the
        last 15-20 ms of a hosted game)."""
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
        if self.owed is not None and not self.programs[self.owed[0]].gone:
            self.expect_end(*self.owed)

    def store(self, player: int, turn: int | None, line: Line, status: int, *,
              actions: list | None = None, error: str = "", detail: str = "") -> int:
        """Store a line, before the server sends anything more; its id."""
        return protocol.line_store(self.game, player, turn, line.raw, line.at,
                                   self.programs[player].address, status=status,
                                   actions=actions, error=error, detail=detail)

    def fault_entry(self, player: int, turn: int, at, actions: list, reason: str) -> None:
        """The server's entry for a side's fault, which its turn counts (protocol.py)."""
        self.counted[player] = (protocol.fault_store(self.game, player, turn, at, actions,
                                                     reason), actions)

    def announce(self, player: int, turn: int, command: str | None, result: str,
                 reason: str = "") -> None:
        """The step to the match's sockets: who acted, the command, what it read; none
        while no socket watches the match (a socket that opens sees the steps from the
        next look on, HOLD_LOOK at most: a step is not versioned, and the turns it
        missed are filled from the stored ones). A game played as fast as its programs
        answer spent a fifth of its time on steps that nobody could see."""
        self.last_mover = player
        if not self.watched:
            return
        # (frozen values: the announcer builds from them off this thread)
        state, before = self.state, self.before

        def build() -> dict:
            cells = None
            if command and result == "ok" and command[0] in "ls":
                cells = chaser.cells_read(command, state.positions[player])
            return messages.step(turn, player, command, result, RULES.view(state),
                                 rules=RULES, reason=reason, cells=cells,
                                 before=RULES.view(before))
        step_announce(self.game.match_id, self.game.late, build)

