"""PostgreSQL behind a PgBouncer in transaction pooling mode (DATABASE_POOLER=pgbouncer,
docs/deployment.md): two daphne servers and a clock reach the database through it, a
match plays, its answers and turns are stored, and its page (whose turns Django reads
with iterator(): no server-side cursor here) is served. The clock waits for new matches
only on PostgreSQL's NOTIFY (an idle wake-up of a minute), which reaches it because it
listens on PostgreSQL itself (DATABASE_DIRECT_URL), not through PgBouncer."""

import subprocess
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import test_database_url
from tests.deploy.conftest import wait_until
from tests.deploy.scaled import a_match_played_on, extras, with_port  # noqa: F401 (the fixture)
from tests.e2e.conftest import wait_for_port

# (the PostgreSQL + Redis pass of make test only: it needs both)
pytestmark = pytest.mark.once_on_postgres


def listening_clocks() -> int:
    """The sessions of this test database that LISTEN for new matches."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                       "current_database() AND query = 'LISTEN matches_clock'")
        return cursor.fetchone()[0]


def bouncer_stats(port: int) -> dict[str, dict[str, str]]:
    """PgBouncer's SHOW STATS, by database (its console speaks to psql only)."""
    psql = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))[-1]
    done = subprocess.run([str(psql), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                           "-d", "pgbouncer", "-A", "-F", "|", "-c", "SHOW STATS"],
                          capture_output=True, text=True, timeout=30, check=True)
    header, *rows = done.stdout.splitlines()[:-1]  # (the last line counts the rows)
    names = header.split("|")
    return {row.split("|")[0]: dict(zip(names, row.split("|"), strict=True)) for row in rows}


def test_a_match_through_pgbouncer_in_transaction_mode(venue, extras):  # noqa: F811
    bouncer = extras.pgbouncer()
    direct = test_database_url()
    venue.env.update(DATABASE_URL=with_port(direct, bouncer), DATABASE_POOLER="pgbouncer",
                     DATABASE_DIRECT_URL=direct)
    ports = [venue.server()[1] for _ in range(2)]
    before = listening_clocks()
    venue._start("clock-1", "manage.py", "runclock", "--idle-seconds", "60")
    for port in ports:
        wait_for_port(port)
    wait_until(lambda: listening_clocks() > before, "the clock's LISTEN on PostgreSQL")
    match = a_match_played_on(ports)
    with urllib.request.urlopen(f"http://127.0.0.1:{ports[0]}/matches/{match.pk}/",
                                timeout=30) as page:
        assert page.status == 200
    # the servers' and the clock's transactions went through PgBouncer
    assert int(bouncer_stats(bouncer)[connection.settings_dict["NAME"]]["total_xact_count"]) > 20
