"""GET /api/matches and /api/matches/{id}, and the OpenAPI schema."""

import json

import pytest

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match, put, submit

pytestmark = pytest.mark.django_db


def test_the_public_state_of_a_running_match(client):
    match, tokens = make_match()
    client.post(f"/api/matches/{match.pk}/actions", data=json.dumps({"actions": [put(0, 2, 2)]}),
                content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    body = client.get(f"/api/matches/{match.pk}").json()
    assert (body["status"], body["turn"], body["strategy_turn"]) == ("running", 0, 1)
    assert body["deadline"] == int(match.deadline(1).timestamp() * 1000)
    assert abs(body["server_time"] - body["deadline"]) < 3600_000 + 5000
    assert body["board"]["points"] == match.board.data["points"]
    assert [t["name"] for t in body["teams"]] == ["Alpha", "Beta"]
    # the pending submission is nowhere: no actions, an empty board
    assert body["actions"] == [] and body["state"]["agents"] == [[None, None], [None, None]]
    assert "2, 2" not in json.dumps(body) and "[2, 2]" not in json.dumps(body["state"])


def test_past_turns_show_their_actions_and_results(client):
    match, tokens = make_match()
    client.post(f"/api/matches/{match.pk}/actions", data=json.dumps({"actions": [put(0, 2, 2)]}),
                content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    turn_resolve(match_id=match.pk, number=1)
    body = client.get(f"/api/matches/{match.pk}").json()
    assert body["turn"] == 1
    assert body["actions"] == [{"turn": 1, "outcomes": [[put(0, 2, 2) | {"result": "ok"}], []]}]
    assert body["state"]["agents"][0][0] == [2, 2]


def test_the_match_says_what_its_last_turn_did_on_the_board(client):
    """`last`, the rules' marks of the last turn as every screen draws them: the play
    page reads it here (it had drawn no Kakomimasu move: the state alone does not say
    where an agent came from)."""
    match, tokens = make_match()
    for number, action in enumerate([put(0, 2, 2), {"agent": 0, "type": "move", "x": 3, "y": 2}],
                                    start=1):
        submit(match, tokens[0], [action], number)
        turn_resolve(match_id=match.pk, number=number, now=match.deadline(number))
        last = client.get(f"/api/matches/{match.pk}").json()["last"]
        if number == 1:
            assert last == {"marks": [[2, 2, "acted", 0]], "moves": []}
    assert last == {"marks": [], "moves": [[[2, 2], [3, 2], 0]]}


def test_an_unknown_match_is_a_json_404(client):
    response = client.get("/api/matches/12345")
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_the_list_shows_running_upcoming_and_finished(client):
    running, _ = make_match()
    upcoming, _ = make_match(start_in=600, teams=("C", "D"))
    finished, _ = make_match(turns=1, teams=("E", "F"))
    private, _ = make_match(turns=1, teams=("G", "H"), public=False)
    for match in (finished, private):
        turn_resolve(match_id=match.pk, number=1)
    listed = {m["id"]: m["status"] for m in client.get("/api/matches").json()}
    # public live stays public after the end; a private match shows once published
    assert listed == {running.pk: "running", upcoming.pk: "upcoming", finished.pk: "finished"}
    line = next(m for m in client.get("/api/matches").json() if m["id"] == finished.pk)
    assert line["headline"] == [0, 0] and line["leader"] == {"team": None, "margin": 0}
    Match.objects.filter(pk=private.pk).update(published=True)
    listed = {m["id"]: m["status"] for m in client.get("/api/matches").json()}
    assert listed == {running.pk: "running", upcoming.pk: "upcoming", finished.pk: "finished",
                      private.pk: "finished"}


def test_openapi_schema_and_docs(client):
    schema = client.get("/api/openapi.json").json()
    post = schema["paths"]["/api/matches/{match_id}/actions"]["post"]
    assert set(post["responses"]) >= {"202", "400", "401", "403", "409", "413"}
    body = post["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["actions"]
    assert client.get("/api/docs").status_code == 200


def test_a_token_nobody_holds_is_401_even_on_a_public_match(
        client, django_capture_on_commit_callbacks):
    """A revoked (reissued) or made-up token reads nothing as a stranger would: a client
    written from docs/api.md would otherwise fail on `you`, or play on an old board."""
    from matches.models import Team
    from matches.services.tokens import token_reissue

    match, tokens = make_match(public=True)
    assert client.get(f"/api/matches/{match.pk}").status_code == 200  # no token: public
    own = client.get(f"/api/matches/{match.pk}", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert own.status_code == 200 and own.json()["you"] == 0
    with django_capture_on_commit_callbacks(execute=True):
        token_reissue(Team.objects.get(match=match, index=0))
    for path in (f"/api/matches/{match.pk}", "/api/matches", "/api/tournaments",
                 "/api/announcements"):
        for token in (tokens[0], "made-up"):
            answer = client.get(path, HTTP_AUTHORIZATION=f"Bearer {token}")
            assert answer.status_code == 401, (path, token)
            assert answer.json()["error"] == "unauthorized"
    assert client.get(f"/api/matches/{match.pk}",
                      HTTP_AUTHORIZATION=f"Bearer {tokens[1]}").json()["you"] == 1


def test_a_token_nobody_holds_is_401_on_the_v1_reads_and_undefined_is_none(client):
    match, tokens = make_match(public=True)
    for path in (f"/v1/matches/{match.pk}", "/v1/matches"):
        refused = client.get(path, HTTP_AUTHORIZATION="Bearer made-up")
        assert refused.status_code == 401 and refused.json()["errorCode"] == 4
        # the community library's way of sending no token
        assert client.get(path, HTTP_AUTHORIZATION="Bearer undefined").status_code == 200
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").status_code == 200
