"""/ws/matches/<id>/: snapshot, turns in order, catch-up with since, end, no leaks."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from matches.services.submissions import Request, submission_receive
from matches.services.transition import turn_resolve
from tests.factories import make_match, put
from tests.live.clients import browser_socket, first_answer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]

resolve = sync_to_async(turn_resolve)



async def connect(path):
    communicator = browser_socket(path)
    connected, code = await communicator.connect()
    assert connected, code
    return communicator


async def receive_type(communicator, wanted, timeout=3):
    """The next message of a type, skipping throwaway viewer counts."""
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        if message["type"] != "viewers":
            assert message["type"] == wanted, message
            return message


@sync_to_async
def submit(match, token, actions):
    from django.utils import timezone
    body = json.dumps({"actions": actions}).encode()
    return submission_receive(Request(match.pk, f"Bearer {token}", body, len(body),
                                      "application/json", "127.0.0.1", timezone.now()))


async def test_connect_sends_a_snapshot():
    match, _ = await sync_to_async(make_match)()
    socket = await connect(f"/ws/matches/{match.pk}/")
    snapshot = await receive_type(socket, "snapshot")
    assert snapshot["turn"] == 0 and snapshot["status"] == "running"
    assert [team["name"] for team in snapshot["match"]["teams"]] == ["Alpha", "Beta"]
    assert snapshot["state"]["cells"] == ["......"] * 5
    assert snapshot["history"] == [{"turn": 0, "scores": snapshot["state"]["scores"]}]
    assert isinstance(snapshot["deadline"], int) and isinstance(snapshot["server_time"], int)
    await socket.disconnect()


async def test_turns_arrive_in_order_with_the_stored_state():
    match, tokens = await sync_to_async(make_match)()
    socket = await connect(f"/ws/matches/{match.pk}/")
    await receive_type(socket, "snapshot")
    await submit(match, tokens[0], [put(0, 1, 1)])
    rows = [await resolve(match_id=match.pk, number=n) for n in (1, 2, 3)]
    for row in rows:
        message = await receive_type(socket, "turn")
        assert message["turn"] == row.number
        assert (message["cells"], message["agents"], message["outcomes"], message["scores"]) == (
            row.cells, row.agents, row.outcomes, row.scores)
        assert set(message) == {"type", "match", "turn", "cells", "agents", "outcomes",
                                "scores", "lead", "panel", "panels", "reasons", "callouts",
                                "last", "swing", "deadline", "server_time", "to_move",
                                "clocks"}
        assert message["to_move"] is None and message["clocks"] is None  # not alternating
        assert message["lead"]["team"] == 0 and 0.5 < message["lead"]["share"] <= 1
        assert message["panel"]["words"][0].startswith("wall ")
    assert rows[0].agents[0][0] == [1, 1]
    await socket.disconnect()


async def test_since_catches_up_with_exactly_the_missed_turns():
    match, _ = await sync_to_async(make_match)()
    for number in (1, 2, 3):
        await resolve(match_id=match.pk, number=number)
    socket = await connect(f"/ws/matches/{match.pk}/?since=1")
    assert [(await receive_type(socket, "turn"))["turn"] for _ in range(2)] == [2, 3]
    await resolve(match_id=match.pk, number=4)
    assert (await receive_type(socket, "turn"))["turn"] == 4
    await socket.disconnect()


async def test_end_follows_the_last_turn():
    match, _ = await sync_to_async(make_match)(turns=2)
    socket = await connect(f"/ws/matches/{match.pk}/")
    await receive_type(socket, "snapshot")
    await resolve(match_id=match.pk, number=1)
    await resolve(match_id=match.pk, number=2)
    assert (await receive_type(socket, "turn"))["deadline"] is not None
    last = await receive_type(socket, "turn")
    assert last["turn"] == 2 and last["deadline"] is None
    end = await receive_type(socket, "end")
    assert end["result"] == {"winner": None, "decided_by": "draw"}
    await socket.disconnect()


async def test_a_pending_submission_is_never_sent():
    match, tokens = await sync_to_async(make_match)()
    reply = await submit(match, tokens[0], [put(0, 4, 3), put(1, 5, 4)])
    assert reply.status == 202
    socket = await connect(f"/ws/matches/{match.pk}/")
    received = [await socket.receive_json_from(timeout=3)]
    while not await socket.receive_nothing(timeout=0.3):
        received.append(await socket.receive_json_from())
    text = json.dumps(received)
    assert "[4, 3]" not in text and "[5, 4]" not in text and '"put"' not in text
    assert received[0]["state"]["agents"] == [[None, None], [None, None]]
    await socket.disconnect()


async def test_viewer_counts_carry_no_version_and_come_with_a_turn_when_they_change():
    match, _ = await sync_to_async(make_match)()
    first = await connect(f"/ws/matches/{match.pk}/")
    await first.receive_json_from()  # snapshot
    assert await first.receive_json_from() == {"type": "viewers", "count": 1}
    second = await connect(f"/ws/matches/{match.pk}/")
    await second.receive_json_from()  # snapshot
    assert await second.receive_json_from() == {"type": "viewers", "count": 2}
    assert await first.receive_nothing(timeout=0.2)  # no broadcast per connection
    await second.disconnect()
    await resolve(match_id=match.pk, number=1)
    assert (await first.receive_json_from())["type"] == "turn"
    assert await first.receive_json_from() == {"type": "viewers", "count": 1}
    await resolve(match_id=match.pk, number=2)  # the same audience: the turn alone
    assert (await first.receive_json_from())["type"] == "turn"
    assert await first.receive_nothing(timeout=0.2)
    third = await connect(f"/ws/matches/{match.pk}/")
    await receive_type(third, "snapshot")
    assert await third.receive_json_from() == {"type": "viewers", "count": 2}  # counted
    await resolve(match_id=match.pk, number=3)
    assert (await first.receive_json_from())["type"] == "turn"
    assert await first.receive_json_from() == {"type": "viewers", "count": 2}
    await third.disconnect()
    await first.disconnect()


async def test_an_unknown_match_is_closed_with_4404():
    assert await first_answer(browser_socket("/ws/matches/999/")) == ("closed", 4404)


async def test_the_list_socket_sends_the_matches_then_summaries():
    match, _ = await sync_to_async(make_match)()
    socket = await connect("/ws/matches/")
    listing = await socket.receive_json_from()
    assert listing["type"] == "matches" and [m["id"] for m in listing["matches"]] == [match.pk]
    await resolve(match_id=match.pk, number=1)
    summary = await socket.receive_json_from(timeout=3)
    assert summary["type"] == "summary" and summary["match"]["turn"] == 1
    await socket.disconnect()


async def test_the_sockets_of_a_match_share_one_channel_layer_subscription(subscriptions):
    match, _ = await sync_to_async(make_match)()
    sockets = [await connect(f"/ws/matches/{match.pk}/") for _ in range(3)]
    for socket in sockets:
        await receive_type(socket, "snapshot")
    assert subscriptions == [("add", f"match.{match.pk}")]
    await resolve(match_id=match.pk, number=1)
    for socket in sockets:
        assert (await receive_type(socket, "turn"))["turn"] == 1
    for socket in sockets:
        await socket.disconnect()
    assert subscriptions == [("add", f"match.{match.pk}"), ("discard", f"match.{match.pk}")]


async def test_turns_resolved_while_the_opening_is_sent_follow_it_in_order(monkeypatch):
    from matches.live import consumers

    match, _ = await sync_to_async(make_match)()
    gate, read = asyncio.Event(), asyncio.Event()
    opening = consumers._opening

    async def slow_opening(match_id, since, late=False):
        messages = await opening(match_id, since, late)  # read at turn 0 ...
        read.set()
        await gate.wait()  # ... and sent only after turns 1 and 2 are broadcast
        return messages

    monkeypatch.setattr(consumers, "_opening", slow_opening)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    connecting = asyncio.create_task(socket.connect())
    await read.wait()
    await resolve(match_id=match.pk, number=1)
    await resolve(match_id=match.pk, number=2)
    gate.set()
    assert (await connecting)[0]
    received = [await socket.receive_json_from(timeout=3) for _ in range(5)]
    assert [(m["type"], m.get("turn")) for m in received] == [
        ("snapshot", 0), ("viewers", None), ("turn", 1), ("viewers", None), ("turn", 2)]
    await socket.disconnect()


async def test_a_lost_turn_is_filled_from_the_stored_turns(monkeypatch):
    from matches.services import transition

    match, _ = await sync_to_async(make_match)()
    socket = await connect(f"/ws/matches/{match.pk}/")
    await receive_type(socket, "snapshot")
    announce = transition.turns_announce
    monkeypatch.setattr(transition, "turns_announce", lambda played: None)
    await resolve(match_id=match.pk, number=1)  # stored, but its event is lost
    monkeypatch.setattr(transition, "turns_announce", announce)
    await resolve(match_id=match.pk, number=2)
    first, second = await receive_type(socket, "turn"), await receive_type(socket, "turn")
    assert (first["turn"], second["turn"]) == (1, 2)
    assert await socket.receive_json_from() == {"type": "viewers", "count": 1}
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


async def test_a_turn_already_sent_is_not_sent_again():
    from channels.layers import get_channel_layer

    from matches.live.outbox import relay_event

    match, _ = await sync_to_async(make_match)()
    socket = await connect(f"/ws/matches/{match.pk}/")
    await receive_type(socket, "snapshot")
    await resolve(match_id=match.pk, number=1)
    turn = await receive_type(socket, "turn")
    await socket.receive_json_from()  # viewers
    await get_channel_layer().group_send(f"match.{match.pk}", relay_event(turn))
    assert await socket.receive_nothing(timeout=0.2)
    await resolve(match_id=match.pk, number=2)
    assert (await receive_type(socket, "turn"))["turn"] == 2
    await socket.disconnect()


async def test_summaries_that_come_while_the_list_is_read_follow_it(monkeypatch):
    from matches.live import consumers

    match, _ = await sync_to_async(make_match)()
    gate, read = asyncio.Event(), asyncio.Event()
    summaries = consumers._summaries

    async def slow_summaries(user):
        listing = await summaries(user)
        read.set()
        await gate.wait()
        return listing

    monkeypatch.setattr(consumers, "_summaries", slow_summaries)
    socket = browser_socket("/ws/matches/")
    connecting = asyncio.create_task(socket.connect())
    await read.wait()
    await resolve(match_id=match.pk, number=1)
    gate.set()
    assert (await connecting)[0]
    listing = await socket.receive_json_from(timeout=3)
    summary = await socket.receive_json_from(timeout=3)
    assert (listing["type"], summary["type"], summary["match"]["turn"]) == ("matches", "summary", 1)
    await socket.disconnect()


async def test_a_socket_that_fails_while_opening_leaves_the_hub(monkeypatch, subscriptions):
    from matches.live import consumers

    async def failing_opening(match_id, since, late=False):
        raise RuntimeError("database gone")

    match, _ = await sync_to_async(make_match)()
    monkeypatch.setattr(consumers, "_opening", failing_opening)
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    with pytest.raises(RuntimeError, match="database gone"):
        await socket.connect()
        await socket.receive_output(timeout=3)
    assert subscriptions == [("add", f"match.{match.pk}"), ("discard", f"match.{match.pk}")]


async def test_the_judges_pause_and_resume_reach_every_socket_with_the_new_timing():
    from matches.services.control import match_pause, match_resume

    match, _ = await sync_to_async(make_match)()
    socket = await connect(f"/ws/matches/{match.pk}/")
    snapshot = await receive_type(socket, "snapshot")
    assert snapshot["paused"] is None
    await sync_to_async(match_pause)(match_id=match.pk, reason="the hall's power", judge="j")
    paused = await receive_type(socket, "control")
    assert paused["action"] == "paused" and paused["paused"]["reason"] == "the hall's power"
    assert paused["paused"]["remaining_ms"] > 0
    assert paused["start_at"] == snapshot["match"]["start_at"]
    again = await connect(f"/ws/matches/{match.pk}/")  # a screen that joins now knows it
    assert (await receive_type(again, "snapshot"))["paused"]["reason"] == "the hall's power"
    await sync_to_async(match_resume)(match_id=match.pk, judge="j")
    resumed = await receive_type(socket, "control")
    assert resumed["action"] == "resumed" and resumed["paused"] is None
    # the time given back to the step it took it from: its deadline is later, and the
    # match started when it did
    assert resumed["start_at"] == snapshot["match"]["start_at"]
    assert resumed["deadline"] > snapshot["deadline"]
    await socket.disconnect()
    await again.disconnect()
