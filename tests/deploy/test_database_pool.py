"""A server on PostgreSQL holds a pool of connections a process (spectator/settings.py):
an ASGI server runs each request's view on a thread of its own, and a connection kept
by each thread that ended (CONN_MAX_AGE) stayed open until the garbage collector came
by: a flood of practice requests took PostgreSQL to its limit ("too many clients
already") and 100 of them were answered 500 (bench/attack.py --venue --floods practice).

A real daphne process on the test database, many requests at once from many addresses:
the connections it holds afterwards are the pool's, never more."""

import http.client
import threading

from django.conf import settings
from django.db import connection

from tests.e2e.conftest import wait_for_port


def server_connections(before: set[int]) -> int:
    """The connections to the test database opened since `before` (the backends' ids)."""
    return len(backends() - before)


def backends() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return {row[0] for row in cursor.fetchall()}


def get(port: int, address: str, path: str) -> int:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                        source_address=(address, 0))
    try:
        client.request("GET", path)
        return client.getresponse().status
    finally:
        client.close()


def test_a_flood_of_requests_leaves_no_more_connections_open_than_the_pool(venue):
    before = backends()  # this test's own
    _, port = venue.server()
    wait_for_port(port)
    statuses, most = [], 0

    def visitor(number: int) -> None:
        for _ in range(8):  # each a view on a thread of its own, and a query or more
            statuses.append(get(port, f"127.0.0.{10 + number}", "/api/matches/987654"))

    for _ in range(3):
        visitors = [threading.Thread(target=visitor, args=(n,)) for n in range(30)]
        for thread in visitors:
            thread.start()
        for thread in visitors:
            thread.join()
        most = max(most, server_connections(before))
    assert 404 in statuses and set(statuses) <= {404, 429}
    assert most <= settings.DB_POOL_SIZE, f"{most} connections open after {len(statuses)} requests"
