"""The read API's refusals before any work (a match the caller may not see, a missing
token, another match's token) answer each route alike: the status and the error shape
of docs/api.md, "Errors", whichever route was asked."""

import pytest

from tests.factories import make_match

pytestmark = pytest.mark.django_db


def answer(client, path, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    response = client.get(path, **headers)
    assert response["Content-Type"].startswith("application/json"), path
    return response.status_code, response.json()


@pytest.mark.parametrize("route", ["", "/submissions", "/debug", "/analysis"])
def test_a_private_match_is_not_found_for_a_visitor(client, route):
    match, _ = make_match(public=False)
    assert answer(client, f"/api/matches/{match.pk}{route}") == (
        404, {"error": "not_found", "detail": f"there is no match {match.pk}"})


@pytest.mark.parametrize("route", ["/record", "/timeline"])
def test_an_unpublished_match_has_no_record_for_a_visitor(client, route):
    match, _ = make_match()
    assert answer(client, f"/api/matches/{match.pk}{route}") == (
        404, {"error": "not_found", "detail": f"there is no published match {match.pk}"})


@pytest.mark.parametrize("route", ["/actions", "/submissions", "/report"])
def test_a_teams_own_reads_need_its_token_and_its_match(client, route):
    match, _ = make_match()
    _, others = make_match()
    path = f"/api/matches/{match.pk}{route}"
    status, said = answer(client, path)
    assert (status, said["error"]) == (401, "unauthorized")
    status, said = answer(client, path, others[0])
    assert (status, said["error"]) == (403, "forbidden")
    missing = f"/api/matches/{match.pk + 1000}{route}"
    status, said = answer(client, missing, others[0])
    assert status == 404 and said["error"] == "not_found"
