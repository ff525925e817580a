"""The community server's ways into a match, here practice matches: `POST
/v1/matches/ai/players` (against a built-in AI) and `POST /v1/matches/free/players`
(whoever comes next), as its client library's samples use them: join as a guest, read
the Game until it is `gaming`, send the turn's actions with the `pic`."""

import json
from datetime import timedelta

import pytest

from matches.models import Match, Submission
from tests.dialects.kakomimasu_client import KakomimasuClient

pytestmark = pytest.mark.django_db


def join(client, path, body, token=None, address="198.51.100.1"):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    answer = client.post(path, json.dumps(body), content_type="application/json",
                         REMOTE_ADDR=address, **headers)
    return answer.status_code, answer.json()


@pytest.fixture
def open_practice(settings):
    settings.PRACTICE = "open"


def test_a_guest_plays_an_ai_as_the_library_sample_does(client, clock, open_practice):
    status, joined = join(client, "/v1/matches/ai/players",
                          {"aiName": "a2", "guestName": "john-doe", "boardName": "A-1",
                           "totalTurn": 4, "operationSec": 2, "transitionSec": 1,
                           "nAgent": 3})
    assert status == 200, joined
    assert set(joined) == {"userId", "spec", "gameId", "index", "pic"}
    assert joined["userId"] == "john-doe" and joined["index"] == 0 and joined["pic"]
    match = Match.objects.get(pk=int(joined["gameId"]))
    assert (match.turns, match.agents, match.strategy_ms, match.board.name) == (4, 3, 2000, "A-1")
    assert match.teams.get(index=1).seat == "level-2"
    player = KakomimasuClient(client, token="")
    player.pic, player.index = joined["pic"], joined["index"]
    status, game = player.game(match.pk)  # the sample polls until "gaming"
    assert status == 200 and game["status"] == "ready"
    assert game["reservedUsers"] == ["john-doe", "Level 2"]
    clock.time = match.opens_at(1) + timedelta(seconds=0.5)
    status, game = player.game(match.pk)
    assert game["status"] == "gaming" and game["turn"] == 1
    status, received = player.send(match.pk, [{"agentId": 0, "type": "PUT", "x": 0, "y": 0}])
    assert status == 200 and received["turn"] == 1
    sent = Submission.objects.get(match=match, status_code=202)
    assert sent.team.index == 0 and sent.dialect == "kakomimasu-v1"


def test_two_guests_meet_in_a_free_match(client, clock, open_practice):
    status, first = join(client, "/v1/matches/free/players", {"guestName": "alice"})
    assert status == 200 and first["index"] == 0
    watcher = KakomimasuClient(client, token="")
    assert watcher.game(int(first["gameId"]))[1]["status"] == "free"
    status, second = join(client, "/v1/matches/free/players", {"guestName": "bob"},
                          address="198.51.100.2")
    assert status == 200 and second["gameId"] == first["gameId"] and second["index"] == 1
    status, game = watcher.game(int(first["gameId"]))
    assert game["status"] == "ready" and game["reservedUsers"] == ["alice", "bob"]
    match = Match.objects.get(pk=int(first["gameId"]))
    clock.time = match.opens_at(1) + timedelta(seconds=0.5)
    for joined in (first, second):
        player = KakomimasuClient(client, token="")
        player.pic = joined["pic"]
        status, received = player.send(match.pk, [{"agentId": 0, "type": "NONE"}])
        assert status == 200 and received["turn"] == 1


@pytest.mark.parametrize("nothing", ["undefined", "null", ""])
def test_a_guest_whose_library_sends_bearer_undefined_is_seated_as_a_guest(
        client, clock, open_practice, nothing):
    """The community library writes `Authorization: Bearer ${token}` whatever it has: a
    guest's program, with no token, sends `Bearer undefined`. The community server seats
    the guest; so does this one (it answered 401, errorCode 4)."""
    status, first = join(client, "/v1/matches/free/players", {"guestName": "AI-1"},
                         token=nothing or " ")
    assert status == 200, first
    assert first["userId"] == "AI-1" and first["index"] == 0 and first["pic"]
    status, second = join(client, "/v1/matches/free/players", {"guestName": "AI-2"},
                          token=nothing or " ", address="198.51.100.2")
    assert status == 200 and second["gameId"] == first["gameId"] and second["index"] == 1
    # a token that is no team's is still refused, as before
    status, refused = join(client, "/v1/matches/free/players", {"guestName": "AI-3"},
                           token="not-a-token", address="198.51.100.3")
    assert status == 401 and refused["errorCode"] == 4


def test_a_team_token_joins_as_its_team(client, clock, settings):
    settings.PRACTICE = "teams"
    from tests.factories import make_match

    _, tokens = make_match(teams=("Kosen", "Other"))
    status, joined = join(client, "/v1/matches/ai/players", {"aiName": "none"}, token=tokens[0])
    assert status == 200 and joined["userId"] == "Kosen"
    match = Match.objects.get(pk=int(joined["gameId"]))
    assert match.teams.get(index=1).seat == "none"  # an AI that never acts


@pytest.mark.parametrize("path, body, status, code", [
    ("/v1/matches/ai/players", {"aiName": "a1"}, 400, 204),  # neither a guest nor a team
    ("/v1/matches/free/players", {}, 400, 204),
    ("/v1/matches/ai/players", {"aiName": "a9", "guestName": "g"}, 400, 102),
    ("/v1/matches/ai/players", {"guestName": "g"}, 400, 102),
    ("/v1/matches/ai/players", {"aiName": "a1", "guestName": "g", "boardName": "Mars"},
     400, 400),
    ("/v1/matches/ai/players", {"aiName": "a1", "guestName": "g", "totalTurn": -3}, 400, 6),
    ("/v1/matches/ai/players", {"aiName": "a1", "guestName": "g\x00"}, 400, 6),
    ("/v1/matches/free/players", [], 400, 6),
])
def test_refusals_carry_the_community_error_codes(client, open_practice, path, body, status,
                                                   code):
    got, answer = join(client, path, body)
    assert (got, answer["errorCode"]) == (status, code) and answer["message"]
    assert not Match.objects.exists()


def test_malformed_json_and_a_server_without_practice(client, settings):
    settings.PRACTICE = "open"
    answer = client.post("/v1/matches/free/players", b"{", content_type="application/json")
    assert answer.status_code == 400 and answer.json()["errorCode"] == 3
    settings.PRACTICE = "off"
    status, answer = join(client, "/v1/matches/free/players", {"guestName": "g"})
    assert (status, answer["errorCode"]) == (404, 5)
    settings.PRACTICE = "teams"
    status, answer = join(client, "/v1/matches/free/players", {"guestName": "g"})
    assert (status, answer["errorCode"]) == (401, 4)
    assert not Match.objects.exists()


def test_a_dry_run_is_checked_and_makes_nothing(client, open_practice):
    status, answer = join(client, "/v1/matches/ai/players",
                          {"aiName": "a1", "guestName": "g", "dryRun": True})
    assert status == 200 and answer["gameId"] == "" and answer["pic"] == ""
    status, answer = join(client, "/v1/matches/ai/players",
                          {"aiName": "a1", "guestName": "g", "boardName": "Mars",
                           "dryRun": True})
    assert (status, answer["errorCode"]) == (400, 400)
    assert not Match.objects.exists()
