"""The answer API's own cost: service CPU per accepted submission, on the configured database.

Times N submissions through `submission_receive` (no HTTP, no server): the CPU this
process spends per request (`time.process_time`, so the database server's own work is
not in it) and the wall time. Requests alternate between two teams of a fresh match and
are stamped 60 ms apart within one long strategy step, so every one is accepted (none
reaches the rate limit). The match is deleted afterwards.

    DATABASE_URL=postgres://... .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://... .venv/bin/python bench/submission.py [N]
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from matches.services.boards import board_store  # noqa: E402
from matches.services.matches import match_create  # noqa: E402
from matches.services.submissions import Request, submission_receive  # noqa: E402

BOARD = {"width": 8, "height": 8, "points": [[1] * 8 for _ in range(8)]}
BODY = json.dumps({"actions": [{"agent": 0, "type": "put", "x": 1, "y": 1},
                               {"agent": 1, "type": "move", "x": 4, "y": 3}]}).encode()


def requests(match_id: int, tokens: list[str], count: int, start) -> list[Request]:
    return [Request(match_id, f"Bearer {tokens[i % 2]}", BODY, len(BODY), "application/json",
                    "127.0.0.1", start + timedelta(milliseconds=30 * i)) for i in range(count)]


def main(count: int) -> None:
    now = timezone.now()
    created = match_create(board=board_store("bench 8x8", BOARD, "bench"),
                           team_names=["Bench A", "Bench B"], agents=2, turns=1,
                           strategy_seconds=3600, transition_seconds=1, start_at=now,
                           public_live=False)
    match = created.match
    try:
        warm = requests(match.pk, created.tokens, 50, now)
        timed = requests(match.pk, created.tokens, count, now + timedelta(seconds=5))
        for request in warm:  # connections, caches and code paths warmed up
            assert submission_receive(request).status == 202
        cpu, wall = time.process_time(), time.perf_counter()
        statuses = [submission_receive(request).status for request in timed]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        match.delete()
    assert statuses == [202] * count, sorted(set(statuses))
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"{count} accepted submissions through submission_receive on {engine}: "
          f"service CPU {cpu * 1000 / count:.3f} ms per submission, "
          f"wall {wall * 1000 / count:.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
