"""Voiding a match (`voidmatch`, matches/services/control.py): it stops at once and has
no result, its teams are told it is over, every screen is told its end in words, and it
counts nowhere (the ladder, a tournament: see tests/tournaments/test_contest.py)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.selectors.ladder import practice_ladder
from matches.selectors.verdicts import verdicts
from matches.services.clock import clock_tick
from matches.services.ladder import ladder_record
from tests.commands.calls import refusal, run
from tests.factories import make_match

pytestmark = pytest.mark.django_db


def test_a_running_match_stops_at_once_has_no_result_and_says_why(client):
    match, tokens = make_match(turns=5, public=True)
    Match.objects.filter(pk=match.pk).update(start_at=timezone.now() - timedelta(seconds=1))
    said = run("voidmatch", str(match.pk), "--reason", "  the hall's power   failed ",
               "--judge", "judy")
    assert said == f"match {match.pk} is void: the hall's power failed\n"
    match.refresh_from_db()
    assert match.over and match.result == {"winner": None, "decided_by": "void",
                                           "reason": "the hall's power failed", "by": "judy"}
    clock_tick(timezone.now() + timedelta(seconds=60))  # the clock resolves nothing more
    assert Match.objects.get(pk=match.pk).resolved_turns == 0
    sent = client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert sent.status_code == 409, sent.json()  # over: nothing more counts
    words = verdicts(match, [{"total": 0}, {"total": 0}])
    assert words["en"] == "Void by the judges: the hall's power failed"
    assert words["ja"] != words["en"] and "the hall's power failed" in words["ja"]
    state = client.get(f"/api/matches/{match.pk}").json()
    assert state["result"]["decided_by"] == "void"


def test_a_finished_match_keeps_what_it_had_and_counts_nowhere_on_the_ladder(
        settings, django_capture_on_commit_callbacks):
    settings.PRACTICE = "open"
    match, _ = make_match(turns=1)
    result = {"winner": 0, "decided_by": "total"}
    Match.objects.filter(pk=match.pk).update(ended_early=True, result=result, practice_by="guest:x")
    ladder_record(match)  # as its end would have (the ladder keeps what it rated)
    assert [row["wins"] for row in practice_ladder("kakomimasu") if row["level"] is None] == [1, 0]
    with django_capture_on_commit_callbacks(execute=True):  # the ladder hears of it then
        run("voidmatch", str(match.pk), "--reason", "a judge's mistake")
    match.refresh_from_db()
    assert match.result["voided"] == result and match.result["decided_by"] == "void"
    assert [row for row in practice_ladder("kakomimasu") if row["level"] is None] == []


def test_voiding_is_refused_in_one_line_where_it_cannot_be_done():
    match, _ = make_match(turns=1)
    assert refusal("voidmatch", "999999", "--reason", "x") == "there is no match 999999"
    assert refusal("voidmatch", str(match.pk), "--reason", "  ") == \
        "a void match needs a reason saying why"
    run("voidmatch", str(match.pk), "--reason", "once")
    assert refusal("voidmatch", str(match.pk), "--reason", "twice") == \
        f"match {match.pk} is void already"
