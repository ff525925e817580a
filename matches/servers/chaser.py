"""CHaser's TCP server: the contests' own client programs play on it unchanged
(docs/chaser-server.md; the protocol is docs/rules/chaser.md's).

One `ChaserServer` listens on a pair of ports (Cool's, Hot's) and plays a match of
games, one after another: before each game it waits for a program on each port, reads
its name, then plays the turns step by step with the pure functions of
`matches.rules.chaser`, storing every line a program sends before answering it and every
turn once both have acted (`matches.services.protocol`). Each side's program in game k
plays team k % 2 of the match's two teams (Cool in odd games is the first team): the
contest rule that the teams take turns at being Cool.

A fault (no `gr` or `#` where due, an unknown command, a line over 1 KiB, bytes that
are not text, a time-out, a disconnect) loses the game for that side; the other program
still gets the proper end of game. Nothing a client sends stops the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.utils import timezone

from matches.live.broadcast import broadcast_soon, match_group
from matches.rules import chaser
from matches.servers.writes import Writes
from matches.services import protocol

log = logging.getLogger(__name__)

LINE_LIMIT = 1024  # bytes of one line, its end included
NAME_WAIT = 10.0  # seconds a program has to send its name after connecting
END_WAIT = 1.0  # seconds the server waits for a `#` after a reply that ends the game
SIDES = ("cool", "hot")
RULES = chaser.ChaserRules()


class Fault(Exception):
    """A program broke the protocol: `code` names the fault, the message says what."""

    def __init__(self, code: str, detail: str, raw: bytes | None = None) -> None:
        super().__init__(detail)
        self.code, self.detail, self.raw = code, detail, raw


@dataclass
class Line:
    raw: bytes  # as received, its line end included
    text: str  # decoded, without the line end and surrounding spaces
    at: datetime


def decode_name(raw: bytes) -> str:
    """A name line in UTF-8 or, failing that, Shift_JIS (the Ruby library sends its
    name in Shift_JIS): the name as shown."""
    body = raw.rstrip(b"\r\n")
    for encoding in ("utf-8", "cp932"):
        try:
            return chaser.shown_name(body.decode(encoding))
        except UnicodeDecodeError:
            continue
    raise Fault("not_text", "the name is neither UTF-8 nor Shift_JIS text", raw)


class Program:
    """One connected client: reads its lines (bounded in size and time), writes ours."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        peer = writer.get_extra_info("peername")
        self.address = peer[0] if peer else None
        self.name = ""
        self.name_line: Line | None = None  # stored with the game it plays
        self.gone = False

    async def read(self, timeout: float) -> Line:
        try:
            raw = await asyncio.wait_for(self.reader.readuntil(b"\n"), timeout)
        except TimeoutError:
            raise Fault("timeout", f"no line within {timeout:g} s") from None
        except asyncio.LimitOverrunError:
            raise Fault("line_too_long", f"a line over {LINE_LIMIT} bytes",
                        await self._drop_long_line()) from None
        except asyncio.IncompleteReadError as cut:
            self.gone = True
            raise Fault("disconnected", "the connection closed", cut.partial or None) from None
        except (ConnectionError, OSError):
            self.gone = True
            raise Fault("disconnected", "the connection failed") from None
        at = timezone.now()
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise Fault("not_text", "the line is not UTF-8 text", raw) from None
        return Line(raw, text, at)

    async def read_name(self, timeout: float) -> str:
        """The first line: the program's name, in UTF-8 or Shift_JIS."""
        try:
            raw = await asyncio.wait_for(self.reader.readuntil(b"\n"), timeout)
        except TimeoutError:
            raise Fault("timeout", f"no name within {timeout:g} s") from None
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, ConnectionError,
                OSError):
            raise Fault("no_name", "no name line") from None
        self.name_line = Line(raw, "", timezone.now())
        return decode_name(raw)

    async def _drop_long_line(self) -> bytes:
        """The first LINE_LIMIT bytes of an over-long line, kept for the record."""
        with contextlib.suppress(Exception):
            return await self.reader.read(LINE_LIMIT)
        return b""

    async def send(self, text: str) -> None:
        if self.gone:
            return
        try:
            self.writer.write(text.encode() + b"\r\n")
            await self.writer.drain()
        except (ConnectionError, OSError):
            self.gone = True

    async def close(self) -> None:
        self.gone = True
        with contextlib.suppress(Exception):
            self.writer.close()
            await self.writer.wait_closed()


@dataclass
class Settings:
    board: Any  # the Board row
    turns: int
    team_names: list[str] | None = None  # None: the names the programs send
    timeout: float = 10.0
    step_delay: float = 0.0
    public: bool = False
    title: str = ""


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
    """One game between two connected programs (Cool first)."""

    def __init__(self, settings: Settings, programs: tuple[Program, Program],
                 names: list[str], title: str,
                 on_start: Callable[[int], None] = lambda match_id: None) -> None:
        self.settings, self.programs, self.names, self.title = settings, programs, names, title
        self.on_start = on_start
        self.state = chaser.new_state(settings.board.data, settings.turns)
        self.game: protocol.Game | None = None
        self.last_mover: int | None = None  # whose step (or fault) came last

    async def play(self) -> GameResult:
        self.writes = Writes()
        try:
            return await self._play()
        finally:
            await self.writes.close()

    async def _play(self) -> GameResult:
        s = self.settings
        self.game = await self.writes.now(
            protocol.game_create, board=s.board, team_names=self.names, turns=s.turns,
            title=self.title, public_live=s.public)
        self.on_start(self.game.match_id)
        for player, program in enumerate(self.programs):
            if program.name_line:
                await self.store(player, None, program.name_line, 200)
        turn = 0
        while not chaser.decided(self.state) and turn < s.turns:
            turn += 1
            for player in (0, 1):
                if chaser.decided(self.state):
                    break
                await self.step(player, turn)
            self.state = chaser.end_turn(self.state)
            # stored while the next `@` goes out: the next line stored waits for it
            for group, message in await self.writes.now(protocol.turn_store, self.game, turn):
                await broadcast_soon(group, message)
        await self.finish(turn)
        return GameResult(self.game.match_id, self.state.winner, self.state.decided_by or "",
                          self.names)

    async def step(self, player: int, turn: int) -> None:
        """One player's step: `@`, `gr`, the ready digits, the command, its reply, `#`."""
        program, s = self.programs[player], self.settings
        if s.step_delay:
            await asyncio.sleep(s.step_delay)
        command = None
        try:
            await program.send("@")
            await self.expect(player, turn, "gr")
            await program.send(chaser.ready_digits(self.state, player))
            line = await program.read(s.timeout)
            command = line.text
            self.state, fields = chaser.step(self.state, player, command)
            if fields["result"] != "ok":
                await self.store(player, turn, line, 400, error="unknown_command",
                                 detail=fields["reason"])
                await self.writes.now(protocol.fault_store, self.game, player, turn, line.at,
                                      [{"command": command}], fields["reason"])
                await self.announce(player, turn, command, "fault", fields["reason"])
                return
            await self.store(player, turn, line, 202, actions=[{"command": command}])
            await program.send(fields["reply"])
            await self.announce(player, turn, command, "ok")
            if fields["reply"].startswith("0"):  # the game is over: a late `#` is welcome
                await self.expect_end(player, turn)
                return
            await self.expect(player, turn, "#")
        except Fault as fault:
            await self.faulted(player, turn, fault, command)

    async def expect(self, player: int, turn: int, wanted: str) -> None:
        line = await self.programs[player].read(self.settings.timeout)
        if line.text != wanted:
            raise Fault(f"expected_{'gr' if wanted == 'gr' else 'hash'}",
                        f"expected {wanted!r}, got {line.text[:40]!r}", line.raw)
        await self.store(player, turn, line, 200)

    async def expect_end(self, player: int, turn: int) -> None:
        """After a reply that ends the game: store a `#` if one comes, fault nothing."""
        with contextlib.suppress(Fault):
            line = await self.programs[player].read(END_WAIT)
            await self.store(player, turn, line, 200)

    async def faulted(self, player: int, turn: int, fault: Fault, command: str | None) -> None:
        """Store what came and the server's entry; the game is the other side's."""
        now = timezone.now()
        if fault.raw is not None:
            await self.writes.now(protocol.line_store, self.game, player, turn, fault.raw,
                                  now, self.programs[player].address, status=400,
                                  error=fault.code, detail=fault.detail)
        # after a played command the fault is a second entry: the command stands
        actions = [{"command": command}, {"command": None}] if command else [{"command": None}]
        await self.writes.now(protocol.fault_store, self.game, player, turn, now, actions,
                              fault.detail)
        self.state = chaser.fault(self.state, player)
        await self.announce(player, turn, command, "fault", fault.detail)
        log.info("CHaser match %s: %s faulted in turn %d: %s", self.game.match_id,
                 SIDES[player], turn, fault.detail)

    async def finish(self, turn: int) -> None:
        """The end of the game for each program still there: the one that did not make
        the last step gets `@`, answers `gr` and reads a reply starting with `0`."""
        for player in (0, 1):
            program = self.programs[player]
            if program.gone or self.last_mover == player:
                continue
            with contextlib.suppress(Fault):
                await program.send("@")
                line = await program.read(self.settings.timeout)
                if line.text == "gr":
                    await self.store(player, turn, line, 200)
                await program.send("0" + chaser.ready_digits(self.state, player)[1:])
                await self.expect_end(player, turn)

    async def store(self, player: int, turn: int | None, line: Line, status: int, *,
                    actions: list | None = None, error: str = "", detail: str = "") -> None:
        """Store a line, before the server sends anything more."""
        await self.writes.now(protocol.line_store, self.game, player, turn, line.raw, line.at,
                              self.programs[player].address, status=status, actions=actions,
                              error=error, detail=detail)

    async def announce(self, player: int, turn: int, command: str | None, result: str,
                       reason: str = "") -> None:
        """The step to the match's sockets: who acted, the command, what it read."""
        self.last_mover = player
        message = {"type": "step", "turn": turn, "team": player, "command": command,
                   "result": result, "state": RULES.view(self.state)}
        if reason:
            message["reason"] = reason
        if command and result == "ok" and command[0] in "ls":
            at = self.state.positions[player]
            message["cells"] = [list(cell) for cell in chaser.cells_read(command, at)]
        await broadcast_soon(match_group(self.game.match_id), message)


def _db(function: Callable) -> Callable:
    """A storage function run on the one database thread (asgiref's thread-sensitive
    executor), so that the server's loop never waits on the database itself."""
    return sync_to_async(function, thread_sensitive=True)


class ChaserServer:
    """A match on one pair of ports: games one after another, each between the next
    program on Cool's port and the next on Hot's. `on_start(number, match_id, names)`
    is called when a game starts, `on_game(result)` after it."""

    def __init__(self, settings: Settings, ports: tuple[int, int], *, games: int = 3,
                 host: str = "0.0.0.0", on_game: Callable[[GameResult], None] | None = None,
                 on_start: Callable[[int, int, list[str]], None] | None = None) -> None:
        self.settings, self.ports, self.games, self.host = settings, ports, games, host
        self.on_game = on_game or (lambda result: None)
        self.on_start = on_start or (lambda number, match_id, names: None)
        self.waiting: tuple[asyncio.Queue, asyncio.Queue] = (asyncio.Queue(), asyncio.Queue())
        self.servers: list[asyncio.base_events.Server] = []
        self.results: list[GameResult] = []

    async def start(self) -> None:
        for side, port in enumerate(self.ports):
            server = await asyncio.start_server(
                lambda reader, writer, side=side: self._arrived(side, reader, writer),
                self.host, port, limit=LINE_LIMIT)
            self.servers.append(server)
        self.ports = tuple(server.sockets[0].getsockname()[1] for server in self.servers)

    async def _arrived(self, side: int, reader, writer) -> None:
        """A program connected: read its name, then let it wait for its game."""
        program = Program(reader, writer)
        try:
            line = await program.read_name(NAME_WAIT)
        except Fault as fault:
            log.info("a program on %s's port %d was turned away: %s", SIDES[side],
                     self.ports[side], fault.detail)
            await program.close()
            return
        program.name = line
        await self.waiting[side].put(program)

    async def run(self) -> list[GameResult]:
        """Play the match: `games` games, sides swapped every game, until one team has
        more wins than the games left could give the other."""
        wins = [0, 0]
        for number in range(1, self.games + 1):
            programs = (await self._next(0), await self._next(1))
            names = self._names(number, programs)
            title = self.settings.title or f"{names[0]} vs {names[1]}"
            if self.games > 1:
                title += f" · game {number} of {self.games}"
            game = ChaserGame(self.settings, programs, names, title,
                              lambda match_id, n=number, names=names:
                              self.on_start(n, match_id, names))
            try:
                result = await game.play()
            finally:
                for program in programs:
                    await program.close()
            self.results.append(result)
            self.on_game(result)
            if result.winner is not None:
                wins[(result.winner + number - 1) % 2] += 1  # by team, not by side
            left = self.games - number
            if abs(wins[0] - wins[1]) > left:
                break
        return self.results

    async def _next(self, side: int) -> Program:
        """The next program waiting on a side's port that is still connected."""
        while True:
            program = await self.waiting[side].get()
            if not program.reader.at_eof():
                return program
            await program.close()

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

    async def close(self) -> None:
        for server in self.servers:
            server.close()
            await server.wait_closed()


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


def map_settings(path: Path, record: dict[str, Any], **options: Any) -> Settings:
    """Server settings for a map read by `map_read` (its Board stored or reused)."""
    board = protocol.map_board(f"CHaser {record['title'] or path.stem}", record["board"],
                               f"map file {path.name}", "chaser")
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
                                     args=(server.ports, team, PLAYERS[name.lower()], play, stop))
                    for team, name in enumerate(DEMO_TEAMS)]
        for program in programs:
            program.start()
        try:
            for result in await server.run():
                await _db(match_publish)(match_id=result.match_id, published=True)
        except Exception:
            log.exception("the CHaser demo match failed; the next one starts")
        finally:
            await server.close()


def _demo_program(ports: tuple[int, int], team: int, kind: type, play: Callable,
                  stop: threading.Event) -> None:
    """One team's program for every game of a demo match: Cool in odd games for team 0."""
    for number in itertools.count(1):
        side = (team + number - 1) % 2
        try:
            play("127.0.0.1", ports[side], kind(f"{ports}-{number}-{team}"), stop)
        except OSError:
            return  # the match is over: its server has closed
        if stop.is_set():
            return
