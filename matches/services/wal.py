"""SQLite's write-ahead log, folded back into the database by the processes that write
it, off the path anyone waits on (docs/architecture.md, "The outbox").

The settings raise SQLite's automatic checkpoint to 16,384 pages, a backstop: the
commit that crosses it copies the whole log on the thread that made it (66-67 ms on this
machine, in a CHaser game's store of its turns: bench/store.py --no-fold). So the log is
folded back before it gets there: by the clock, on its own thread, after each transition
(services/clock.py); and, for the protocol servers' games, which commit a line at a time
(a 125-turn CHaser game leaves 17 MB of log), by a thread of the process's own that
`fold_soon` wakes: it checkpoints on a connection of its own, in SQLite's code, without
the interpreter's lock, while the game goes on. Games played back to back without a
pause still let the log grow (SQLite restarts it only once a fold has caught up with
every write), and the backstop then lands on a game with less to copy (12-35 ms).
PASSIVE, always: a checkpoint never waits for, nor blocks, a reader or a writer.
"""

from __future__ import annotations

import logging
import threading
import time

from django.db import close_old_connections, connection

log = logging.getLogger(__name__)

# Seconds at least between two folds of the same process: a fold copies each page
# written since the last (its newest version) into the database, whatever the log holds.
FOLD_GAP = 0.1


def checkpoint() -> None:
    """On SQLite, fold the write-ahead log back into the database now, on this thread's
    connection. (SQLite refuses it inside a transaction, and a caller's transaction is
    left to its own commit.)"""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")


class Folder:
    """The process's folding thread, started at the first `soon` (again in a process
    forked from one that had it: a fork has no other thread): it folds the log back once
    `soon` was asked since its last fold, FOLD_GAP apart at least."""

    def __init__(self) -> None:
        self.wanted = threading.Event()
        self.started = threading.Lock()
        self.thread: threading.Thread | None = None
        self.folds = 0  # (how many it made: the tests read it)

    def soon(self) -> None:
        if connection.vendor != "sqlite":
            return
        self.wanted.set()
        if self.thread is None or not self.thread.is_alive():  # (none yet, or forked)
            with self.started:
                if self.thread is None or not self.thread.is_alive():
                    self.thread = threading.Thread(target=self._run, name="wal-folder",
                                                   daemon=True)
                    self.thread.start()

    def _run(self) -> None:
        while True:
            self.wanted.wait()
            self.wanted.clear()
            try:
                close_old_connections()
                checkpoint()
                self.folds += 1
            except Exception as error:  # (the next fold tries again: the thread lives on)
                log.warning("the write-ahead log was not folded back: %s", error)
            time.sleep(FOLD_GAP)


FOLDER = Folder()


def fold_soon() -> None:
    """Have the write-ahead log folded back soon, by the process's folding thread (on
    SQLite; nothing elsewhere). Costs this thread a flag."""
    FOLDER.soon()
