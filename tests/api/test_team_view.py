"""What a team's program reads with its token: which team it is, its own matches, the
submission of its that will count; and the optional `turn` of a submission."""

import pytest

from matches.models import Match, Submission
from matches.services.transition import turn_resolve
from tests.api.test_submissions import ACTIONS, assert_error, post
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db


def get(client, path, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.get(path, **headers)


def test_a_match_says_which_team_the_token_is(client):
    match, tokens = make_match(public=False)
    assert get(client, f"/api/matches/{match.pk}", tokens[1]).json()["you"] == 1
    assert get(client, f"/api/matches/{match.pk}", tokens[0]).json()["you"] == 0
    public, _ = make_match(teams=("Gamma", "Delta"))
    assert get(client, f"/api/matches/{public.pk}").json()["you"] is None
    assert get(client, f"/api/matches/{public.pk}", tokens[0]).json()["you"] is None


def test_the_list_with_a_token_holds_its_own_private_match(client):
    private, tokens = make_match(public=False)
    public, _ = make_match(teams=("Gamma", "Delta"))
    anonymous = {m["id"]: m["you"] for m in get(client, "/api/matches").json()}
    assert anonymous == {public.pk: None}
    mine = {m["id"]: m["you"] for m in get(client, "/api/matches", tokens[1]).json()}
    assert mine == {public.pk: None, private.pk: 1}
    # a token nobody holds is told so, not shown the public list as a stranger's
    assert get(client, "/api/matches", "no-such-token").status_code == 401


def test_a_team_reads_its_own_submission_that_will_count(client, clock):
    match, tokens = make_match()
    path = f"/api/matches/{match.pk}/actions"
    assert get(client, path, tokens[0]).json() == {"turn": 1, "received_at": None,
                                                   "actions": None}
    post(client, match.pk, {"actions": [put(0, 0, 0)]}, tokens[0])
    clock.advance(0.1)
    last = post(client, match.pk, ACTIONS, tokens[0]).json()
    clock.advance(0.1)
    post(client, match.pk, {"actions": "oops"}, tokens[0])  # refused: changes nothing
    post(client, match.pk, {"actions": [put(1, 5, 4)]}, tokens[1])  # the other team's
    mine = get(client, path, tokens[0]).json()
    assert mine == {"turn": 1, "received_at": last["received_at"], "actions": ACTIONS["actions"]}
    turn_resolve(match_id=match.pk, number=1)
    assert Submission.objects.get(counted=True, team__index=0).actions == mine["actions"]


def test_nobody_else_reads_a_teams_submission(client):
    match, tokens = make_match()
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    post(client, match.pk, ACTIONS, tokens[0])
    path = f"/api/matches/{match.pk}/actions"
    assert_error(get(client, path), 401, "unauthorized")
    assert_error(get(client, path, "not-a-token"), 401, "unauthorized")
    assert_error(get(client, path, other_tokens[0]), 403, "forbidden")
    assert get(client, path, tokens[1]).json()["actions"] is None
    assert_error(get(client, "/api/matches/99999/actions", tokens[0]), 404, "not_found")


def test_between_strategy_steps_there_is_no_open_turn(client):
    match, tokens = make_match(start_in=-10, strategy=5, transition=3600)
    assert get(client, f"/api/matches/{match.pk}/actions", tokens[0]).json() == {
        "turn": None, "received_at": None, "actions": None}


def test_a_submission_for_the_open_turn_is_accepted(api):
    match, tokens = make_match()
    assert post(api, match.pk, {**ACTIONS, "turn": 1}, tokens[0]).status_code == 202


def test_a_null_turn_is_as_none_and_the_schema_says_so(api, client):
    match, tokens = make_match()
    assert post(api, match.pk, {**ACTIONS, "turn": None}, tokens[0]).status_code == 202
    schema = client.get("/api/openapi.json").json()
    body = schema["paths"]["/api/matches/{match_id}/actions"]["post"]["requestBody"]
    turn = body["content"]["application/json"]["schema"]["properties"]["turn"]
    assert "null" in turn["type"]  # else the fuzzer calls accepting it a defect


def test_a_submission_for_another_turn_is_409_wrong_turn_and_stored(api):
    match, tokens = make_match(turns=5)
    Match.objects.filter(pk=match.pk).update(start_at=match.start_at - 2 * match.period)
    turn_resolve(match_id=match.pk, number=1)
    turn_resolve(match_id=match.pk, number=2)
    for late in (2, 4):
        assert_error(post(api, match.pk, {**ACTIONS, "turn": late}, tokens[0]), 409,
                     "wrong_turn", f"the open strategy step is turn 3, not {late}")
    stored = Submission.objects.filter(match=match).order_by("id")
    assert [(s.status_code, s.error, s.turn) for s in stored] == [(409, "wrong_turn", 3)] * 2
    assert turn_resolve(match_id=match.pk, number=3).agents[0] == [None, None]


@pytest.mark.parametrize("turn", ["1", True, 0, -1, 1.5, [1]])
def test_a_turn_that_is_not_a_whole_number_from_1_is_400(api, turn):
    match, tokens = make_match()
    assert_error(post(api, match.pk, {**ACTIONS, "turn": turn}, tokens[0]), 400,
                 "invalid_actions", "turn: expected a whole number from 1")
