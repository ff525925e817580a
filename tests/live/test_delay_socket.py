"""The spectator delay on the sockets (docs/live-protocol.md, "The spectator delay"):
the public's socket of a delayed match gets each turn that long after its teams', with
its deadline that much later; a socket opened meanwhile gets the turns it has not
seen one by one, at their moments; everyone's list hears of them as late."""

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match
from tests.live.clients import browser_socket
from tests.live.test_socket_privacy import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]

DELAY = 2
resolve = sync_to_async(turn_resolve)


@sync_to_async
def delayed_match(**options):
    match, tokens = make_match(**options)
    Match.objects.filter(pk=match.pk).update(delay_s=DELAY)
    return Match.objects.get(pk=match.pk), tokens


async def opened(path, token=None):
    socket = browser_socket(path, token=token)
    connected, code = await socket.connect()
    assert connected, code
    return socket


async def next_of(socket, *types, timeout=5.0):
    """The next message of one of `types`, skipping the others."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["type"] in types:
            return message


async def none_of(socket, kind, seconds):
    """No message of type `kind` comes for `seconds` (the others are read and dropped)."""
    end = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < end:
        if not await socket.receive_nothing(timeout=0.1):
            assert (await socket.receive_json_from())["type"] != kind


async def test_the_public_gets_each_turn_a_delay_after_the_team_with_its_deadline_as_late():
    match, tokens = await delayed_match()
    team = await opened(f"/ws/matches/{match.pk}/", tokens[0])
    public = await opened(f"/ws/matches/{match.pk}/")
    seen = await next_of(team, "snapshot"), await next_of(public, "snapshot")
    assert [(s["turn"], s["match"]["behind_s"]) for s in seen] == [(0, 0), (0, DELAY)]
    assert seen[1]["deadline"] - seen[0]["deadline"] == DELAY * 1000

    await resolve(match_id=match.pk, number=1)
    live = await next_of(team, "turn", timeout=1)
    assert live["turn"] == 1
    await none_of(public, "turn", DELAY / 2)  # not within the first half of its delay
    late = await next_of(public, "turn", timeout=DELAY + 3)
    assert late["turn"] == 1 and late["cells"] == live["cells"]
    assert late["deadline"] - live["deadline"] == DELAY * 1000
    assert late["server_time"] >= live["server_time"] + DELAY * 1000 - 50
    for socket in (team, public):
        await socket.disconnect()


async def test_a_socket_opened_within_the_delay_gets_the_turns_it_missed_one_by_one():
    match, tokens = await delayed_match()
    await resolve(match_id=match.pk, number=1, now=timezone.now() - timedelta(seconds=0.5))
    public = await opened(f"/ws/matches/{match.pk}/")
    team = await opened(f"/ws/matches/{match.pk}/", tokens[1])
    assert (await next_of(public, "snapshot"))["turn"] == 0  # turn 1 is half a second old
    assert (await next_of(team, "snapshot"))["turn"] == 1
    # no event comes after it: the socket's delay line knew of turn 1 when it was made
    assert (await next_of(public, "turn", timeout=DELAY + 3))["turn"] == 1
    for socket in (team, public):
        await socket.disconnect()


async def test_everyones_list_hears_of_a_delayed_match_late_and_the_judges_live():
    match, _ = await delayed_match()
    public = await opened("/ws/matches/")
    judge = browser_socket("/ws/matches/", cookie=await session_cookie(judge=True))
    assert (await judge.connect())[0]
    await next_of(public, "matches")
    await next_of(judge, "matches")
    await resolve(match_id=match.pk, number=1)
    assert (await next_of(judge, "summary", timeout=1))["match"]["turn"] == 1
    await none_of(public, "summary", DELAY / 2)
    assert (await next_of(public, "summary", timeout=DELAY + 3))["match"]["turn"] == 1
    for socket in (judge, public):
        await socket.disconnect()


async def test_a_line_hands_each_event_on_when_due_whatever_came_before_it():
    """Everyone's list mixes matches of different delays: a short delay's event is not
    held behind a longer one's; a match taken back loses what was held of it."""
    from matches.live.delay import DelayLine

    got = []

    class Member:
        async def deliver(self, event):
            got.append(event["turn"])

    member = Member()
    line = await DelayLine.join("test.line", member)
    text = '{"type":"summary","match":{"id":%d,"deadline":1000,"server_time":5}}'
    await line.deliver({"kind": "summary", "turn": 1, "late": 800, "text": text % 1})
    await line.deliver({"kind": "summary", "turn": 2, "late": 100, "text": text % 2})
    await line.deliver({"kind": "summary", "turn": 3, "late": 300, "text": text % 3})
    gone = '{"type":"withdrawn","match":3}'
    await line.deliver({"kind": "withdrawn", "turn": None, "text": gone})
    await asyncio.sleep(1.2)
    assert got == [None, 2, 1]
    await line.leave(member)
    assert line.task.done() and DelayLine._lines.get(line.key) is None


async def test_a_line_left_as_an_event_arrives_ends():
    """The last member leaving while an event wakes the line: the line's task ends (with
    asyncio.wait_for, Python 3.11 lost the cancellation that met the wake-up in the same
    turn of the loop, and the leaving waited for ever)."""
    from matches.live.delay import DelayLine

    class Member:
        async def deliver(self, event):
            pass

    member = Member()
    line = await DelayLine.join("test.line.left", member)
    text = '{"type":"summary","match":{"id":1,"deadline":1000,"server_time":5}}'
    await line.deliver({"kind": "summary", "turn": 1, "late": 60_000, "text": text})
    await asyncio.sleep(0.05)  # the line waits for it, a minute away
    await line.deliver({"kind": "summary", "turn": 2, "late": 60_000, "text": text})
    leaving = asyncio.ensure_future(line.leave(member))  # (in the same turn of the loop)
    await asyncio.wait([leaving], timeout=5)
    assert leaving.done() and line.task.done()


async def test_a_visitor_who_says_it_has_seen_more_gets_nothing_the_public_has_not():
    """?since=N past the public's turn (a hostile visitor guessing): no turn beyond what
    the public has is sent, and the next comes at the public's moment."""
    match, tokens = await delayed_match()
    await resolve(match_id=match.pk, number=1)
    public = await opened(f"/ws/matches/{match.pk}/?since=1")
    await none_of(public, "turn", DELAY / 2)
    await resolve(match_id=match.pk, number=2)
    team = await opened(f"/ws/matches/{match.pk}/?since=1", tokens[0])
    assert (await next_of(team, "turn", timeout=1))["turn"] == 2  # the team: at once
    await none_of(public, "turn", DELAY / 2)
    assert (await next_of(public, "turn", timeout=DELAY + 3))["turn"] == 2
    for socket in (team, public):
        await socket.disconnect()
