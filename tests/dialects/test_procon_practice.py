"""The Procon dialects' one request for a practice match (docs/dialects.md): `POST
/procon30/practice` (and /procon2020/) for Procon 2020, `POST /procon31/practice` for
Kakomimasu; the answer lists the match as the dialect does, with the caller's token,
which then plays it through the dialect unchanged."""

import json

import pytest

from matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_practice(settings):
    settings.PRACTICE = "open"


def post(client, path, body, **headers):
    answer = client.post(path, json.dumps(body), content_type="application/json", **headers)
    return answer.status_code, answer.json()


@pytest.mark.parametrize("prefix", ["procon30", "procon2020"])
def test_a_procon_2020_practice_match_in_one_request(client, open_practice, prefix):
    status, made = post(client, f"/{prefix}/practice",
                        {"opponent": "level-3", "turns": 12, "turnMillis": 3000,
                         "intervalMillis": 500, "name": "Huế"})
    assert status == 201, made
    match = Match.objects.get(pk=made["id"])
    assert (made["teamID"], made["matchTo"], made["turns"]) == (1, "Level 3", 12)
    assert (made["turnMillis"], made["intervalMillis"]) == (3000, 500)
    assert (match.strategy_ms, match.transition_ms, match.game) == (3000, 500, "procon2020")
    listed = client.get(f"/{prefix}/matches", HTTP_AUTHORIZATION=made["token"]).json()
    # a Procon 2020 match is two games, both listed for the token
    assert [entry["id"] for entry in listed] == [match.pk, match.later_games.get().pk]


def test_a_kakomimasu_practice_match_through_procon31(client, open_practice):
    status, made = post(client, "/procon31/practice",
                        {"opponent": "level-1", "board": "A-1", "agents": 4,
                         "operationMillis": 2000, "transitionMillis": 1000})
    assert status == 201, made
    match = Match.objects.get(pk=made["matchID"])
    me = client.get("/procon31/teams/me", HTTP_X_API_TOKEN=made["token"]).json()
    assert made["teamID"] == made["teams"][0]["teamID"] == me["teamID"]
    assert (match.agents, match.strategy_ms, match.board.name) == (4, 2000, "A-1")
    listed = client.get("/procon31/matches", HTTP_X_API_TOKEN=made["token"]).json()
    assert [entry["matchID"] for entry in listed] == [match.pk]


def test_refusals_in_each_dialects_words(client, settings):
    settings.PRACTICE = "open"
    status, body = post(client, "/procon30/practice", {"opponent": "level-9"})
    assert status == 400 and body["status"] == "BadRequest" and "opponent" in body["detail"]
    status, body = post(client, "/procon31/practice", {"opponent": "level-1", "board": "X"})
    assert status == 400 and body["status"] == "BadRequest" and "board" in body["detail"]
    status, body = post(client, "/procon30/practice", {"opponent": "level-1"},
                        HTTP_AUTHORIZATION="not-a-token")
    assert status == 401 and body["status"] == "InvalidToken"
    answer = client.post("/procon31/practice", b"[1", content_type="application/json")
    assert answer.status_code == 400
    settings.PRACTICE = "off"
    status, body = post(client, "/procon31/practice", {"opponent": "level-1"})
    assert status == 404
    assert not Match.objects.exists()
