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
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from matches.models import Board, Match, Submission, Team
from matches.models.titles import game_parts
from matches.services.boards import board_store
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
    # The match's row as its server last looked at it (`game_look`; its board read, its
    # turns moved on by the server as it stores them): each turn is stored without
    # reading it again.
    match: Match | None = field(default=None, compare=False, repr=False)


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
    tournament (its fixture) or its server's caller may have changed it; the game keeps
    it for the turns it stores until its next look."""
    game.match = _looked(game.match_id)
    return game.match


def _looked(match_id: int) -> Match:
    """The row with what announcing a turn reads of it (its board, its teams' names)."""
    return Match.objects.select_related("board").prefetch_related("teams").get(pk=match_id)


LINE_FIELDS = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
               "body_size", "body_sha256", "actions", "status_code", "error", "detail",
               "counted", "entered_by", "note", "dialect")


def line_store(game: Game, team: int, turn: int | None, raw: bytes, received_at: datetime,
               remote_addr: str | None, *, status: int, actions: list | None = None,
               error: str = "", detail: str = "") -> int:
    """One line as the program sent it (its first KEPT_BYTES bytes), with its verdict;
    its row's id.

    The server stores several lines a turn, each before it answers, and a line's
    storing is on the game's path: the ORM's `create` took 0.2 ms of it, Django's
    cursor (its wrappers, its rewriting of the placeholders) 0.04 ms more than the
    insert itself. So the same row is inserted by the database driver's own cursor (on
    the connection Django opened for this thread, in its autocommit), with the values
    a backend takes in a form of its own adapted as the ORM adapts them: the time, the
    address (by its field: an IPv6 one is normalised), the bytes, the actions (JSON;
    SQL's NULL when there are none)."""
    kept = raw[:KEPT_BYTES]
    database = connections[DEFAULT_DB_ALIAS]
    database.ensure_connection()
    sql, address, actions_field = _line_insert(database.vendor)
    ops = database.ops
    with database.wrap_database_errors:
        cursor = database.connection.cursor()
        cursor.execute(sql, (
            game.match_id, game.team_ids[team], turn,
            ops.adapt_datetimefield_value(received_at),
            address.get_db_prep_save(remote_addr, database), CONTENT_TYPE,
            database.Database.Binary(kept), len(raw), hashlib.sha256(kept).hexdigest(),
            None if actions is None else actions_field.get_db_prep_save(actions, database),
            status, error, detail, False, "", "", ""))
        return cursor.fetchone()[0]


@functools.cache
def _line_insert(vendor: str) -> tuple[str, Any, Any]:
    """The insert in the driver's own placeholders; the address's and actions' fields."""
    database = connections[DEFAULT_DB_ALIAS]
    meta, quote = Submission._meta, database.ops.quote_name
    fields = [meta.get_field(name) for name in LINE_FIELDS]
    columns = ", ".join(quote(field.column) for field in fields)
    mark = "?" if database.Database.paramstyle == "qmark" else "%s"
    marks = ", ".join([mark] * len(fields))
    return (f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks}) "
            f"RETURNING {quote(meta.pk.column)}",
            meta.get_field("remote_addr"), meta.get_field("actions"))


def fault_store(game: Game, team: int, turn: int, at: datetime, actions: list,
                reason: str) -> int:
    """The server's entry that makes the turn's record give the team's fault; its id."""
    return Submission.objects.create(
        match_id=game.match_id, team_id=game.team_ids[team], turn=turn, received_at=at,
        body=b"", body_size=0, actions=actions, status_code=202, entered_by="server",
        note=f"protocol fault: {reason}").pk


def turns_store(game: Game, turns: list[dict[int, tuple[int, Any]]],
                watched: bool = True) -> None:
    """Play the game's next turns, one after another, from their stored commands
    (`turns`: for each, each team's last accepted line of the turn, (id, actions) by team
    index, as its server stored them), in one transaction: one as soon as it is played
    while someone watches, several together while nobody does. Their storage posts the
    turns (unless no socket `watched` the game at its server's last look) and the
    lists' line to the outbox, after the steps the game posted before them. Nothing once
    the match has ended (made void). Then the write-ahead log is folded back soon, off
    the game's thread (services/wal.py: a game's lines make much of it)."""
    played_turns_store(game.match, turns, watched=watched)
    fold_soon()
