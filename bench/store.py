"""A protocol server's storage, in-process: python bench/store.py [--games 6] [--batch 20]
[--no-fold] [--deployed]

What a CHaser game costs its database, without sockets or programs: in a scratch folder
on the embedded default (SQLite), or with `--deployed` on DATABASE_URL's PostgreSQL (a
database of its own: it is migrated), plays `--games` games of 125 turns back to back
as the game's thread stores them (services/protocol.py): each of a turn's six lines
stored alone before its answer would go (`line_store`), and the turns `--batch` at a
time (`turns_store`, as while nobody watches: STORE_EVERY in
protocol_servers/chaser/game.py gathered about 20 of a fast game's turns at 20 ms, 50-70
at 0.1 s, its value now). On PostgreSQL the lines are kept in the process's journal first
and move with their turns (services/local_journal.py). Prints a
line's store p50 and p99, a batch's p50 and longest, each game's total and, on SQLite,
how much write-ahead log the games left and how many folds the folding thread made
(services/wal.py; `--no-fold`: none, to compare). A batch far over the others is SQLite's
own checkpoint landing on the game's commit, which the folding thread is there to
forestall.

Measured 2026-11-29 evening (SQLite, quiet, `--games 8`, two runs each way): a line
0.035-0.036 ms p50, 0.16-0.19 ms p99; a batch of 20 turns 3.2-3.4 ms p50 (18 ms, in the
same game's store timed by hand, before a batch was played in one `_play`); the longest
batch, SQLite's own checkpoint landing on a game's commit once the log's file reaches
its 64 MB (within four games), 66-67 ms with `--no-fold` and 12-35 ms with the folding
thread, which folded 5 times in the 8 games (back to back, they give SQLite no moment to
restart its log). PostgreSQL (`--deployed`, the test one: fsync and synchronous_commit
off; `--games 3`): a line 0.221 ms p50, 0.61 ms p99 (six times SQLite's: a round trip to
the server, 0.075 ms for a `SELECT 1`, and its insert); a batch 7.3 ms p50. Later, with
the journal (`--games 8`): a line 0.026-0.028 ms p50 (kept on this machine), a batch of
20 turns and their 120 lines 16.2 ms p50; `--batch 70` 41 ms (55 before its lines were
moved as one array a column), on SQLite 11 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

READS = ["lu", "sr", "ld", "sl", "su", "lr", "sd", "ll"]  # (the game runs to its end)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--no-fold", action="store_true",
                        help="without the folding thread (SQLite's own checkpoint only)")
    parser.add_argument("--deployed", action="store_true",
                        help="on DATABASE_URL's PostgreSQL (a database of its own)")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-store-"))
    os.environ.update(SPECTATOR_VAR_DIR=str(scratch),
                      DJANGO_SETTINGS_MODULE="spectator.settings")
    if not options.deployed:
        os.environ.pop("DATABASE_URL", None)
    elif not os.environ.get("DATABASE_URL"):
        raise SystemExit("--deployed: set DATABASE_URL")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    if options.no_fold:
        from matches.services import wal

        wal.FOLDER.soon = lambda: None
    try:
        run(options)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return
    if connection.vendor == "sqlite":
        from matches.services import wal

        log = Path(connection.settings_dict["NAME"] + "-wal")
        size = log.stat().st_size if log.exists() else 0
        print(f"the write-ahead log's file: {size / 2**20:.1f} MB after the games; "
              f"the folding thread folded it {wal.FOLDER.folds} times")
    with connection.cursor() as cursor:
        began = time.perf_counter()
        for _ in range(500):
            cursor.execute("SELECT 1")
        print(f"a `SELECT 1` round trip: {(time.perf_counter() - began) * 2:.3f} ms")


def run(options) -> None:
    from django.db import connection
    from django.utils import timezone

    from matches.protocol_servers.chaser.maps import map_path, map_read
    from matches.rules import chaser
    from matches.services import protocol

    record = map_read(map_path("akisato_m01"))
    board = protocol.map_board("CHaser m01", record["board"], "map file", "chaser")
    lines, batches = [], []
    print(f"{connection.vendor}: {options.games} games of 125 turns, turns stored "
          f"{options.batch} at a time")
    for number in range(1, options.games + 1):
        game = protocol.game_create(board=board, team_names=["Cool", "Hot"], turns=125,
                                    title=f"bench {number}", public_live=False)
        state, pending, took = chaser.new_state(board.data, 125), [], []
        for turn in range(1, 126):
            counted = {}
            for player in (0, 1):
                for text in ("gr", READS[turn % len(READS)], "#"):
                    actions = None if text in ("gr", "#") else [{"command": text}]
                    began = time.perf_counter()
                    pk = protocol.line_store(game, player, turn, text.encode() + b"\r\n",
                                             timezone.now(), "127.0.0.1",
                                             status=200 if actions is None else 202,
                                             actions=actions)
                    lines.append((time.perf_counter() - began) * 1000)
                    if actions is not None:
                        counted[player] = (pk, actions)
                        state, _ = chaser.step(state, player, text)
            state = chaser.end_turn(state)
            pending.append(counted)
            if len(pending) == options.batch or turn == 125:
                began = time.perf_counter()
                protocol.turns_store(game, pending, False)
                took.append((time.perf_counter() - began) * 1000)
                pending = []
        batches += took
        print(f"  game {number}: its batches {' '.join(f'{ms:.1f}' for ms in took)} ms "
              f"(total {sum(took):.0f} ms)")
    lines.sort()
    print(f"a line's store: p50 {lines[len(lines) // 2]:.3f} ms, "
          f"p99 {lines[int(len(lines) * 0.99)]:.3f} ms ({len(lines)} lines)")
    print(f"a batch's store: p50 {statistics.median(batches):.1f} ms, "
          f"longest {max(batches):.1f} ms ({len(batches)} batches)")


if __name__ == "__main__":
    main()
