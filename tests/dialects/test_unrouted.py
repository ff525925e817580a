"""An address under the answer API's or a dialect's path that no route takes (one whose
match number has more digits than any match's id, a mistyped one) is answered in that
API's own JSON, never with the site's HTML page: a program reads its error as it reads
any other (docs/dialects.md, docs/api.md)."""

import json

import pytest

pytestmark = pytest.mark.django_db

TOO_LONG = "9" * 25  # no match's id has so many digits: no route takes it


@pytest.mark.parametrize(("address", "status", "said"), [
    (f"/api/matches/{TOO_LONG}", 404, {"error": "not_found"}),
    ("/api/nothing-here", 404, {"error": "not_found"}),
    (f"/v1/matches/{TOO_LONG}", 404, {"errorCode": 100}),
    (f"/v1/matches/{TOO_LONG}/actions", 404, {"errorCode": 100}),
    ("/v1/nothing-here", 404, {"errorCode": 100}),
    (f"/procon30/matches/{TOO_LONG}", 404, {"status": "InvalidMatches"}),
    (f"/procon2020/matches/{TOO_LONG}/action", 404, {"status": "InvalidMatches"}),
    ("/procon2020/nothing-here", 404, {"status": "NotFound"}),
    (f"/procon31/matches/{TOO_LONG}", 404, {"status": "InvalidMatches"}),
    ("/procon31/nothing-here", 404, {"status": "NotFound"}),
])
def test_an_address_no_route_takes_is_answered_in_the_api_s_words(client, address, status,
                                                                   said):
    answer = client.get(address)
    assert answer.status_code == status
    assert answer["Content-Type"].startswith("application/json")
    body = json.loads(answer.content)
    assert said.items() <= body.items(), body


def test_a_page_s_unknown_address_is_still_a_page(client):
    answer = client.get(f"/matches/{TOO_LONG}/")
    assert answer.status_code == 404 and answer["Content-Type"].startswith("text/html")


def test_an_unknown_address_is_said_back_short(client):
    body = json.loads(client.get("/api/" + "x" * 5000).content)
    assert len(body["detail"]) < 300
