"""The judges hold a match (matches/services/control.py; pausematch, resumematch,
extendmatch): a pause stops its clock and its answers, a resume gives the time back
(a timed game's deadlines move; an alternating game's mover is credited), an extension
gives more; each once, whichever clock looks, and kept for the audit."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.selectors import move_clock
from matches.services.clock import clock_tick
from matches.services.control import ControlError, match_extend, match_pause, match_resume
from matches.services.transition import turn_resolve
from tests.commands.calls import refusal, run
from tests.factories import make_match

pytestmark = pytest.mark.django_db


def running(strategy=10.0, turns=3, **made):
    """A timed match whose turn 1 opened 4 s ago (6 s of it left)."""
    match, tokens = make_match(turns=turns, strategy=strategy, transition=1.0, **made)
    start = timezone.now() - timedelta(seconds=4)
    Match.objects.filter(pk=match.pk).update(start_at=start)
    match.refresh_from_db()
    return match, tokens


def send(client, match, token, path="/api/matches/{}/actions", body=None):
    return client.post(path.format(match.pk), json.dumps(body or {"actions": []}),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def clock(monkeypatch):
    """Every part of the server reads this time; the test moves it."""
    from tests.api.conftest import Clock

    held = Clock(timezone.now())
    monkeypatch.setattr("django.utils.timezone.now", held.now)
    return held


def test_a_pause_holds_the_clock_and_answers_and_a_resume_gives_the_time_back(client, clock):
    match, tokens = running()
    deadline = match.deadline(1)
    paused_at = timezone.now()
    said = run("pausematch", str(match.pk), "--reason", "Nara's router restarts",
               "--judge", "judy")
    assert said == f"match {match.pk} is paused: Nara's router restarts\n"
    refused = send(client, match, tokens[0])
    assert refused.status_code == 409 and refused.json()["error"] == "paused"
    assert "Nara's router restarts" in refused.json()["detail"]
    shown = client.get(f"/api/matches/{match.pk}").json()["paused"]
    assert shown["reason"] == "Nara's router restarts"
    assert 5000 <= shown["remaining_ms"] <= 6100  # the step's time left when paused
    assert clock_tick(deadline + timedelta(seconds=30)) == 0  # past the old deadline: held
    assert Match.objects.get(pk=match.pk).resolved_turns == 0
    clock.advance(20)
    match_resume(match_id=match.pk, judge="judy")
    match.refresh_from_db()
    held = timedelta(seconds=match.control_log[-1]["seconds"])  # as long as it was paused
    assert match.paused_at is None and match.pause_reason == ""
    assert held == timezone.now() - paused_at == timedelta(seconds=20)
    assert abs(match.deadline(1) - deadline - held) < timedelta(milliseconds=1)  # moved by it
    assert [entry["action"] for entry in match.control_log] == ["pause", "resume"]
    assert client.get(f"/api/matches/{match.pk}").json()["paused"] is None
    assert send(client, match, tokens[0]).status_code == 202  # its step is open again
    assert clock_tick(match.deadline(1) - timedelta(seconds=0.5)) == 0
    assert clock_tick(match.deadline(1) + timedelta(seconds=0.1)) == 1


def test_a_clock_that_read_the_old_deadlines_resolves_nothing():
    """Two clocks: one read the match before the judges moved its deadlines; its claim
    fails (the deadline it found the turn due by has changed), so a turn is never
    resolved early."""
    match, _ = running()
    read = match.deadline(1)
    match_extend(match_id=match.pk, seconds=30, judge="judy")
    assert turn_resolve(match_id=match.pk, number=1, deadline=read) is None
    assert Match.objects.get(pk=match.pk).resolved_turns == 0
    moved = Match.objects.get(pk=match.pk)
    assert moved.deadline(1) - read == timedelta(seconds=30)
    match_pause(match_id=match.pk, reason="a fire drill", judge="judy")
    assert turn_resolve(match_id=match.pk, number=1, deadline=moved.deadline(1)) is None


def test_an_alternating_games_clock_stops_in_a_pause_and_its_mover_is_credited(client):
    made = json.loads(run("creatematch", "--game", "blokus-duo", "--teams", "Alpha", "Beta",
                          "--clock", "60", "--start-in", "0", "--json"))
    match = Match.objects.get(pk=made["id"])
    start = timezone.now() - timedelta(seconds=10)  # Alpha has thought 10 s of its 60
    Match.objects.filter(pk=match.pk).update(start_at=start)
    match.refresh_from_db()
    now = start + timedelta(seconds=10)
    before = move_clock(match, now)["remaining_ms"][0]
    match_pause(match_id=match.pk, reason="a program crashed", judge="judy", now=now)
    match.refresh_from_db()
    later = now + timedelta(minutes=5)  # long past its 60 s: held, so not lost on time
    assert move_clock(match, later)["remaining_ms"][0] == before
    assert move_clock(match, later)["deadline"] is None
    assert clock_tick(later) == 0 and not Match.objects.get(pk=match.pk).over
    token = made["teams"][0]["token"]
    moved = client.post(f"/api/matches/{match.pk}/actions", json.dumps(
        {"actions": [{"move": "55a0"}]}), content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}")
    assert moved.status_code == 409 and moved.json()["error"] == "paused"
    match_resume(match_id=match.pk, judge="judy", now=later)
    match.refresh_from_db()
    assert abs(move_clock(match, later)["remaining_ms"][0] - before) <= 1
    match_extend(match_id=match.pk, seconds=15, judge="judy", reason="the hall's power")
    match.refresh_from_db()
    assert abs(move_clock(match, later)["remaining_ms"][0] - (before + 15000)) <= 1


def test_a_pause_of_the_first_game_moves_the_second_games_start():
    made = json.loads(run("creatematch", "--game", "procon2020", "--teams", "Hà Nội", "Huế",
                          "--board", "random:3", "--turns", "3", "--strategy-seconds", "5",
                          "--transition-seconds", "1", "--start-in", "0", "--json"))
    first = Match.objects.get(pk=made["id"])
    second = first.later_games.get()
    was = second.start_at
    now = timezone.now()
    match_pause(match_id=first.pk, reason="the projector", judge="judy", now=now)
    match_resume(match_id=first.pk, judge="judy", now=now + timedelta(seconds=42))
    second.refresh_from_db()
    assert second.start_at - was == timedelta(seconds=42)


def test_what_cannot_be_held_is_refused_in_one_line():
    match, _ = running()
    assert refusal("pausematch", str(match.pk), "--reason", " ") == \
        "a pause needs a reason saying why"
    assert refusal("resumematch", str(match.pk)) == f"match {match.pk} is not paused"
    run("pausematch", str(match.pk), "--reason", "once")
    assert refusal("pausematch", str(match.pk), "--reason", "twice") == \
        f"match {match.pk} is paused already"
    assert "at most 3600 seconds" in refusal("extendmatch", str(match.pk), "0")
    assert "at most 3600 seconds" in refusal("extendmatch", str(match.pk), "7200")
    assert run("resumematch", str(match.pk)).startswith(f"match {match.pk} resumed after ")
    assert run("extendmatch", str(match.pk), "20") == f"match {match.pk} extended by 20 s\n"
    Match.objects.filter(pk=match.pk).update(ended_early=True)
    assert refusal("pausematch", str(match.pk), "--reason", "late") == f"match {match.pk} is over"
    assert refusal("pausematch", "999999", "--reason", "x") == "there is no match 999999"
    with pytest.raises(ControlError, match="over"):
        match_extend(match_id=match.pk, seconds=5, judge="judy")


def test_every_dialect_answers_a_paused_match_as_not_taken_now_and_says_why(client, tmp_path):
    from tests.dialects.test_kakomimasu_v1 import kakomimasu_match

    match, tokens = kakomimasu_match(tmp_path)
    Match.objects.filter(pk=match.pk).update(start_at=timezone.now() - timedelta(seconds=1))
    match_pause(match_id=match.pk, reason="the venue's network", judge="judy")
    official = client.post(f"/procon31/matches/{match.pk}/action", json.dumps([]),
                           content_type="application/json", HTTP_X_API_TOKEN=tokens[0])
    assert official.status_code == 400 and official.json()["status"] == "UnacceptableTime"
    assert "paused by the judges: the venue's network" in official.json()["detail"]
    community = client.patch(f"/v1/matches/{match.pk}/actions", json.dumps({"actions": []}),
                             content_type="application/json",
                             HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert community.status_code == 400
    assert "paused by the judges" in community.json()["message"]
    from matches.models import Submission
    assert Submission.objects.filter(match=match, error="paused").count() == 2  # both stored


def test_during_a_pause_a_judge_enters_a_crashed_teams_actions_for_the_held_step(clock):
    from matches.services.submissions import submission_enter
    from tests.factories import put

    match, tokens = running()
    match_pause(match_id=match.pk, reason="Beta's program crashed", judge="judy")
    clock.advance(120)  # long after the step's old deadline: it is held, not over
    team = match.teams.get(index=1)
    body = json.dumps({"actions": [put(0, 1, 1)]}).encode()
    entered = submission_enter(team, body, "judy", "Beta's moves read out by phone",
                               timezone.now())
    assert entered.status == 202 and entered.body["turn"] == 1
    match_resume(match_id=match.pk, judge="judy")
    match.refresh_from_db()
    row = turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    assert row is not None and row.outcomes[1][0]["result"] == "ok"  # the judge's put counted


def test_a_held_match_sets_no_wakeup_so_the_clock_sleeps_through_the_pause():
    """Its old deadline passes in the pause: a clock that woke for it would wake at once,
    again and again (and an alternating game's has none at all)."""
    from matches.services.clock import next_wakeup

    timed, _ = running()
    made = json.loads(run("creatematch", "--game", "blokus-duo", "--teams", "Alpha", "Beta",
                          "--clock", "60", "--start-in", "0", "--json"))
    Match.objects.filter(pk=made["id"]).update(start_at=timezone.now() - timedelta(seconds=1))
    now = timezone.now()
    assert next_wakeup(now) is not None
    for match_id in (timed.pk, made["id"]):
        match_pause(match_id=match_id, reason="a fire drill", judge="judy")
    later = now + timedelta(minutes=10)  # both old deadlines long past
    assert next_wakeup(later) is None
    match_resume(match_id=timed.pk, judge="judy", now=later)
    assert next_wakeup(later) == Match.objects.get(pk=timed.pk).deadline(1)


def test_an_extension_lengthens_the_open_step_and_the_turn_read_never_goes_back(
        client, clock):
    """Seen in a tournament: `extendmatch ID 10` after turn 3 made the API name turns
    already resolved as the open one (`strategy_turn` 3, 3, 4, 4, 4, None, 5 …) with
    deadlines of their own, and a client written from docs/api.md got 141 refusals
    `step_over`. The open turn stays the one that was open, its deadline later by the
    extension; the turns after follow; those before keep their times."""
    match, tokens = make_match(turns=12, strategy=3.0, transition=1.0, start_in=0)
    match.refresh_from_db()
    before = {turn: (match.opens_at(turn), match.deadline(turn)) for turn in range(1, 13)}
    for turn in (1, 2, 3):
        clock.time = match.deadline(turn) + timedelta(seconds=0.1)
        clock_tick()
    clock.time = match.opens_at(4) + timedelta(seconds=1)  # turn 4's step: 2 s left
    match_extend(match_id=match.pk, seconds=10, judge="judy", reason="a router")
    match.refresh_from_db()
    assert match.deadline(4) == before[4][1] + timedelta(seconds=10)
    assert match.opens_at(4) == before[4][0]  # it opened when it did
    assert match.opens_at(5) == before[5][0] + timedelta(seconds=10)
    assert [match.deadline(turn) for turn in (1, 2, 3)] == [before[t][1] for t in (1, 2, 3)]
    seen = []
    for _ in range(40):  # 20 s from inside turn 4's step, half a second at a time
        state = client.get(f"/api/matches/{match.pk}").json()
        seen.append((state["strategy_turn"], state["turn"], state["deadline"]))
        if state["strategy_turn"] == 4:
            assert state["deadline"] == int(match.deadline(4).timestamp() * 1000)
            answered = send(client, match, tokens[0],
                            body={"turn": 4, "actions": []})
            assert answered.status_code == 202, answered.json()
        clock_tick()
        clock.advance(0.5)
    open_turns = [turn for turn, _, _ in seen if turn is not None]
    assert open_turns == sorted(open_turns) and open_turns[0] == 4  # never goes back
    assert 5 in open_turns and min(open_turns) >= 4
    resolved = [turn for _, turn, _ in seen]
    assert resolved == sorted(resolved) and resolved[0] == 3
    assert open_turns.count(4) >= 2 * 11  # the 2 s it had left and the 10 s given
    assert Match.objects.get(pk=match.pk).control_log[-1]["turn"] == 4


def test_after_a_resume_each_answer_is_still_timed_from_when_its_step_opened():
    """The control room said "answers -41488 ms into the step" after a resume: the pause
    moved the whole clock, so the answers of the turns before were timed from a later
    opening than theirs."""
    from matches.selectors.control import control_matches
    from tests.factories import submit

    match, tokens = make_match(turns=5, strategy=10.0, transition=1.0, start_in=-4)
    match.refresh_from_db()
    submit(match, tokens[0], [], 1)  # a second into turn 1's step
    opened = match.opens_at(1)
    paused = opened + timedelta(seconds=4)
    match_pause(match_id=match.pk, reason="the hall's power", judge="judy", now=paused)
    match_resume(match_id=match.pk, judge="judy", now=paused + timedelta(seconds=40))
    match.refresh_from_db()
    assert match.opens_at(1) == opened  # it opened when it did
    assert match.deadline(1) == opened + timedelta(seconds=10 + 40)
    assert match.opens_at(2) == opened + timedelta(seconds=11 + 40)
    (row,) = [row for row in control_matches(paused + timedelta(seconds=41))
              if row["match"].pk == match.pk]
    assert row["teams"][0]["latency"] == 1000


def test_the_judges_hand_is_read_from_the_log_alone_by_the_match_and_its_delayed_copy():
    # One source (models/hand.py): what the stored match was given is what its whole log
    # gives, and what the public behind a delay sees is what the log gave at its moment.
    from matches.access.delay import delayed
    from matches.models.hand import hand_at

    match, _ = make_match(turns=5, strategy=10.0, transition=1.0, start_in=60)
    planned = match.start_at
    now = timezone.now()
    match_pause(match_id=match.pk, reason="the projector", judge="judy", now=now)
    match_resume(match_id=match.pk, judge="judy", now=now + timedelta(seconds=7))
    Match.objects.filter(pk=match.pk).update(delay_s=60)
    match = Match.objects.get(pk=match.pk)
    hand = hand_at(match.control_log)
    assert match.start_at - planned == hand.start_moved == timedelta(seconds=7)
    assert match.credits == hand.credits == {}  # before its start: the start moved
    shown = delayed(match, now + timedelta(seconds=60 + 3))  # the public: mid-pause
    assert shown.paused_at is not None and shown.pause_reason == "the projector"
    assert shown.start_at == planned + timedelta(seconds=60)  # not yet moved for them
    later = delayed(Match.objects.get(pk=match.pk), now + timedelta(seconds=60 + 8))
    assert later.paused_at is None and later.start_at == match.start_at + timedelta(seconds=60)
