"""The lines a protocol server's process stores on its own machine first, when the
database is not there (docs/architecture.md, "A machine's own journal of lines").

Every line a program sends is stored before it is answered (services/protocol.py). On
SQLite, the embedded default, that is an insert in the database itself (0.036 ms p50 on
this machine, bench/store.py). On PostgreSQL, which a league of several worker machines
shares, it is a round trip to the database's host and a commit there (0.22 ms p50 on
this machine with fsync off; a flush of its disk with it on) before each of the 750
answers of a CHaser game: a hosted game took 2.8 times as long as on chsr.rb, which
stores nothing. So a process that serves lines with any other database keeps them first
in a journal of its own: a SQLite file under var/journal/ (in a folder of the database's
own: `folder`; WAL, synchronous NORMAL: what
the embedded default promises, a line kept through the process's death but not a loss of
the machine's power), locked by the process for its life. The lines are moved into the
database with the turns they make, in the turns' transaction (protocol.turns_store), and
at the game's end; a judge auditing a game under way sees its lines up to its last
stored turn.

A process that dies leaves its journal behind. The next process of the machine that opens
a journal (a worker, a protocol server) moves every unlocked one into the database,
leaving out the lines already there (a death between the database's commit and the
journal's), then deletes it.

A journal's row ids are its own: the server holds them for its turns' counted lines
(negative, so that they are never taken for a database row's) until the move gives each
its database id.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import hashlib
import json
import logging
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import checks
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from matches.models import Match, Submission
from matches.services.line_rows import lines_insert

log = logging.getLogger(__name__)

# A journal's row: a Submission's columns as a protocol server fills them (the rest are
# the same for every line: not counted, no dialect).
COLUMNS = ("match_id", "team_id", "turn", "received_at", "remote_addr", "content_type",
           "body", "body_size", "body_sha256", "actions", "status_code", "error", "detail",
           "entered_by", "note")
_SCHEMA = ("CREATE TABLE IF NOT EXISTS line (id INTEGER PRIMARY KEY AUTOINCREMENT, "
           + ", ".join(COLUMNS) + ")")
_INSERT = (f"INSERT INTO line ({', '.join(COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(COLUMNS))})")


def wanted() -> bool:
    """Whether this machine's processes keep their lines in a journal first:
    SPECTATOR_LINE_JOURNAL (settings), by default whenever the database is not SQLite."""
    chosen = getattr(settings, "LINE_JOURNAL", None)
    if chosen is not None:
        return bool(chosen)
    return connections[DEFAULT_DB_ALIAS].vendor != "sqlite"


def in_use() -> bool:
    """Whether this process keeps its lines in its journal: it is `wanted`, and opens
    (now, at the process's first line). A process whose journal cannot be opened (its
    folder not writable by the server's user, a full disk) says so once in its log and
    stores each line in the database, as on SQLite: slower, nothing lost, no game
    stopped. (`manage.py check` and every command's start warn of an unwritable folder
    beforehand: `journal_folder_check`.)"""
    if not wanted():
        return False
    if _JOURNAL is not None and _JOURNAL.pid == os.getpid():
        return True
    if os.getpid() == _UNUSABLE:
        return False
    try:
        journal()
    except (OSError, sqlite3.Error) as error:
        _unusable(error)
        return False
    return True


_UNUSABLE: int | None = None  # the process whose journal could not be opened


def _unusable(error: Exception) -> None:
    global _UNUSABLE
    _UNUSABLE = os.getpid()
    log.error("no journal of lines can be kept in %s (%r): this process stores each line "
              "in the database before its answer instead (slower)", folder(), error)


@checks.register()
def journal_folder_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Said at every command's start where the journal is wanted and its folder cannot be
    made or written (a worker machine's var/ left to another user): its processes will
    store their lines in the database instead."""
    if not wanted():
        return []
    place = Path(settings.VAR_DIR) / "journal"
    existing = next(folder for folder in (place, *place.parents) if folder.exists())
    if os.access(existing, os.W_OK | os.X_OK) and existing.is_dir():
        return []
    return [checks.Warning(
        f"{place}: the journal of lines cannot be kept there ({existing} is not a "
        "writable folder); each CHaser line will be stored in the database before its "
        "answer instead, slower", hint="make it a folder the servers' user can write, or "
        "set SPECTATOR_LINE_JOURNAL=0", id="spectator.W001")]


def folder() -> Path:
    """The journals of this machine's processes for this database: a folder of its own
    for each database (`_database_key`), so that a journal is only ever moved into the
    database whose lines it kept, never into another that shares the machine's var/
    folder (several test runs' databases; one made anew under the same name, whose rows
    take the same ids again)."""
    return Path(settings.VAR_DIR) / "journal" / _database_key()


@functools.cache
def _database_key() -> str:
    """What tells this database from every other: where it is, its name and, on
    PostgreSQL, its object id (a database dropped and made again gets a new one); on
    SQLite (where a journal is kept only when asked for), its file's inode. (Read once
    a process.)"""
    database = connections[DEFAULT_DB_ALIAS]
    name = str(database.settings_dict.get("NAME"))
    if database.vendor == "sqlite":
        try:
            identity = str(os.stat(name).st_ino)
        except OSError:
            identity = ""
    else:
        with database.cursor() as cursor:
            cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
            identity = str(cursor.fetchone()[0])
    where = f"{database.vendor}:{database.settings_dict.get('HOST')}:" \
            f"{database.settings_dict.get('PORT')}:{name}:{identity}"
    return f"{database.vendor}-{hashlib.sha256(where.encode()).hexdigest()[:16]}"


class Journal:
    """This process's journal: its file, locked while the process lives, and a
    connection to it for each thread that stores (SQLite's connections stay with their
    thread)."""

    def __init__(self, place: Path | None = None) -> None:
        self.pid = os.getpid()
        # (the machine's name and the process's, and a token: a pid comes round again)
        self.path = (place or folder()) / \
            f"{socket.gethostname()}-{self.pid}-{secrets.token_hex(4)}.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # The lock first (a journal is never without its lock file: `recover`).
        self.lock = open(_lock_path(self.path), "w")  # noqa: SIM115 (held for life)
        fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.local = threading.local()
        self.connect()  # (the file and its table, now)

    def connect(self) -> sqlite3.Connection:
        """This thread's connection to the journal."""
        kept = getattr(self.local, "connection", None)
        if kept is None:
            kept = _opened(self.path)
            kept.execute(_SCHEMA)
            self.local.connection = kept
        return kept

    def keep(self, row: Sequence[Any]) -> int:
        """A line (COLUMNS' values as Python has them) kept, committed; its journal id."""
        values = list(row)
        values[3] = values[3].isoformat()
        values[9] = None if values[9] is None else json.dumps(values[9])
        return self.connect().execute(_INSERT, values).lastrowid

    def rows(self, match_id: int) -> list[tuple[Any, ...]]:
        """The match's lines kept, in order: (journal id, COLUMNS' values)."""
        return [_row(kept) for kept in self.connect().execute(
            f"SELECT id, {', '.join(COLUMNS)} FROM line WHERE match_id = ? ORDER BY id",
            (match_id,))]

    def forget(self, match_id: int, last: int) -> None:
        """The match's lines up to journal id `last`, moved into the database."""
        self.connect().execute("DELETE FROM line WHERE match_id = ? AND id <= ?",
                               (match_id, last))

    def close(self) -> None:
        """At the process's end: an empty journal removed, one with lines left for the
        next process (`recover`)."""
        try:
            with contextlib.closing(_opened(self.path)) as reading:
                left = reading.execute("SELECT count(*) FROM line").fetchone()[0]
        except sqlite3.Error:
            return
        if not left:
            _remove(self.path)


_JOURNAL: Journal | None = None
_OPENING = threading.Lock()


def journal() -> Journal:
    """This process's journal, opened at its first line (anew in a forked process), after
    the journals of the machine's dead processes have been moved (`recover`)."""
    global _JOURNAL
    if _JOURNAL is None or _JOURNAL.pid != os.getpid():
        with _OPENING:
            if _JOURNAL is None or _JOURNAL.pid != os.getpid():
                try:
                    recover()
                except Exception:  # (the dead's lines wait for the next process: this
                    log.exception("journals of ended processes not moved")  # one plays)
                _JOURNAL = Journal()
                atexit.register(_JOURNAL.close)
    return _JOURNAL


def recover() -> int:
    """Move the lines of every journal in the folder that no living process holds into
    the database, then delete it; how many lines were moved. A line already in the
    database (its process died after the database's commit, before the journal's) is not
    moved again, nor one of a match the database no longer has: that is logged."""
    moved = 0
    for path in sorted(folder().glob("*.sqlite3")) if folder().is_dir() else ():
        with _unheld(path) as free:
            if not free:
                continue
            try:
                with contextlib.closing(_opened(path)) as reading:
                    reading.execute(_SCHEMA)
                    rows = [_row(kept) for kept in reading.execute(
                        f"SELECT id, {', '.join(COLUMNS)} FROM line ORDER BY id")]
            except sqlite3.Error as error:
                log.error("journal %s unreadable (%s): left where it is", path, error)
                continue
            moved += _recovered(path, rows)
            _remove(path)
    return moved


def _recovered(path: Path, rows: list[tuple[Any, ...]]) -> int:
    """A dead process's lines moved into the database, but those already there."""
    matches = {row[1] for row in rows}
    known = set(Match.objects.filter(pk__in=matches).values_list("pk", flat=True))
    if matches - known:  # (matches deleted since: their lines go with them)
        log.info("journal %s: lines of matches %s not in the database: dropped", path,
                 sorted(matches - known))
    # (what tells one line from another: its team, when it came, its hash, its verdict
    # and who entered it; a row is its journal id, then COLUMNS)
    there = set(Submission.objects.filter(match_id__in=known).values_list(
        "team_id", "received_at", "body_sha256", "status_code", "entered_by"))
    fresh = [row for row in rows if row[1] in known
             and (row[2], row[4], row[9], row[11], row[14]) not in there]
    with transaction.atomic():
        lines_insert([row[1:] for row in fresh])
    if fresh:  # (what it is for: not a warning)
        log.info("journal %s of a process that ended: %d lines moved into the database "
                 "(%d there already)", path, len(fresh), len(rows) - len(fresh))
    return len(fresh)


def _row(kept: Sequence[Any]) -> tuple[Any, ...]:
    values = list(kept)
    values[4] = datetime.fromisoformat(values[4])  # received_at (after the id)
    values[10] = None if values[10] is None else json.loads(values[10])  # actions
    return tuple(values)


def _opened(path: Path) -> sqlite3.Connection:
    opened = sqlite3.connect(path, isolation_level=None, timeout=10)
    opened.execute("PRAGMA journal_mode=WAL")
    opened.execute("PRAGMA synchronous=NORMAL")
    return opened


def _lock_path(path: Path) -> Path:
    return path.with_suffix(".lock")


@contextlib.contextmanager
def _unheld(path: Path) -> Iterator[bool]:
    """Whether no process holds the journal's lock (held meanwhile by this one)."""
    try:
        lock = open(_lock_path(path), "a")  # noqa: SIM115
    except OSError:
        yield False
        return
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True


def _remove(path: Path) -> None:
    """A journal's files, its lock last."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), _lock_path(path)):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()
