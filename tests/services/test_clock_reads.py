"""What the clock reads at every tick goes through the index of unfinished matches, so
its work follows the matches under way, not the history of finished ones (issue "Work
in proportion to what happens")."""

from datetime import timedelta

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
    Match.objects.update(ended_early=True)  # history
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


@pytest.mark.django_db(transaction=True)  # (a tick closes a connection left unusable)
def test_a_tick_with_nothing_due_reads_the_database_once():
    from matches.services.clock import tick_and_wait

    make_match(start_in=-1, strategy=3600)  # under way, its step open for an hour
    make_match(start_in=10, strategy=5)  # to come: its first deadline in 15 s
    make_match(start_in=60, strategy=5)
    tick_and_wait(woken=True)  # (the tournaments' runner reads its schedule once)
    with CaptureQueriesContext(connection) as read:
        delay = tick_and_wait(idle_seconds=60)
    assert len(read.captured_queries) == 1, [q["sql"] for q in read.captured_queries]
    assert 14 < delay <= 15  # the next deadline, known from that one read


def test_a_turn_reads_its_match_s_rows_without_joining_the_match():
    """The teams and turns of one match are read at every turn (its message, the lists'
    line): ordered within their match by its id, not by the match's own order, which
    would join and sort the matches table each time."""
    match, _ = make_match(start_in=-1, strategy=1, transition=1, turns=3)
    clock_tick(match.deadline(1) + timedelta(seconds=1))
    with CaptureQueriesContext(connection) as read:
        assert [team.index for team in match.teams.all()] == [0, 1]
        assert [turn.number for turn in match.turn_rows.all()] == [1]
    assert len(read) == 2
    assert all('"matches_match"' not in query["sql"] for query in read.captured_queries), \
        read.captured_queries


@pytest.mark.django_db(transaction=True)  # (the turns' announcements run at the commit)
def test_turns_due_together_take_as_many_queries_for_eight_matches_as_for_two():
    def queries_of_a_tick(count: int) -> int:
        matches = [make_match(start_in=-10, strategy=3600)[0] for _ in range(count)]
        due = timezone.now() + timedelta(seconds=3590)  # every first deadline has passed
        Match.objects.filter(pk__in=[m.pk for m in matches]).update(
            start_at=due - timedelta(seconds=3600))
        with CaptureQueriesContext(connection) as read:
            assert clock_tick(due + timedelta(seconds=1)) == count
        Match.objects.filter(pk__in=[m.pk for m in matches]).update(ended_early=True)
        return len(read.captured_queries)

    assert queries_of_a_tick(8) == queries_of_a_tick(2)


@pytest.mark.django_db
def test_a_wave_leaves_out_the_paused_the_moved_and_the_taken_and_resolves_the_rest():
    from matches.services.transition import Due, turns_resolve

    made = [make_match(start_in=-10, strategy=1, transition=1)[0] for _ in range(4)]
    paused, moved, taken, free = made
    Match.objects.filter(pk=paused.pk).update(paused_at=timezone.now())
    turns_resolve([Due(taken.pk, 1)])  # another clock's, before this one's wave
    stale = moved.deadline(1) - timedelta(seconds=5)  # the deadline read, since moved
    rows = turns_resolve([Due(paused.pk, 1, paused.deadline(1)), Due(moved.pk, 1, stale),
                          Due(taken.pk, 1, taken.deadline(1)), Due(free.pk, 1, free.deadline(1))])
    assert list(rows) == [free.pk] and rows[free.pk].number == 1
    assert {m.pk: m.resolved_turns for m in Match.objects.filter(pk__in=[m.pk for m in made])} \
        == {paused.pk: 0, moved.pk: 0, taken.pk: 1, free.pk: 1}


def test_read_ahead_the_claim_reads_only_the_rows_and_a_change_since_still_counts():
    """A clock reads the matches with a turn about to fall due before its deadline, with
    their board and teams (transition.turns_ahead); at the deadline the claim reads only
    their rows, locked: what the judges changed meanwhile (a hold, a moved deadline,
    the match's title) is what counts, and the read-ahead copy is left as it was."""
    from matches.services.transition import Due, turns_ahead, turns_resolve

    made = [make_match(start_in=-10, strategy=1, transition=1)[0] for _ in range(4)]
    held, moved, renamed, plain = made
    ahead = turns_ahead([m.pk for m in made])
    Match.objects.filter(pk=held.pk).update(paused_at=timezone.now())
    Match.objects.filter(pk=moved.pk).update(start_at=moved.start_at + timedelta(seconds=3))
    Match.objects.filter(pk=renamed.pk).update(title="Final, renamed")
    due = [Due(m.pk, 1, m.deadline(1)) for m in made]
    with CaptureQueriesContext(connection) as read:
        rows = turns_resolve(due, ahead=ahead)
    assert sorted(rows) == sorted([renamed.pk, plain.pk])
    assert rows[renamed.pk].match.title == "Final, renamed"
    assert ahead[renamed.pk].resolved_turns == 0 and ahead[renamed.pk].title != "Final, renamed"
    with CaptureQueriesContext(connection) as later:  # (what the announcement reads)
        assert rows[plain.pk].match.board.width == plain.board.width
        assert [team.name for team in rows[plain.pk].match.teams.all()] == ["Alpha", "Beta"]
    assert len(later) == 0
    reads = [query["sql"] for query in read.captured_queries if query["sql"].startswith("SELECT")]
    assert sum('FROM "matches_match"' in sql for sql in reads) == 1, reads  # the locked one
    assert not any('FROM "matches_board"' in sql or 'FROM "matches_team"' in sql
                   for sql in reads), reads
    assert {m.pk: m.resolved_turns for m in Match.objects.filter(pk__in=[m.pk for m in made])} \
        == {held.pk: 0, moved.pk: 0, renamed.pk: 1, plain.pk: 1}
