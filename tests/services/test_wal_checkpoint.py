"""On SQLite the clock, not a team's submission, folds the write-ahead log back.

The WAL index (the -shm file, https://sqlite.org/walformat.html) records how many
frames the log holds (mxFrame, offset 16) and how many of them a checkpoint has
copied into the database (nBackfill, offset 96), in the machine's byte order.
"""

import struct
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection

from matches.models import Submission
from matches.services.clock import clock_tick
from tests.factories import make_match

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite",
                                reason="the write-ahead log is SQLite's")


def log_frames() -> tuple[int, int]:
    """(frames in the log, frames already copied into the database)."""
    index = Path(connection.settings_dict["NAME"] + "-shm").read_bytes()
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
