"""An alternating game on its socket: the snapshot and every turn say whose move it is
and each team's thinking time left; a game lost on time ends with `end` though no turn
was played."""

import json
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from matches.services.clock import clock_tick
from matches.services.submissions import Request, submission_receive
from tests.factories import make_alternating_match
from tests.live.clients import browser_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]


@sync_to_async
def move(match, token, code):
    body = json.dumps({"actions": [{"move": code}]}).encode()
    return submission_receive(Request(match.pk, f"Bearer {token}", body, len(body),
                                      "application/json", "127.0.0.1", timezone.now())).status


async def next_of(socket, wanted):
    while True:
        message = await socket.receive_json_from(timeout=3)
        if message["type"] == wanted:
            return message


async def test_the_snapshot_and_each_turn_carry_the_mover_and_the_clocks():
    match, tokens = await sync_to_async(make_alternating_match)(clock=60)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    assert (await socket.connect())[0]
    snapshot = await next_of(socket, "snapshot")
    assert snapshot["to_move"] == 0 and snapshot["match"]["clock_ms"] == 60000
    assert 58000 < snapshot["clocks"][0] <= 60000 and snapshot["clocks"][1] == 60000
    assert await move(match, tokens[0], "55a0") == 202
    turn = await next_of(socket, "turn")
    assert (turn["turn"], turn["to_move"]) == (1, 1) and 59000 < turn["clocks"][1] <= 60000
    assert turn["deadline"] - turn["server_time"] <= 60000
    await socket.disconnect()


async def test_a_game_lost_on_time_ends_on_the_socket():
    match, tokens = await sync_to_async(make_alternating_match)(clock=5)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    assert (await socket.connect())[0]
    await next_of(socket, "snapshot")
    assert await sync_to_async(clock_tick)(timezone.now() + timedelta(seconds=5)) == 1
    end = await next_of(socket, "end")
    assert end["result"] == {"winner": 1, "decided_by": "time"} and end["turn"] == 0
    await socket.disconnect()
