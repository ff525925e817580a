"""Fast play (a hosted scrimmage's, docs/programs.md "Fast play"): a timed turn's
strategy step closes as soon as every team has answered it, through the judges' one
source of timing (a "close" entry of the control log), so the clock resolves it then
and the next turn opens after its transition; a match played for a hall keeps its
timing to the second."""

from datetime import timedelta

import pytest

from matches.models import Match
from matches.models.hand import hand_at
from matches.services.clock import clock_tick
from tests.factories import make_match, submit

PUT = [{"agent": 0, "type": "put", "x": 0, "y": 0}]


def fast(match) -> Match:
    Match.objects.filter(pk=match.pk).update(fast_play=True)
    return Match.objects.get(pk=match.pk)


@pytest.mark.django_db(transaction=True)
def test_a_turn_closes_once_both_teams_have_answered_and_the_next_follows():
    match, tokens = make_match(strategy=30, transition=0.5, start_in=-0.5)
    match = fast(match)
    answered = match.opens_at(1) + timedelta(seconds=1)
    submit(match, tokens[0], PUT, 1)
    assert Match.objects.get(pk=match.pk).deadline(1) == match.deadline(1)  # one: waits
    submit(match, tokens[1], [], 1)
    closed = Match.objects.get(pk=match.pk)
    assert abs((closed.deadline(1) - answered).total_seconds()) < 0.002
    assert closed.opens_at(2) - closed.deadline(1) == timedelta(seconds=0.5)
    assert closed.control_log[-1]["action"] == "close"
    assert closed.control_log[-1]["by"] == "fast play"
    assert hand_at(closed.control_log).credits == closed.credits  # the log, the one source
    # The clock resolves it at once, not 29 seconds later.
    assert clock_tick(now=answered + timedelta(milliseconds=10)) == 1
    assert Match.objects.get(pk=match.pk).resolved_turns == 1


@pytest.mark.django_db(transaction=True)
def test_a_match_for_the_hall_keeps_its_timing_whoever_has_answered():
    match, tokens = make_match(strategy=30, transition=0.5, start_in=-0.5)
    submit(match, tokens[0], PUT, 1)
    submit(match, tokens[1], [], 1)
    kept = Match.objects.get(pk=match.pk)
    assert kept.deadline(1) == match.deadline(1) and kept.control_log == []
    assert clock_tick(now=match.opens_at(1) + timedelta(seconds=2)) == 0
