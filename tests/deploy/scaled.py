"""The services of the scaled set-ups (docs/deployment.md), each a test's own, started
and stopped by tests/databases.sh beside the run's PostgreSQL and Redis: a PgBouncer in
transaction pooling mode, another Redis (a channel-layer shard), a Redis Sentinel.

A service that cannot start (its Debian package missing, say) fails the test with what
tests/databases.sh said: it is never skipped in the PostgreSQL + Redis pass."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from tests.conftest import ROOT, free_port, test_database_url

SCRIPT = ROOT / "tests" / "databases.sh"


class Extras:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # (the run's own services, whose ports tests/databases.sh records its extras by)
        self.env = dict(os.environ,
                        TEST_PG_PORT=str(urlparse(test_database_url()).port),
                        TEST_REDIS_PORT=str(urlparse(os.environ["REDIS_URL"]).port))

    def _run(self, *args: str) -> None:
        done = subprocess.run(["bash", str(SCRIPT), *args, ], env=self.env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            pytest.fail(f"tests/databases.sh {' '.join(args)} failed:\n{done.stderr}",
                        pytrace=False)

    def pgbouncer(self) -> int:
        """A PgBouncer (transaction pooling) in front of the test PostgreSQL: its port."""
        port = free_port()
        self._run("pgbouncer", str(self.folder), str(port))
        return port

    def redis(self) -> str:
        """Another Redis, empty: its URL."""
        port = free_port()
        self._run("redis", str(self.folder), str(port))
        return f"redis://127.0.0.1:{port}/0"

    def sentinel(self, master: str) -> int:
        """A Sentinel watching the run's Redis as `master`: its port."""
        port = free_port()
        self._run("sentinel", str(self.folder), str(port), master)
        return port

    def stop(self) -> None:
        self._run("stop-extras", str(self.folder))


@pytest.fixture
def extras(tmp_path):
    started = Extras(tmp_path / "extras")
    try:
        yield started
    finally:
        started.stop()


def with_port(url: str, port: int) -> str:
    """`url` with another port (the same host, login and database)."""
    place = urlparse(url)
    login = place.netloc.rpartition("@")[0]
    return urlunparse(place._replace(netloc=f"{login}@{place.hostname}:{port}" if login
                                     else f"{place.hostname}:{port}"))


def redis_db() -> int:
    """The run's Redis database of this test process (tests/workers.py: one a worker)."""
    return int(urlparse(os.environ["REDIS_URL"]).path.strip("/") or 0)


def a_match_played_on(ports: list[int]):
    """A six-turn match a team plays through the servers on `ports` while viewers on each
    watch: every viewer gets every turn once and in order, each turn is resolved once
    and replays as stored, the team's answers are stored. The match."""
    from matches.models import Submission
    from tests.deploy.checks import (
        STEP,
        assert_every_turn_once_in_order,
        assert_resolved_once_and_replayed,
        viewers_of,
    )
    from tests.deploy.conftest import Player, Watching
    from tests.factories import make_match

    match, tokens = make_match(turns=6, start_in=3, **STEP)
    with Player(ports, match.pk, tokens[0]):
        viewers = Watching(viewers_of(match, ports)).finish()
    assert_every_turn_once_in_order(viewers, 6)
    assert_resolved_once_and_replayed(match)
    assert Submission.objects.filter(match=match, status_code__lt=300).exists()
    return match
