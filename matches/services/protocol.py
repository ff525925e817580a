"""Storage for games played by a protocol server of their own (CHaser over TCP,
docs/chaser-server.md): the server drives each game step by step and stores, through
these functions, every line a program sends (before answering it) and every turn once
both players have acted, in the same tables as every match. Replay, audit, verify,
pictures and publication therefore work on such a match unchanged.

A line is a Submission of the team's: status 200 for a protocol line (the name, `gr`,
`#`), 202 for a command (the turn's counted actions), 400 with an error code for a
fault. A fault also gets the server's own entry (`entered_by="server"`, status 202) with
the actions that make the rules give the fault when the record is replayed: a null
command (or the unknown command as sent), after the step's command when the fault came
after it.

Where the database is not SQLite, a process keeps the lines in a journal on its own
machine first and moves them into the database with their turns
(services/local_journal.py).
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connections, transaction
from django.utils import timezone

from matches.models import Board, Match, Team
from matches.models.titles import game_parts
from matches.services import local_journal
from matches.services.boards import board_store
from matches.services.line_rows import lines_insert
from matches.services.matches import match_create
from matches.services.transition import played_turns_store
from matches.services.wal import fold_soon

KEPT_BYTES = 1024  # a line is at most 1 KiB; anything longer is a fault, its start kept
CONTENT_TYPE = "text/plain; tcp"


@dataclass
class Game:
    """One game as its server knows it: the match and its teams' row ids."""

    match_id: int
    team_ids: tuple[int, int]
    late: int = 0  # its spectator delay (ms): the public sees its steps that much later
    # The match's row as its turns are stored on (`game_look`'s, taken up by the next
    # store; its board read, its turns moved on by the server as it stores them): each
    # turn is stored without reading it again.
    match: Match | None = field(default=None, compare=False, repr=False)
    # Its lines' database ids by their journal ids, once moved (local_journal.py)
    moved: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    # The row as its server looked at it last, not yet taken for storing turns
    looked: Match | None = field(default=None, compare=False, repr=False)


# The maker of a hosted match's first game, by game: its protocol server's, registered
# as that server's package is loaded (apps.py loads them all), so that the services
# that make scrimmages and tournaments' matches ask it here without importing any
# server (they stand below them).
_HOSTED_MAKERS: dict[str, Callable[..., int]] = {}


def hosted_maker_register(game: str, maker: Callable[..., int]) -> None:
    _HOSTED_MAKERS[game] = maker


def hosted_match_make(game: str, names: list[str], board: str | None, turns: int | None,
                      **options: Any) -> int:
    """Game 1 of a hosted match of a game played over its own protocol, made ahead by its
    server's maker (protocol_servers/<game>/hosted.py `hosted_match`); its id."""
    return _HOSTED_MAKERS[game](names, board, turns, **options)


def map_board(name: str, spec: dict[str, Any], source: str, game: str) -> Board:
    return board_store(name, spec, source, game)


def game_create(*, board: Board, team_names: list[str], turns: int, title: str,
                public_live: bool, games: int = 1, first: int | None = None,
                number: int = 1, seats: list[str] | None = None, practice_by: str = "",
                delay_seconds: int = 0, title_parts: dict[str, Any] | None = None,
                start_at: datetime | None = None) -> Game:
    """A match for one game, starting now (the server starts it once both programs are
    there); its steps are the server's, so it has no strategy or transition time. A
    match of several `games`: the first is made alone, each later one with `first`
    (its id), its own names (Cool's first: the teams swap sides every game) and its
    `number`, which its title says after `title` ("(game 2)", in each reader's language);
    `title_parts`, a title the server made (a tournament's: models/titles.py), said in
    each reader's language too.

    Made ahead (`start_at` to come), it waits for its server to adopt it (`game_adopt`).

    A practice server's game: `seats` names the side its own program plays ("level-N",
    as a practice match's seat; "" for a visiting program) and `practice_by` who came to
    practise ("tcp:<address>"): the game is a practice match, rated on the ladder."""
    parts = title_parts or {}
    title, parts = game_parts(parts, title, number) if number > 1 else (title, parts)
    created = match_create(board=board, team_names=team_names, agents=1, turns=turns,
                           strategy_seconds=0, transition_seconds=0,
                           start_at=start_at or timezone.now(),
                           title=title, title_parts=parts, public_live=public_live,
                           match_games=games,
                           first_game=None if first is None else Match.objects.get(pk=first),
                           delay_seconds=delay_seconds)
    for index, seat in enumerate(seats or ()):
        if seat:
            Team.objects.filter(match=created.match, index=index).update(seat=seat)
    if practice_by:
        Match.objects.filter(pk=created.match.pk).update(practice_by=practice_by[:80])
    return _game(created.match.pk)


def game_adopt(match_id: int) -> Game:
    """A match made ahead as a first game (`game_create` with `start_at` to come: a hosted
    scrimmage's), starting now: the server plays it."""
    Match.objects.filter(pk=match_id).update(start_at=timezone.now())
    return _game(match_id)


def _game(match_id: int) -> Game:
    """The game its server plays, as stored (the row read as it now is)."""
    match = _looked(match_id)
    teams = {team.index: team.pk for team in match.teams.all()}
    return Game(match.pk, (teams[0], teams[1]), match.delay_s * 1000, match)


def game_look(game: Game) -> Match:
    """The match's row read again, as the judges (a hold, a void, its visibility), a
    tournament (its fixture) or its server's caller may have changed it; the game's
    next store of turns takes it up (`_adopted`: its turns stored behind the game, on a
    thread of their own, may be under way meanwhile)."""
    game.looked = _looked(game.match_id)
    return game.looked


def _adopted(game: Game) -> Match:
    """The row turns are stored on: the last look's, if any since, with the turns the
    server has stored (which only it moves on: the look may have been read before its
    last store committed)."""
    looked, game.looked = game.looked, None
    if looked is not None:
        looked.resolved_turns = game.match.resolved_turns
        game.match = looked
    return game.match


def _looked(match_id: int) -> Match:
    """The row with what announcing a turn reads of it (its board, its teams' names)."""
    return Match.objects.select_related("board").prefetch_related("teams").get(pk=match_id)


def line_store(game: Game, team: int, turn: int | None, raw: bytes, received_at: datetime,
               remote_addr: str | None, *, status: int, actions: list | None = None,
               error: str = "", detail: str = "") -> int:
    """One line as the program sent it (its first KEPT_BYTES bytes), with its verdict;
    its row's id (negative: its id in the process's journal, services/local_journal.py,
    until the line is moved into the database with its turn)."""
    kept = raw[:KEPT_BYTES]
    return _stored((game.match_id, game.team_ids[team], turn, received_at, remote_addr,
                    CONTENT_TYPE, kept, len(raw), hashlib.sha256(kept).hexdigest(), actions,
                    status, error, detail, "", ""))


def fault_store(game: Game, team: int, turn: int, at: datetime, actions: list,
                reason: str) -> int:
    """The server's entry that makes the turn's record give the team's fault; its id (as
    a line's: it comes in order with them)."""
    return _stored((game.match_id, game.team_ids[team], turn, at, None, "", b"", 0, "",
                    actions, 202, "", "", "server", f"protocol fault: {reason}"))


def _stored(row: tuple[Any, ...]) -> int:
    """A line (local_journal.COLUMNS' values) stored before its answer: in the process's
    journal when it keeps one, else in the database; its id there (the journal's,
    negative)."""
    if local_journal.in_use():
        return -local_journal.journal().keep(row)
    return lines_insert([row])[0]


def lines_move(game: Game) -> None:
    """The game's lines kept in the process's journal moved into the database now (at
    its end; its turns move them as they are stored): in a transaction of its own."""
    if local_journal.in_use():
        with transaction.atomic():
            last = _moved(game)
        if last:
            local_journal.journal().forget(game.match_id, last)


def _moved(game: Game) -> int:
    """In the caller's transaction, the game's lines kept in the journal inserted in the
    database, each one's database id noted in `game.moved` by its journal id (negative:
    as the server holds it); the last journal id moved (0: none)."""
    rows = local_journal.journal().rows(game.match_id)
    if not rows:
        return 0
    ids = lines_insert([row[1:] for row in rows])
    game.moved.update({-row[0]: pk for row, pk in zip(rows, ids, strict=True)})
    return rows[-1][0]


def turns_store(game: Game, turns: list[dict[int, tuple[int, Any]]],
                watched: bool = True) -> None:
    """Play the game's next turns, one after another, from their stored commands
    (`turns`: for each, each team's last accepted line of the turn, (id, actions) by team
    index, as its server stored them), in one transaction: one as soon as it is played
    while someone watches, several together while nobody does. Their storage posts the
    turns (unless no socket `watched` the game at its server's last look) and the
    lists' line to the outbox, after the steps the game posted before them. Nothing once
    the match has ended (made void).

    Where the process keeps a journal of its lines (local_journal.py), the game's lines
    move from it into the database first, in the same transaction. On SQLite, the
    write-ahead log is folded back soon after, off the game's thread (services/wal.py:
    a game's lines make much of it)."""
    match = _adopted(game)
    if not local_journal.in_use():
        played_turns_store(match, turns, watched=watched)
        fold_soon()
        return
    with transaction.atomic():  # the lines they are made of first
        last = _moved(game)
        turns = [{index: (game.moved.get(pk, pk), actions)
                      for index, (pk, actions) in counted.items()} for counted in turns]
        played_turns_store(match, turns, watched=watched)
    if last:
        local_journal.journal().forget(game.match_id, last)


class Storer:
    """A game's turns stored behind it, on a thread of their own, while nobody watches
    it (a fast game's): storing a batch of 20 turns took 7-17 ms, each time on the
    path of the program's next line (on PostgreSQL, a third of a hosted CHaser game's
    time). Its batches are stored in order, one at a time; the game's thread hands it
    the next only once it is idle (`busy`), and waits for it (`drain`) before it stores
    turns itself (someone watches, a hold, the end), so that the game's posts to the
    outbox keep their order. A store that fails is raised again on the game's thread at
    its next call. Its thread closes its database connection when it ends (`close`)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.quiet = threading.Condition()
        self.waiting = 0  # batches handed over, not yet stored
        self.batches: queue.SimpleQueue = queue.SimpleQueue()
        self.failed: BaseException | None = None
        self.thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self.waiting > 0

    def put(self, turns: list[dict[int, tuple[int, Any]]], watched: bool) -> None:
        """Store these turns behind the game (`turns_store`)."""
        self._raised()
        with self.quiet:
            self.waiting += 1
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, daemon=True,
                                           name=f"turns of match {self.game.match_id}")
            self.thread.start()
        self.batches.put((turns, watched))

    def drain(self) -> None:
        """Once every batch handed over is stored (raising a store's failure)."""
        with self.quiet:
            self.quiet.wait_for(lambda: not self.waiting)
        self._raised()

    def close(self) -> None:
        """Its thread ended (what it had stored first; a failure is left to `drain`)."""
        if self.thread is not None:
            self.batches.put(None)
            self.thread.join()
            self.thread = None

    def _raised(self) -> None:
        if self.failed is not None:
            failed, self.failed = self.failed, None
            raise failed

    def _run(self) -> None:
        try:
            while (batch := self.batches.get()) is not None:
                try:
                    if self.failed is None:  # (after a failure: nothing more, in order)
                        turns_store(self.game, *batch)
                except BaseException as error:  # (the game's thread raises it)
                    self.failed = error
                finally:
                    with self.quiet:
                        self.waiting -= 1
                        self.quiet.notify_all()
        finally:
            connections.close_all()  # (this thread's own)
