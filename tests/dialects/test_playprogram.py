"""`manage.py playprogram`: a Blokus Duo program that reads and prints 4-character codes
plays a whole game through the answer API of a real server against a bot; what it
prints besides its moves, its malformed and illegal codes are all in the audit; a
program that quits loses on time with the reason kept."""

import json
import sys
import threading

import pytest

from matches.management.commands.demo import BotPlayer
from matches.models import Match, Submission
from matches.selectors import match_verify
from matches.services.clock import clock_wake
from tests.commands.calls import refusal, run

pytestmark = pytest.mark.django_db(transaction=True)
PROGRAM = [sys.executable, "-m", "tests.dialects.blokus_program"]


@pytest.fixture
def server(live_server_process):
    return live_server_process


def blokus_match(clock: int, start_in: int = 1) -> tuple[int, list[str]]:
    made = json.loads(run("creatematch", "--game", "blokus-duo", "--teams", "Program", "Bot",
                          "--clock", str(clock), "--start-in", str(start_in), "--json"))
    return made["id"], [team["token"] for team in made["teams"]]


def bot(server: str, match_id: int, token: str) -> threading.Event:
    stop = threading.Event()
    player = BotPlayer(server, match_id, 1, token, "blokus-duo", "greedy", pace=0)
    threading.Thread(target=player.play, args=(stop,), daemon=True).start()
    return stop


def bodies(match_id: int, **filters) -> list[str]:
    rows = Submission.objects.filter(match_id=match_id, team__index=0, **filters)
    return [bytes(row.body).decode() for row in rows.order_by("received_at", "id")]


def test_a_program_that_speaks_codes_plays_a_whole_game(server, spawn, tmp_path):
    match_id, tokens = blokus_match(clock=300)
    stop = bot(server, match_id, tokens[1])
    relay = spawn("playprogram", "--match", str(match_id), "--token", tokens[0], "--server",
                  server, "--first", "--", *PROGRAM, "first", "--typo",
                  log_to=tmp_path / "relay.log")
    try:
        assert relay.wait(timeout=240) == 0, (tmp_path / "relay.log").read_text()[-3000:]
    finally:
        stop.set()
    log = (tmp_path / "relay.log").read_text()
    match = Match.objects.get(pk=match_id)
    assert match.over and match.result["decided_by"] in ("remaining", "draw"), match.result
    assert match_verify(match).verified
    # its moves were each the other's answer: the program heard every move of the Bot's
    told = [line.split(": ")[-1] for line in log.splitlines() if "to the program:" in line]
    theirs = [outcome["move"] for turn in match.turn_rows.order_by("number")
              for outcome in turn.outcomes[1]]
    assert told == theirs and len(told) > 5
    # what it printed besides moves is kept as its output; the bad codes were refused
    printed = "".join(bodies(match_id, status_code=200))
    assert "test program: I play first" in printed and "thinking about" in printed
    assert "searched" in printed  # its standard error too
    refused = Submission.objects.filter(match_id=match_id, team__index=0, status_code=400)
    assert [(json.loads(bytes(row.body))["actions"][0]["move"], row.error)
            for row in refused] == [("zz9x", "illegal_move"), ("11a0", "illegal_move")]
    assert "position" in refused[0].detail and "11a0" not in refused[0].detail
    accepted = Submission.objects.filter(match_id=match_id, team__index=0, status_code=202,
                                         entered_by="")
    ours = [o["move"] for turn in match.turn_rows.all() for o in turn.outcomes[0]]
    assert accepted.count() == len([move for move in ours if move != "----"])


def test_a_program_that_quits_loses_on_time_with_the_reason_kept(server, spawn, tmp_path):
    # time to quit before its time runs out, the clock running only once the relay and
    # its program are up (starting them took most of ten seconds on a busy machine)
    match_id, tokens = blokus_match(clock=10, start_in=6)
    stop = bot(server, match_id, tokens[1])
    relay = spawn("playprogram", "--match", str(match_id), "--token", tokens[0], "--server",
                  server, "--", *PROGRAM, "first", "--quit-after", "2",
                  log_to=tmp_path / "relay.log")
    try:
        assert relay.wait(timeout=60) == 1, (tmp_path / "relay.log").read_text()[-2000:]
        # Its time runs out now rather than in the seconds its 10 left it: the clock of
        # the match cut to 1 ms (the server's clock woken to look again)
        Match.objects.filter(pk=match_id).update(clock_ms=1)
        clock_wake()
        match = Match.objects.get(pk=match_id)
        for _ in range(200):
            if match.over:
                break
            threading.Event().wait(0.1)
            match.refresh_from_db()
    finally:
        stop.set()
    assert match.result == {"winner": 1, "decided_by": "time"}
    assert any("the program exited with status 0 before the end of the game" in body
               for body in bodies(match_id, status_code=200))


def test_a_token_of_no_team_or_a_second_player_with_first_is_refused(server):
    match_id, tokens = blokus_match(clock=60)
    assert refusal("playprogram", "--match", str(match_id), "--token", "nope", "--server",
                   server, "--", *PROGRAM, "first") == (
        "--token is no team's token (mistyped, or replaced by a new one: ask the judges)")
    other, _ = blokus_match(clock=60)  # a team's token of another, private match
    assert refusal("playprogram", "--match", str(other), "--token", tokens[0], "--server",
                   server, "--", *PROGRAM, "first") == (
        f"--match {other}: no such match, or --token is not the token of one of its teams")
    assert refusal("playprogram", "--match", str(match_id), "--token", tokens[1], "--server",
                   server, "--first", "--", *PROGRAM, "first") == (
        f"--first: Bot moves second in match {match_id}")
