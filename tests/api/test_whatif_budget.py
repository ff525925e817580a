"""A what-if is computed in a process of its own, under a budget it cannot outlive
(docs/api.md, "What if"): past it the caller is told to ask for less and no process is
left behind; a board picture never waits behind a what-if; past the server's places
for what-ifs a caller is refused at once."""

import json
import os
import signal
import threading

import pytest
from django.db import connection
from django.test import Client

from matches import jobs
from matches.selectors import whatif
from tests.factories import make_match
from tests.test_jobs import ChildrenSeen, alive

pytestmark = pytest.mark.django_db
# Built-in players of level 4 think about a second a turn on a 64x64 board with 30
# agents a team (bench/jobs.py): 100 such turns take minutes.
LONG = {"from_turn": 0, "play_on": {"turns": 100, "teams": {"0": "level-4", "1": "level-4"}}}


@pytest.fixture
def large_match():
    side = 64
    board = {"width": side, "height": side,
             "points": [[(x * 7 + y * 3) % 21 - 4 for x in range(side)] for y in range(side)]}
    match, _ = make_match(board=board, agents=30, turns=200)
    return match


def ask(client, match, body):
    return client.post(f"/api/matches/{match.pk}/whatif", json.dumps(body),
                       content_type="application/json")


def test_a_whatif_past_its_budget_says_to_ask_for_less_and_leaves_no_process(
        client, large_match, monkeypatch):
    monkeypatch.setattr(whatif, "WHATIF_SECONDS", 1)
    with ChildrenSeen() as children:
        answer = ask(client, large_match, LONG)
    assert answer.status_code == 503, answer.content
    assert answer.json()["error"] == "too_long"
    assert "play_on" in answer.json()["detail"]
    assert children.seen, "the what-if had a process of its own"
    assert not any(alive(pid) for pid in children.seen)


@pytest.mark.django_db(transaction=True)
def test_a_board_picture_is_drawn_while_a_whatif_is_computed(large_match):
    answered = {}

    def long_whatif() -> None:
        try:
            answered["whatif"] = ask(Client(), large_match, LONG)
        finally:
            connection.close()

    with ChildrenSeen() as children:
        computing = threading.Thread(target=long_whatif)
        computing.start()
        job = children.wait_for_one()  # the what-if's process: it is being computed
        picture = Client().get(f"/matches/{large_match.pk}/board.png")
        still_computing = computing.is_alive()
        os.kill(job, signal.SIGKILL)  # not worth its whole budget
        computing.join(60)
    assert picture.status_code == 200 and picture["Content-Type"] == "image/png"
    assert still_computing, "the picture was drawn before the what-if ended"
    assert answered["whatif"].status_code == 503  # its process lost: said so, no hang
    assert not alive(job)


def test_past_the_servers_places_for_whatifs_a_caller_is_refused_at_once(
        client, large_match, monkeypatch, tmp_path):
    monkeypatch.setattr(whatif, "JOBS", jobs.Jobs("what-if", 0, tmp_path))  # every place taken
    answer = ask(client, large_match, {"from_turn": 0})
    assert answer.status_code == 429 and answer.json()["error"] == "too_busy"
    assert answer["Retry-After"]
