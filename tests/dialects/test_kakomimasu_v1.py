"""The community Kakomimasu server's v1 API (`/v1/`) over a Kakomimasu match: a client
of mine written from its documentation joins with its token, plays a whole game on a
non-square board with the pic it was given, and reads the Game object that equals the
native state; the errors; every request stored as sent and audited like a native one."""

import json
import math
import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Submission
from matches.selectors import match_verify, public_state
from matches.services.clock import clock_wake
from matches.services.transition import turn_resolve
from tests.commands.calls import run
from tests.dialects.kakomimasu_client import KakomimasuClient

pytestmark = pytest.mark.django_db
BOARD = {"width": 9, "height": 6,
         "points": [[(x * 7 + y * 5) % 17 - 4 for x in range(9)] for y in range(6)]}


def kakomimasu_match(tmp_path, public: bool = False) -> tuple[Match, list[str]]:
    field = tmp_path / "board.json"
    field.write_text(json.dumps(BOARD))
    made = json.loads(run("creatematch", "--game", "kakomimasu", "--board", str(field),
                          "--teams", "Nara", "Kushiro", "--agents", "3", "--turns", "6",
                          "--strategy-seconds", "5", "--transition-seconds", "1",
                          "--start-in", "10", "--json", *(["--public"] if public else [])))
    return Match.objects.get(pk=made["id"]), [team["token"] for team in made["teams"]]


def test_a_client_of_the_v1_api_joins_and_plays_a_whole_game(client, clock, tmp_path):
    match, tokens = kakomimasu_match(tmp_path, public=True)  # the library reads no token
    players = [KakomimasuClient(client, token) for token in tokens]
    for index, player in enumerate(players):
        status, joined = player.join(match.pk)
        assert status == 200 and joined["index"] == index and joined["gameId"] == str(match.pk)
    status, waiting = players[0].game(match.pk)
    assert status == 200 and waiting["status"] == "ready" and waiting["totalTurn"] == 6
    assert waiting["turn"] == 0
    assert (waiting["operationSec"], waiting["transitionSec"]) == (5, 1)
    # whole seconds, rounded up: a client that sleeps until then never wakes too early
    started = match.start_at.timestamp()
    assert waiting["startedAtUnixTime"] == math.ceil(started)
    assert 0 <= waiting["startedAtUnixTime"] - started < 1
    assert waiting["players"][1]["agents"] == [{"x": -1, "y": -1}] * 3
    rng = random.Random(5)
    for turn in range(1, match.turns + 1):
        clock.time = match.opens_at(turn) + timedelta(seconds=1)
        for player in players:
            status, game = player.game(match.pk)
            assert status == 200 and game["status"] == "gaming" and game["turn"] == turn
            status, received = player.send(match.pk, player.decide(game, rng))
            assert status == 200 and received["turn"] == turn
        clock.time = match.deadline(turn) + timedelta(seconds=0.5)  # the transition step
        assert players[0].game(match.pk)[0] == 200  # answers then too
        turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    match.refresh_from_db()
    assert match.over and match_verify(match).verified
    status, game = players[1].game(match.pk)
    native = public_state(match)
    field = game["field"]
    assert status == 200 and game["status"] == "ended" and game["turn"] == 6
    assert (field["width"], field["height"]) == (9, 6)
    assert field["points"] == [value for row in BOARD["points"] for value in row]
    cells = native["state"]["cells"]
    for y in range(6):
        for x in range(9):
            tile = field["tiles"][y * 9 + x]
            assert (tile["type"], tile["player"]) == {
                ".": (0, None), "A": (1, 0), "B": (1, 1), "a": (0, 0), "b": (0, 1)}[cells[y][x]]
    for team, player in enumerate(game["players"]):
        assert [(a["x"], a["y"]) for a in player["agents"]] == [
            tuple(cell) if cell else (-1, -1) for cell in native["state"]["agents"][team]]
        score = native["state"]["scores"][team]
        assert player["point"] == {"areaPoint": score["territory"], "wallPoint": score["wall"]}
    assert len(game["log"]) == 6 and (game["nPlayer"], game["nAgent"]) == (2, 3)
    logged = [action for turn in game["log"] for side in turn["players"]
              for action in side["actions"]]
    assert {action["res"] for action in logged} <= {0, 1, 5}
    assert {action["type"] for action in logged} <= {1, 2, 3, 4}  # PUT NONE MOVE REMOVE
    first = native["actions"][0]["outcomes"][0][0]
    assert (logged[0]["agentId"], logged[0]["type"], logged[0]["x"], logged[0]["y"]) == (
        first["agent"], 1, first["x"], first["y"])  # each put in turn 1
    stored = Submission.objects.filter(match=match, status_code=202)
    assert stored.count() == 12 and {row.dialect for row in stored} == {"kakomimasu-v1"}
    assert all(b'"agentId"' in bytes(row.body) for row in stored)


def test_the_errors_and_what_a_stranger_sees(client, clock, tmp_path):
    match, tokens = kakomimasu_match(tmp_path)
    public, _ = kakomimasu_match(tmp_path, public=True)
    player, stranger = KakomimasuClient(client, tokens[0]), KakomimasuClient(client, "nope")
    assert stranger.join(match.pk)[0] == 401
    assert player.join(public.pk)[0] == 400  # not its match
    assert stranger.game(match.pk)[0] == 400  # private: as if it did not exist
    assert stranger.game(public.pk)[0] == 200
    listed = client.get("/v1/matches").json()
    assert [game["id"] for game in listed] == [str(public.pk)]
    player.join(match.pk)
    assert player.send(match.pk, [])[1]["errorCode"] == 104  # before the start
    status, refused = stranger.send(match.pk, [])
    assert status == 401 and refused["errorCode"] == 4
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    status, refused = player.send(match.pk, [{"agentId": 0, "type": "JUMP", "x": 1, "y": 1}])
    assert status == 400 and "type" in refused["message"]
    assert player.send(match.pk, [{"agentId": 0, "type": "PUT", "x": 1, "y": 1}])[0] == 200
    kept = Submission.objects.filter(match=match, team__index=0).order_by("id")
    assert [row.status_code for row in kept] == [409, 400, 202]
    assert client.get("/version").json()["version"]
    listed = client.get("/v1/boards").json()  # the public boards, not the matches'
    assert "A-1" in {board["name"] for board in listed}
    assert not any(board["width"] == 9 and board["height"] == 6 for board in listed)


def read_event(stream) -> dict:
    """The next event of a server-sent stream (comments skipped)."""
    data = ""
    while True:
        line = stream.readline().decode().rstrip("\n")
        if line.startswith("data: "):
            data = line[6:]
        elif not line and data:
            return json.loads(data)


@pytest.mark.django_db(transaction=True)
def test_the_event_stream_follows_a_match_from_the_servers_own_events(live_server_process,
                                                                     tmp_path):
    """Over HTTP to a server process: the initial Games (the public one only), its start,
    then each turn its clock resolves (fed by the server's events, not a database poll),
    each Game with the latest turn only in its log."""
    import urllib.request

    first, _ = kakomimasu_match(tmp_path, public=True)
    kakomimasu_match(tmp_path)  # private: never in a stranger's stream
    # (3 s: time to open the stream before. The server's clock is told of the new start:
    # PostgreSQL's NOTIFY wakes it; on SQLite it looks again within 0.3 s, the tests'
    # servers' longest sleep, tests/conftest.py)
    start = timezone.now() + timedelta(seconds=3)
    Match.objects.filter(pk=first.pk).update(start_at=start, strategy_ms=600, transition_ms=200)
    clock_wake()
    with urllib.request.urlopen(f"{live_server_process}/v1/matches/stream", timeout=20) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        initial = read_event(stream)
        assert (initial["type"], initial["gamesNum"], initial["startIndex"],
                initial["endIndex"]) == ("initial", 1, 0, 20)
        assert [g["id"] for g in initial["games"]] == [str(first.pk)]
        assert initial["games"][0]["status"] == "ready"
        moved = read_event(stream)  # its start
        assert (moved["type"], moved["game"]["id"], moved["game"]["status"]) == (
            "update", str(first.pk), "gaming")
        seen = []  # the Game's turn in each update (one built late shows the latest)
        while not seen or seen[-1] < 4:
            played = read_event(stream)
            assert played["type"] == "update" and played["game"]["id"] == str(first.pk)
            assert len(played["game"]["log"]) == 1  # the latest turn only
            seen.append(played["game"]["turn"])
        assert seen == sorted(set(seen)) and len(seen) >= 2


def stream_events(request):
    """The stream's events, read in the test's own event loop."""
    from django.urls import resolve

    response = resolve("/v1/matches/stream").func(request)  # as the server routes it
    return response, aiter(response.streaming_content)


async def stream_close(response, events) -> None:
    """End the stream as a client's leaving does: the view's generator too (Django's
    wrapper closes only itself), so that it leaves its hub now, not when the test's event
    loop closes (which waited for the hub's receive on Redis, 5 s a test)."""
    await events.aclose()
    await response._iterator.aclose()


async def next_event(events) -> dict:
    import asyncio

    while True:
        chunk = await asyncio.wait_for(anext(events), 5)
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if text.startswith("data: "):
            return json.loads(text[6:])


@pytest.mark.django_db(transaction=True)
async def test_the_event_stream_adds_and_removes_matches_as_they_are_shown(tmp_path):
    """With allowNewGame=true a match made public is added at once (its creation is
    announced); one taken back by a judge is removed; a window is cut to 50 Games."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from matches.services.publication import match_publish

    first, _ = await sync_to_async(kakomimasu_match)(tmp_path, public=True)
    request = RequestFactory().get("/v1/matches/stream?allowNewGame=true&endIndex=999")
    request.user = AnonymousUser()
    response, events = stream_events(request)
    initial = await next_event(events)
    assert initial["endIndex"] == 50 and [g["id"] for g in initial["games"]] == [str(first.pk)]
    second, _ = await sync_to_async(kakomimasu_match)(tmp_path, public=True)
    added = await next_event(events)
    assert (added["type"], added["game"]["id"], added["game"]["status"]) == (
        "add", str(second.pk), "ready")
    await sync_to_async(match_publish)(match_id=second.pk, published=False)
    assert await next_event(events) == {"type": "remove", "gameId": str(second.pk)}
    await stream_close(response, events)


@pytest.mark.django_db(transaction=True)
async def test_without_allow_new_game_the_stream_follows_its_first_games_only(tmp_path):
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    first, _ = await sync_to_async(kakomimasu_match)(tmp_path, public=True)
    request = RequestFactory().get("/v1/matches/stream")
    request.user = AnonymousUser()
    response, events = stream_events(request)
    assert (await next_event(events))["gamesNum"] == 1
    await sync_to_async(kakomimasu_match)(tmp_path, public=True)  # not followed
    third, _ = await sync_to_async(kakomimasu_match)(tmp_path, public=True)
    await sync_to_async(match_publish_back)(first.pk)
    assert await next_event(events) == {"type": "remove", "gameId": str(first.pk)}
    await stream_close(response, events)


@pytest.mark.django_db(transaction=True)
async def test_an_update_that_says_nothing_new_is_not_sent(tmp_path):
    """List events for a state of a match the stream has sent already (a Game built late
    shows a later turn, then that turn's own event comes): no update says it again."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from matches.live.broadcast import summary_announce

    first, _ = await sync_to_async(kakomimasu_match)(tmp_path, public=True)
    request = RequestFactory().get("/v1/matches/stream")
    request.user = AnonymousUser()
    response, events = stream_events(request)
    assert (await next_event(events))["type"] == "initial"
    match = await sync_to_async(Match.objects.get)(pk=first.pk)
    for _ in range(3):  # the state the initial event showed, announced three times
        await sync_to_async(summary_announce)(match)
    await sync_to_async(match_publish_back)(first.pk)
    assert await next_event(events) == {"type": "remove", "gameId": str(first.pk)}
    await stream_close(response, events)


def match_publish_back(match_id: int) -> None:
    from matches.services.publication import match_publish

    match_publish(match_id=match_id, published=False)


@pytest.mark.django_db(transaction=True)
def test_an_address_holds_two_streams_at_most(untrusted_server_process):
    """The third stream from one address is refused at once (429), never queued; a
    stream closed gives its place back."""
    import urllib.error
    import urllib.request

    url = f"{untrusted_server_process}/v1/matches/stream"
    held = [urllib.request.urlopen(url, timeout=10) for _ in range(2)]
    for stream in held:
        assert read_event(stream)["type"] == "initial"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=10)
    assert refused.value.code == 429 and refused.value.headers["Retry-After"] == "1"
    assert json.loads(refused.value.read())["error"] == "too_busy"
    held.pop().close()
    for _ in range(50):  # the server notices the close at its next write or read
        try:
            with urllib.request.urlopen(url, timeout=10) as again:
                assert read_event(again)["type"] == "initial"
            break
        except urllib.error.HTTPError as error:
            assert error.code == 429
            time.sleep(0.2)
    else:
        raise AssertionError("the closed stream's place was never given back")


def test_a_dry_run_is_checked_and_stored_but_never_played(client, clock, tmp_path):
    """The community server's `dryRun`: the same answer as an accepted PATCH, nothing
    played; kept in the audit like every request."""
    match, tokens = kakomimasu_match(tmp_path, public=True)
    player = KakomimasuClient(client, tokens[0])
    player.join(match.pk)
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    put = {"agentId": 0, "type": "PUT", "x": 1, "y": 1}
    answer = client.generic("PATCH", f"/v1/matches/{match.pk}/actions",
                            json.dumps({"actions": [put], "dryRun": True}),
                            content_type="application/json", HTTP_AUTHORIZATION=player.pic)
    assert answer.status_code == 200 and answer.json()["turn"] == 1
    stored = Submission.objects.get(match=match)
    assert (stored.status_code, stored.error, stored.counted) == (200, "dry_run", False)
    wrong = client.generic("PATCH", f"/v1/matches/{match.pk}/actions",
                           json.dumps({"actions": [{"agentId": 0, "type": "JUMP"}],
                                       "dryRun": True}),
                           content_type="application/json", HTTP_AUTHORIZATION=player.pic)
    assert wrong.status_code == 400 and wrong.json()["errorCode"] == 104
    row = turn_resolve(match_id=match.pk, number=1)
    assert row.agents[0][0] is None  # nothing was played


def test_a_dry_run_is_answered_as_the_same_patch_would_be(client, clock, tmp_path):
    """Before the start and in a transition step a real PATCH gets error 104: so does a
    dry run of it (it is not told it would be taken)."""
    match, tokens = kakomimasu_match(tmp_path, public=True)
    body = json.dumps({"actions": [{"agentId": 0, "type": "PUT", "x": 1, "y": 1}],
                       "dryRun": True})
    for moment in (match.start_at - timedelta(seconds=3),  # before the start
                   match.deadline(1) + timedelta(seconds=0.5)):  # the transition step
        clock.time = moment
        answer = client.generic("PATCH", f"/v1/matches/{match.pk}/actions", body,
                                content_type="application/json", HTTP_AUTHORIZATION=tokens[0])
        assert answer.status_code == 400 and answer.json()["errorCode"] == 104, moment
    assert list(Submission.objects.values_list("status_code", "error")) == [
        (409, "not_running"), (409, "step_over")]


def test_more_actions_than_the_native_api_takes_are_refused(client, clock, tmp_path):
    """At most 256 actions a request, through the v1 dialect as natively."""
    match, tokens = kakomimasu_match(tmp_path, public=True)
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    many = [{"agentId": 0, "type": "NONE"}] * 300
    answer = client.generic("PATCH", f"/v1/matches/{match.pk}/actions",
                            json.dumps({"actions": many}), content_type="application/json",
                            HTTP_AUTHORIZATION=tokens[0])
    assert answer.status_code == 400 and answer.json()["errorCode"] == 104
    assert "at most 256 actions" in answer.json()["message"]
    assert Submission.objects.get().status_code == 400
