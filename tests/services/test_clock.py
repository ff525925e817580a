"""The clock: due turns resolved in order, exactly once, also after a restart."""

import time
from datetime import timedelta

import pytest

from matches.models import Match, Turn
from matches.rules.timeline import compute_timeline
from matches.selectors import match_record
from matches.services import turns
from matches.services.turns import clock_tick
from tests.factories import make_match


def stored_equals_replay(match: Match) -> bool:
    timeline = compute_timeline(match_record(match))
    stored = [row.state() for row in match.turn_rows.order_by("number")]
    replayed = [dict(state) for state in timeline["states"][1:]]
    return stored == [{k: s[k] for k in ("turn", "cells", "agents", "outcomes", "scores")}
                      for s in replayed]


@pytest.mark.django_db
def test_nothing_is_resolved_before_the_first_deadline():
    match, _ = make_match(strategy=5, transition=1, start_in=0)
    assert clock_tick(now=match.start_at + timedelta(seconds=4.9)) == 0
    assert clock_tick(now=match.start_at + timedelta(seconds=5)) == 1
    assert list(match.turn_rows.values_list("number", flat=True)) == [1]


@pytest.mark.django_db
def test_missed_deadlines_are_resolved_in_order_and_match_the_replay():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=10)
    assert clock_tick(now=match.start_at + timedelta(seconds=3 * 3 + 2)) == 4
    assert list(match.turn_rows.values_list("number", flat=True)) == [1, 2, 3, 4]
    match.refresh_from_db()
    assert match.resolved_turns == 4 and stored_equals_replay(match)


@pytest.mark.django_db
def test_a_restarted_clock_picks_up_where_the_stored_turns_end():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=6)
    clock_tick(now=match.start_at + timedelta(seconds=2))
    turns._STATES.clear()  # a new process remembers nothing
    assert clock_tick(now=match.start_at + timedelta(seconds=60)) == 5
    match.refresh_from_db()
    assert match.resolved_turns == 6 and match.result is not None
    assert stored_equals_replay(match)
    assert clock_tick(now=match.start_at + timedelta(seconds=120)) == 0


@pytest.mark.django_db
def test_a_turn_claimed_by_another_clock_is_not_resolved_again():
    match, _ = make_match(strategy=2, transition=1, start_in=0)
    assert turns.turn_resolve(match_id=match.pk, number=1) is not None
    assert turns.turn_resolve(match_id=match.pk, number=1) is None
    assert Turn.objects.filter(match=match).count() == 1


def test_two_clock_processes_resolve_every_turn_exactly_once(spawn, tmp_path):
    match, _ = make_match(strategy=0.15, transition=0.05, start_in=1.5, turns=25)
    logs = [tmp_path / "clock1.log", tmp_path / "clock2.log"]
    for log in logs:
        spawn("runclock", log_to=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.resolved_turns == match.turns:
            break
        time.sleep(0.2)
    time.sleep(0.5)  # let both clocks tick once more after the end
    assert list(match.turn_rows.values_list("number", flat=True)) == list(range(1, 26))
    text = [log.read_text() for log in logs]
    claimed = sum(int(line.split("resolved ")[1].split()[0])
                  for log in text for line in log.splitlines() if "resolved " in line)
    assert claimed == 25, text
    assert "Traceback" not in "".join(text)
    assert stored_equals_replay(match)
