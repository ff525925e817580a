"""Alternating turns on chess clocks (Blokus Duo): a legal move of the team to move
resolves its turn at once; a move out of turn, an illegal one, or one after the team's
time ran out is refused and stored; the server passes for a team with no legal move;
a team whose time runs out loses on time; the clocks charge each turn to its mover."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from matches.models import Match, Submission, Turn
from matches.selectors import match_verify, move_clock, public_state
from matches.services.clock import clock_tick, next_wakeup
from matches.services.submissions import Request, submission_receive
from tests.factories import make_alternating_match

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "blokus-duo"


def send(match, token, move, at, turn=None):
    """The reply (status, body) to a move sent at `at`."""
    body = {"actions": [{"move": move}] if isinstance(move, str) else move}
    if turn is not None:
        body["turn"] = turn
    raw = json.dumps(body).encode()
    reply = submission_receive(Request(match.pk, f"Bearer {token}", raw, len(raw),
                                       "application/json", "127.0.0.1", at))
    return reply.status, reply.body


def test_a_legal_move_resolves_its_turn_at_once_and_the_other_team_is_to_move():
    match, tokens = make_alternating_match(clock=60)
    at = match.start_at + timedelta(seconds=3)
    assert send(match, tokens[0], "55a0", at)[0] == 202
    row = Turn.objects.get(match=match, number=1)
    assert row.cells[4][4] == "A" and row.scores == [{"remaining": 88}, {"remaining": 89}]
    state = public_state(Match.objects.get(pk=match.pk), at + timedelta(seconds=1))
    assert (state["turn"], state["to_move"], state["clocks"]) == (1, 1, [57000, 59000])
    assert state["deadline"] == state["server_time"] + 59000


def test_moves_are_refused_out_of_turn_illegal_or_malformed_and_the_team_may_try_again():
    match, tokens = make_alternating_match(clock=60)
    at = match.start_at + timedelta(seconds=1)
    assert send(match, tokens[1], "AAa0", at) == (
        409, {"error": "not_your_move", "detail": "turn 1 is team 0 (A)'s move"})
    status, body = send(match, tokens[0], "11a0", at)
    assert (status, body["error"]) == (400, "illegal_move")
    assert body["detail"] == "actions[0].move: the first piece must cover 55"
    assert send(match, tokens[0], "----", at)[1]["detail"].startswith(
        "actions[0].move: pass while a legal move exists")
    assert send(match, tokens[0], [{"move": "55a0"}, {"move": "55b0"}], at)[1]["detail"] == (
        "actions: send exactly one move a turn, not 2")
    assert send(match, tokens[0], "55a9", at)[0] == 400
    assert send(match, tokens[0], "55a0", at, turn=2)[1]["error"] == "wrong_turn"
    assert not Turn.objects.filter(match=match).exists()
    assert send(match, tokens[0], "65P6", at, turn=1)[0] == 202  # any case, either spelling
    stored = list(Submission.objects.filter(match=match).values_list("status_code", "counted"))
    assert stored == [(409, False)] + [(400, False)] * 4 + [(409, False), (202, True)]
    assert Submission.objects.get(match=match, counted=True).actions == [{"move": "65p3"}]


@pytest.mark.parametrize("vector", ["full_game_draw", "random_s7_00", "random_s7_03"])
def test_a_game_played_move_by_move_equals_its_replay_with_the_servers_passes(vector):
    record = json.loads((VECTORS / f"{vector}.record.json").read_text())
    timeline = json.loads((VECTORS / f"{vector}.timeline.json").read_text())
    match, tokens = make_alternating_match(clock=600)
    at = match.start_at
    for number, turn in enumerate(record["actions"], start=1):
        match.refresh_from_db()
        if match.over:
            break
        team = 0 if turn[0] else 1
        move = turn[team][0]["move"]
        if move in ("----", "0000"):  # the team had no move: the server has passed for it
            assert match.resolved_turns >= number
            continue
        at += timedelta(seconds=1)
        assert send(match, tokens[team], move, at, turn=number)[0] == 202
    match.refresh_from_db()
    stored = list(Turn.objects.filter(match=match).values_list("cells", "scores"))
    expected = [(s["cells"], s["scores"]) for s in timeline["states"][1:len(stored) + 1]]
    assert stored == expected and match_verify(match).verified
    passes = Submission.objects.filter(match=match, entered_by="server")
    assert all(p.counted and p.actions == [{"move": "----"}] for p in passes)
    if timeline.get("result"):
        assert match.over and match.result == timeline["result"]


def test_a_team_whose_time_runs_out_loses_on_time():
    match, tokens = make_alternating_match(clock=10)
    start = match.start_at
    assert send(match, tokens[0], "55a0", start + timedelta(seconds=4))[0] == 202
    assert next_wakeup(start + timedelta(seconds=5)) == start + timedelta(seconds=14)
    assert clock_tick(start + timedelta(seconds=13.9)) == 0
    assert send(match, tokens[1], "AAa0", start + timedelta(seconds=14))[1]["error"] == (
        "time_over")
    assert clock_tick(start + timedelta(seconds=14)) == 1
    match.refresh_from_db()
    assert match.over and match.result == {"winner": 0, "decided_by": "time"}
    assert match_verify(match).verified
    assert move_clock(match, start + timedelta(seconds=20)) == {
        "to_move": None, "remaining_ms": [6000, 0], "deadline": None}
    assert send(match, tokens[1], "AAa0", start + timedelta(seconds=15))[1]["detail"] == (
        "the match is finished")


def test_the_clock_is_not_running_before_the_start():
    match, tokens = make_alternating_match(clock=30, start_in=60)
    early = timezone.now()
    assert send(match, tokens[0], "55a0", early)[1]["error"] == "not_running"
    assert move_clock(match, early)["remaining_ms"] == [30000, 30000]
    assert next_wakeup(early) == match.start_at


def test_a_loss_on_time_is_said_in_plain_words():
    from matches.rules import rules_for

    said = rules_for("blokus-duo").verdict({"winner": 1, "decided_by": "time"},
                                           [{"remaining": 60}, {"remaining": 80}],
                                           ["Alpha", "Beta"])
    assert said == "Beta wins: Alpha ran out of time"


@pytest.mark.parametrize("flags, message", [
    (["--strategy-seconds", "3"], "--strategy-seconds: Blokus Duo is played in alternating "
                                  "turns on chess clocks: set each team's thinking time"),
    (["--transition-seconds", "1"], "--transition-seconds: Blokus Duo is played"),
    (["--turns", "10"], "--turns: a game of Blokus Duo ends when the rules say so"),
    (["--board", "A-1"], "--board: Blokus Duo has one board only; leave the board out"),
])
def test_creatematch_refuses_what_an_alternating_game_does_not_have(flags, message):
    from tests.commands.calls import refusal

    assert refusal("creatematch", "--game", "blokus-duo", "--teams", "A", "B",
                   *flags).startswith(message)
    assert not Match.objects.exists()


def test_creatematch_makes_a_blokus_duo_match_on_its_clock_and_refuses_one_for_timed_games():
    from tests.commands.calls import refusal, run

    printed = json.loads(run("creatematch", "--game", "blokus-duo", "--teams", "A", "B",
                             "--clock", "120", "--json"))
    match = Match.objects.get(pk=printed["id"])
    assert (match.clock_ms, match.strategy_ms, match.agents, match.turns) == (120000, 0, 0, 84)
    assert match.board.name == "Blokus Duo 14×14"  # the lists show its size
    assert refusal("creatematch", "--board", "A-1", "--teams", "A", "B", "--clock", "9") == (
        "--clock: Kakomimasu (Procon 31) is played in timed turns: set its strategy and "
        "transition steps")


def test_every_way_of_making_a_match_refuses_a_timing_its_game_is_not_played_with(
        judge_client):
    # One check (Timing.checked), each surface saying it in its own words: the control
    # room's form used to drop the turns of an alternating game without a word.
    from matches.services.practice import Ask, PracticeError, practice_start
    from matches.tournaments.services import EntrantSpec, Plan, TournamentError, tournament_create

    form = judge_client.post("/control/new-match", {
        "game": "blokus-duo", "team_a": "A", "team_b": "B", "board": "random", "turns": 10,
        "clock_seconds": 120, "start_in": 60, "delay": 0})
    assert form.status_code == 400 and not Match.objects.exists()
    assert "ends when the rules say so" in form.content.decode()
    with pytest.raises(PracticeError) as refused:
        practice_start(Ask(game="blokus-duo", opponent="level-1", strategy_seconds=3),
                       "address:127.0.0.1", None, timezone.now())
    assert refused.value.code == "bad_strategy_seconds"
    with pytest.raises(PracticeError) as refused:
        practice_start(Ask(game="kakomimasu", opponent="level-1", clock=60),
                       "address:127.0.0.1", None, timezone.now())
    assert refused.value.code == "bad_clock"
    with pytest.raises(TournamentError, match="--turns: a game of Blokus Duo ends"):
        tournament_create(Plan(name="Cup", game="blokus-duo", format="knockout",
                               start_at=timezone.now(), teams=[EntrantSpec("A"), EntrantSpec("B")],
                               turns=10))
    assert not Match.objects.exists()


def first_refused(vector: str) -> tuple[int, int, str, str]:
    """A vector's first move the rules refuse: (turn, team, move, reason)."""
    states = json.loads((VECTORS / f"{vector}.timeline.json").read_text())["states"]
    for state in states[1:]:
        for team, outcomes in enumerate(state["outcomes"]):
            for outcome in outcomes:
                if outcome["result"] != "ok":
                    return state["turn"], team, outcome["move"], outcome["reason"]
    raise AssertionError(f"{vector}: no refused move")


@pytest.mark.parametrize("vector", [
    "piece_reuse", "overlap", "edge_contact_forbidden", "corner_contact_required",
    "off_board_and_malformed", "first_move_start_point", "pass_while_move_exists"])
def test_every_illegal_move_of_the_vectors_is_refused_live_with_its_rule(vector):
    """Played up to a vector's first illegal move, the move is refused at once (400
    illegal_move) with the reason the rules give it in the vector's timeline, and the
    same team may move again."""
    record = json.loads((VECTORS / f"{vector}.record.json").read_text())
    turn, team, move, reason = first_refused(vector)
    match, tokens = make_alternating_match(clock=600)
    at = match.start_at
    for number, sides in enumerate(record["actions"][:turn - 1], start=1):
        mover = 0 if sides[0] else 1
        at += timedelta(seconds=1)
        assert send(match, tokens[mover], sides[mover][0]["move"], at, turn=number)[0] == 202
    at += timedelta(seconds=1)
    assert send(match, tokens[team], move, at) == (
        400, {"error": "illegal_move", "detail": f"actions[0].move: {reason}"})
    assert Turn.objects.filter(match=match).count() == turn - 1
    assert public_state(Match.objects.get(pk=match.pk), at)["to_move"] == team


@pytest.mark.parametrize("move, reason", [
    ("F5a0", "'F5a0': position must be two of 1-9, A-E"),
    ("55v0", "'55v0': piece must be a letter a-u"),
    ("55a8", "'55a8': orientation must be a digit 0-7"),
    ("55a", "'55a' is not a 4-character move code"),
    ("1Ej0", "the piece does not lie entirely on the board"),
])
def test_a_malformed_or_off_board_move_is_refused_naming_what_is_wrong(move, reason):
    match, tokens = make_alternating_match(clock=600)
    assert send(match, tokens[0], move, match.start_at + timedelta(seconds=1)) == (
        400, {"error": "illegal_move", "detail": f"actions[0].move: {reason}"})
