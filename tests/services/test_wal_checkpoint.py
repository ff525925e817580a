"""On SQLite the clock, not a team's submission, folds the write-ahead log back.

The WAL index (the -shm file, https://sqlite.org/walformat.html) records how many
frames the log holds (mxFrame, offset 16) and how many of them a checkpoint has
copied into the database (nBackfill, offset 96), in the machine's byte order.
"""

import struct
import subprocess
import sys
from datetime import timedelta

import pytest
from django.db import connection

from matches.models import Submission
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
