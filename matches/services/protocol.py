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
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from matches.models import Board, Match, Submission, Team
from matches.models.titles import game_parts
from matches.services.boards import board_store
from matches.services.matches import match_create
from matches.services.transition import turn_resolve

KEPT_BYTES = 1024  # a line is at most 1 KiB; anything longer is a fault, its start kept
CONTENT_TYPE = "text/plain; tcp"


@dataclass(frozen=True)
class Game:
    """One game as its server knows it: the match and its teams' row ids."""

    match_id: int
    team_ids: tuple[int, int]
    late: int = 0  # its spectator delay (ms): the public sees its steps that much later


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
    teams = dict(Team.objects.filter(match=created.match).values_list("index", "id"))
    return Game(created.match.pk, (teams[0], teams[1]), created.match.delay_s * 1000)


def game_adopt(match_id: int) -> Game:
    """A match made ahead as a first game (`game_create` with `start_at` to come: a hosted
    scrimmage's), starting now: the server plays it."""
    Match.objects.filter(pk=match_id).update(start_at=timezone.now())
    match = Match.objects.get(pk=match_id)
    teams = dict(Team.objects.filter(match=match).values_list("index", "id"))
    return Game(match.pk, (teams[0], teams[1]), match.delay_s * 1000)


LINE_FIELDS = ("match", "team", "turn", "received_at", "remote_addr", "content_type", "body",
               "body_size", "body_sha256", "actions", "status_code", "error", "detail",
               "counted", "entered_by", "note", "dialect")
# The fields whose values the database takes in a form of its own (the others are ints,
# text and a boolean, which every backend takes as they are).
PREPARED = frozenset({"received_at", "remote_addr", "body", "actions"})


def line_store(game: Game, team: int, turn: int | None, raw: bytes, received_at: datetime,
               remote_addr: str | None, *, status: int, actions: list | None = None,
               error: str = "", detail: str = "") -> None:
    """One line as the program sent it (its first KEPT_BYTES bytes), with its verdict.

    The server stores several lines a turn, each before it answers; the ORM's `create`
    took 0.2 ms of a line's time. This inserts the same row directly: the connection
    looked up once (each use of `django.db.connection` looks it up anew), and only the
    values a backend takes in a form of its own prepared by their fields, as the ORM
    does."""
    kept = raw[:KEPT_BYTES]
    values = (game.match_id, game.team_ids[team], turn, received_at, remote_addr, CONTENT_TYPE,
              kept, len(raw), hashlib.sha256(kept).hexdigest(), actions, status, error,
              detail, False, "", "", "")
    database = connections[DEFAULT_DB_ALIAS]
    sql, fields = _line_insert(database.vendor)
    with database.cursor() as cursor:
        cursor.execute(sql, [value if field is None else field.get_db_prep_save(value, database)
                             for field, value in zip(fields, values, strict=True)])


@functools.cache
def _line_insert(vendor: str) -> tuple[str, list]:
    """The insert, and the field that prepares each value (None: taken as it is)."""
    database = connections[DEFAULT_DB_ALIAS]
    meta, quote = Submission._meta, database.ops.quote_name
    fields = [meta.get_field(name) for name in LINE_FIELDS]
    columns = ", ".join(quote(field.column) for field in fields)
    marks = ", ".join(["%s"] * len(fields))
    return (f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})",
            [field if field.name in PREPARED else None for field in fields])


def fault_store(game: Game, team: int, turn: int, at: datetime, actions: list,
                reason: str) -> None:
    """The server's entry that makes the turn's record give the team's fault."""
    Submission.objects.create(
        match_id=game.match_id, team_id=game.team_ids[team], turn=turn, received_at=at,
        body=b"", body_size=0, actions=actions, status_code=202, entered_by="server",
        note=f"protocol fault: {reason}")


def turn_store(game: Game, number: int) -> None:
    """Play turn `number` from its stored commands (its storage posts the turn and the
    list's line to the outbox, after the steps the game posted before it)."""
    turn_resolve(match_id=game.match_id, number=number)
