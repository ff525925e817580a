"""A hosted CHaser match (docs/programs.md, "CHaser programs"): a scrimmage between two
handed-in programs, served by the worker that plays it.

Its first game is made when the scrimmage is asked for (so its id can be given out at
once) and adopted by the server when the worker starts it (`Settings.made`). The worker
serves the match's games (`HostedServer`, on no TCP port at all) and starts each game's
two programs in sandboxes, each with a door to its own seat only: the worker's driver
(matches/hosted/play.py) has the server listen for each program on a socket file in its
sandbox's doors (`seat_listen`), through which the launcher in the sandbox hands over
the program's connection itself, so nothing relays between them. A seat is taken by
whatever comes through its door (`Settings.seats_by_port`): only that sandbox's user
can connect to it.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
from datetime import datetime

from matches.hosting.doors import handed_connection
from matches.models import Match, Team
from matches.protocol_servers.chaser.game import SIDES, GameResult, Settings
from matches.protocol_servers.chaser.maps import MAPS, map_path, map_read, map_settings
from matches.protocol_servers.chaser.server import ChaserServer
from matches.rules import chaser
from matches.services import protocol
from matches.services.boards import BoardError, board_choose

GAMES = 3  # a match: best of three, the teams swapping sides every game
# Where a program finds its seat inside its sandbox: the contest's own ports, both
# leading to its seat, so that a program written for either side's default finds it.
INSIDE_PORTS = chaser.PORTS


def hosted_match(names: list[str], board: str | None, turns: int | None, *,
                 start_at: datetime, title: str, title_parts: dict | None = None,
                 public: bool = True, delay: int = 0) -> int:
    """Game 1 of a hosted match between teams `names` (the first is Cool in odd games),
    made ahead to start at `start_at`: its id. `board`: a shipped or saved map's name,
    `random` (`random:SEED`), or None for one of the shipped maps; BoardError when it
    cannot be played."""
    if board is not None and (board == "random" or board.startswith("random:")):
        chosen = board_choose(chaser.ChaserRules.game, board)
        board_row, map_turns = chosen.board, chosen.hints.get("turns", 100)
    else:
        path = map_path(board) if board else random.choice(sorted(MAPS.glob("*.map")))
        try:
            record = map_read(path)
        except (OSError, UnicodeDecodeError, chaser.MapError) as error:
            raise BoardError(f"{board}: {getattr(error, 'strerror', None) or error}") from None
        board_row, map_turns = map_settings(path, record).board, record["turns"]
    game = protocol.game_create(board=board_row, team_names=list(names),
                                turns=turns or map_turns, title=title, public_live=public,
                                games=GAMES, start_at=start_at, title_parts=title_parts,
                                delay_seconds=delay)
    return game.match_id


protocol.hosted_maker_register(chaser.ChaserRules.game, hosted_match)


class HostedServer:
    """The server of one hosted match, in a thread of its own with its own event loop
    (the outbox's, for this process's news): `start`, then for each game `seat`, wait
    for `played(number)`, and `stop` at the end."""

    def __init__(self, match) -> None:
        teams = sorted(match.teams.all(), key=lambda team: team.index)
        self.seats = {team.name: (team.seat, team.entrant_id) for team in teams}
        self.fixture = match.fixture_id  # (a tournament's: its later games are the fixture's)
        self.settings = Settings(board=match.board, turns=match.turns,
                                 team_names=[team.name for team in teams],
                                 public=match.public_live,
                                 title=match.title, title_parts=match.title_parts or {},
                                 delay=match.delay_s, made=match.pk, seats_by_port=True)
        self.server = ChaserServer(self.settings, (0, 0), games=GAMES,
                                   on_start=self._started, on_game=self._ended,
                                   listens=False)
        self.ready = threading.Event()
        self.over = threading.Event()  # the match is over (or the server stopped)
        self.games_started: dict[int, threading.Event] = {}
        self.games_ended: dict[int, threading.Event] = {}
        self.results: list[GameResult] = []
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True, name="hosted chaser")

    def _event(self, table: dict[int, threading.Event], number: int) -> threading.Event:
        return table.setdefault(number, threading.Event())

    def _started(self, number: int, match_id: int, names: list[str]) -> None:
        if number > 1:  # a later game's teams are seated as the first game's, by name
            for name, (seat, entrant) in self.seats.items():  # (the ladder rates each
                Team.objects.filter(match_id=match_id, name=name).update(  # game, the
                    seat=seat, entrant_id=entrant)  # tournament's table each team's)
            if self.fixture is not None:
                Match.objects.filter(pk=match_id).update(fixture_id=self.fixture)
        self._event(self.games_started, number).set()

    def _ended(self, result: GameResult) -> None:
        self._event(self.games_ended, len(self.results) + 1).set()
        self.results.append(result)

    def start(self) -> None:
        """Listen (ports of this machine's loopback); returns once it does."""
        self.thread.start()
        self.ready.wait()
        if self.failed:
            raise self.failed

    def _serve(self) -> None:
        async def serving() -> None:
            try:
                await self.server.start()
            except OSError as error:
                self.failed = error
                return
            finally:
                self.ready.set()
            try:
                await self.server.run()
            finally:
                await self.server.close()
        try:
            asyncio.run(serving())
        finally:
            self.over.set()
            for events in (self.games_started, self.games_ended):
                for number in range(1, GAMES + 1):
                    self._event(events, number)
            self.ready.set()

    def seat_listen(self, number: int, team: int, path) -> socket.socket:
        """Team `team`'s seat of game `number` on a Unix socket at `path` (the door its
        program's sandbox is given, through which its launcher hands over the program's
        connection itself: no relay between it and the server); close it after the
        game."""
        side = (number - 1 + team) % 2
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(4)

        def arrived(door: socket.socket) -> None:
            connection = handed_connection(door)  # (the program's own, no relay)
            if connection is not None:
                self.server._arrived(side, connection)

        def accepting() -> None:
            while True:
                try:
                    door, _ = listener.accept()
                except OSError:
                    return  # closed
                threading.Thread(target=arrived, args=(door,), daemon=True).start()
        threading.Thread(target=accepting, daemon=True, name=f"seat {side}").start()
        return listener

    @staticmethod
    def side_name(number: int, team: int) -> str:
        return SIDES[(number - 1 + team) % 2]

    def started(self, number: int) -> threading.Event:
        return self._event(self.games_started, number)

    def ended(self, number: int) -> threading.Event:
        return self._event(self.games_ended, number)

    def stop(self) -> None:
        self.server.stop()
        self.thread.join(30)
