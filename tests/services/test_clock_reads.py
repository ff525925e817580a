"""What the clock reads at every tick goes through the index of unfinished matches, so
its work follows the matches under way, not the history of finished ones (issue "Work
in proportion to what happens")."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches.models import Match
from matches.services.clock import clock_tick, next_wakeup
from tests.factories import make_match

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(connection.vendor != "sqlite",
                    reason="reads SQLite's query plans (PostgreSQL plans by its statistics)")
def test_each_tick_searches_the_index_of_unfinished_matches():
    for _ in range(3):
        make_match(turns=1)
    Match.objects.update(closed=True)  # history
    make_match(start_in=-1, strategy=3600)  # under way
    now = timezone.now()
    with CaptureQueriesContext(connection) as read:
        assert clock_tick(now) == 0
        assert next_wakeup(now) is not None
    plans = []
    with connection.cursor() as cursor:
        for query in read.captured_queries:
            cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
            plans.append(" ".join(row[-1] for row in cursor.fetchall()))
    assert len(plans) == 2
    assert all("USING INDEX match_unfinished_start" in plan for plan in plans), plans
