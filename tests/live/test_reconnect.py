"""Reconnecting with ?since=N: a bad N is refused clearly; a public match's socket still
catches up after the match ended, until a judge unpublishes it."""

import json

import pytest
from asgiref.sync import sync_to_async

from matches.services.publication import match_publish
from matches.services.transition import turn_resolve
from tests.factories import make_match
from tests.live.clients import browser_socket, first_answer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]

resolve = sync_to_async(turn_resolve)



async def heard(communicator) -> list[tuple]:
    """Everything a socket sends until it is quiet: (type, turn) or ("close", code)."""
    received = []
    while not await communicator.receive_nothing(timeout=0.3):
        output = await communicator.receive_output()
        if output["type"] == "websocket.close":
            received.append(("close", output.get("code")))
            break
        message = json.loads(output["text"])
        received.append((message["type"], message.get("turn", message.get("error"))))
    return received


@pytest.mark.parametrize("since", ["abc", "-1", "", "1.5", "99999999999999999999", "6", "٣"])
async def test_a_bad_since_is_answered_with_an_error_and_closed_with_4400(since):
    match, _ = await sync_to_async(make_match)(turns=5)
    socket = browser_socket(f"/ws/matches/{match.pk}/?since={since}")
    answer, message = await first_answer(socket)
    assert answer == "message"
    assert (message["type"], message["error"]) == ("error", "bad_since")
    assert "0 to 5" in message["detail"]
    assert await heard(socket) == [("close", 4400)]


async def test_a_since_not_played_yet_waits_for_the_turns_after_it():
    match, _ = await sync_to_async(make_match)(turns=5)
    await resolve(match_id=match.pk, number=1)
    socket = browser_socket(f"/ws/matches/{match.pk}/?since=3")
    assert await first_answer(socket) == ("message", {"type": "viewers", "count": 1})
    for number in (2, 3):
        await resolve(match_id=match.pk, number=number)
    assert [kind for kind, _ in await heard(socket)] == ["viewers"]  # turns 2, 3 not sent
    await resolve(match_id=match.pk, number=4)
    assert await heard(socket) == [("turn", 4)]
    await socket.disconnect()


async def test_a_public_match_socket_reconnecting_after_the_end_hears_the_rest_and_end():
    match, _ = await sync_to_async(make_match)(turns=3, public=True)
    for number in (1, 2, 3):
        await resolve(match_id=match.pk, number=number)
    socket = browser_socket(f"/ws/matches/{match.pk}/?since=1")  # anyone, no session
    answer, message = await first_answer(socket)
    assert (answer, message["type"], message["turn"]) == ("message", "turn", 2)
    assert await heard(socket) == [("turn", 3), ("end", 3), ("viewers", None)]
    await socket.disconnect()
    fresh = browser_socket(f"/ws/matches/{match.pk}/")
    answer, snapshot = await first_answer(fresh)
    assert (snapshot["type"], snapshot["status"], snapshot["turn"]) == ("snapshot", "finished", 3)
    await fresh.disconnect()
    await sync_to_async(match_publish)(match_id=match.pk, published=False)
    again = browser_socket(f"/ws/matches/{match.pk}/?since=1")
    assert await first_answer(again) == ("closed", 4404)


async def test_a_client_far_behind_gets_a_snapshot_and_one_near_gets_the_turns():
    """?since=0 on a long match costs one message, not one a turn: past CATCH_UP_TURNS
    behind, the catch-up is a snapshot of the latest turn."""
    from matches.live.consumers import CATCH_UP_TURNS

    played = CATCH_UP_TURNS + 5
    match, _ = await sync_to_async(make_match)(turns=played + 5)
    for number in range(1, played + 1):
        await resolve(match_id=match.pk, number=number)
    far = browser_socket(f"/ws/matches/{match.pk}/?since=0")
    answer, message = await first_answer(far)
    assert answer == "message" and (message["type"], message["turn"]) == ("snapshot", played)
    assert [kind for kind, _ in await heard(far)] == ["viewers"]  # no turn one by one
    await far.disconnect()
    near = browser_socket(f"/ws/matches/{match.pk}/?since={played - CATCH_UP_TURNS}")
    await near.connect()
    caught_up = [turn for kind, turn in await heard(near) if kind == "turn"]
    assert caught_up == list(range(played - CATCH_UP_TURNS + 1, played + 1))
    await near.disconnect()
