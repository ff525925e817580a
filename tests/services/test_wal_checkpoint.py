"""On SQLite the clock, not a team's submission, folds the write-ahead log back, and a
protocol server's games have it folded by a thread of their process's own.

The WAL index (the -shm file, https://sqlite.org/walformat.html) records how many
frames the log holds (mxFrame, offset 16) and how many of them a checkpoint has
copied into the database (nBackfill, offset 96), in the machine's byte order.
"""

import struct
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from matches.models import Submission
from matches.protocol_servers.chaser.maps import map_path, map_read
from matches.rules import chaser
from matches.services import protocol, wal
from matches.services.clock import clock_tick
from tests.factories import make_match

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite",
                                reason="the write-ahead log is SQLite's")


def log_frames() -> tuple[int, int]:
    """(frames in the log, frames already copied into the database).

    Read by a process of its own: SQLite's locks on the index are POSIX locks, which a
    process loses on closing any descriptor of the file, even one SQLite never opened.
    Read here, this process would lose the lock that says it has the index mapped; the
    next process to open the database (a server's, a worker's) would take itself for the
    first, truncate the index, and this process's next access to it would die of SIGBUS
    (it did, in a CHaser game's thread, two full runs in three)."""
    index = subprocess.run(
        [sys.executable, "-c", "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb')"
         ".read(128))", connection.settings_dict["NAME"] + "-shm"],
        capture_output=True, check=True).stdout
    (max_frame,) = struct.unpack_from("=I", index, 16)
    (backfilled,) = struct.unpack_from("=I", index, 96)
    return max_frame, backfilled


@pytest.mark.django_db(transaction=True)
def test_writes_stay_in_the_log_until_the_clock_checkpoints_after_a_transition():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=5)
    team = match.teams.first()
    for _ in range(250):
        Submission.objects.create(match=match, team=team, turn=1,
                                  received_at=match.start_at, body=b"{}" * 1000,
                                  body_size=2000, status_code=400, error="x")
    frames, copied = log_frames()
    # SQLite's default would have checkpointed (and restarted the log) at 1,000 frames.
    assert frames > max(1000, copied)

    assert clock_tick(now=match.start_at + timedelta(seconds=2)) == 1
    frames, copied = log_frames()
    assert frames == copied > 0


@pytest.mark.django_db(transaction=True)
def test_a_tick_that_resolves_nothing_leaves_the_log_alone():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=5)
    frames, copied = log_frames()
    assert clock_tick(now=match.start_at + timedelta(seconds=1)) == 0
    assert log_frames() == (frames, copied)


def folded_since(folds: int) -> bool:
    """Whether the folding thread made a fold since it had made `folds` (five seconds at
    most: it is woken, then folds at once)."""
    deadline = time.monotonic() + 5
    while wal.FOLDER.folds == folds and time.monotonic() < deadline:
        time.sleep(0.01)
    return wal.FOLDER.folds > folds


@pytest.mark.django_db(transaction=True)
def test_a_protocol_games_turns_have_the_log_folded_back_by_another_thread():
    """A CHaser game's lines, each its own commit, fill the log; once its turns are
    stored, the process's folding thread copies it all into the database, while the
    game's thread goes on (it only wakes the folder)."""
    record = map_read(map_path("akisato_m01"))
    board = protocol.map_board("CHaser m01", record["board"], "map file", "chaser")
    game = protocol.game_create(board=board, team_names=["Cool", "Hot"], turns=10,
                                title="folded", public_live=False)
    state, turns = chaser.new_state(board.data, 10), []
    for turn in (1, 2, 3):
        counted = {}
        for player in (0, 1):
            actions = [{"command": "lu"}]
            counted[player] = (protocol.line_store(game, player, turn, b"lu\r\n",
                                                   timezone.now(), "127.0.0.1", status=202,
                                                   actions=actions), actions)
            state, _ = chaser.step(state, player, "lu")
        state = chaser.end_turn(state)
        turns.append(counted)
    frames, copied = log_frames()
    assert frames > copied  # (the lines are in the log only)

    folds = wal.FOLDER.folds
    protocol.turns_store(game, turns, watched=False)
    assert folded_since(folds)
    frames, copied = log_frames()
    assert frames == copied > 0
    assert game.match.resolved_turns == 3
