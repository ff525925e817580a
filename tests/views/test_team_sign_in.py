"""A team opens its own private match's pages with its token, typed once on
/matches/<id>/team (matches/views/pages.py, `team_sign_in`): the session keeps which
team this browser is, never the token; the replay then shows its program's debug
output, and nothing of the other team's."""

import json

import pytest

from matches.services.transition import turn_resolve
from tests.factories import make_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def private(client):
    match, tokens = make_match(turns=2, teams=("Nara", "Hanoi"), public=False)
    for index, said in ((0, "Nara thinks"), (1, "Hanoi thinks")):
        client.post(f"/api/matches/{match.pk}/actions",
                    json.dumps({"actions": [], "debug": said}),
                    content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[index]}")
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    return match, tokens


def test_a_team_opens_its_private_match_as_itself_and_reads_its_own_debug(client, private):
    match, tokens = private
    hidden = client.get(f"/matches/{match.pk}/replay")
    assert hidden.status_code == 404
    assert f"/matches/{match.pk}/team?next=/matches/{match.pk}/replay" in hidden.content.decode()
    refused = client.post(f"/matches/{match.pk}/team", {"token": "not-a-token"})
    assert refused.status_code == 403
    assert client.get(f"/matches/{match.pk}/replay").status_code == 404
    opened = client.post(f"/matches/{match.pk}/team",
                         {"token": tokens[0], "next": f"/matches/{match.pk}/replay"})
    assert opened.status_code == 302 and opened["Location"] == f"/matches/{match.pk}/replay"
    assert client.get(f"/matches/{match.pk}/replay").status_code == 200
    debug = client.get(f"/api/matches/{match.pk}/debug").json()
    assert debug["teams"] == [0] and "Nara thinks" in json.dumps(debug)
    assert "Hanoi thinks" not in json.dumps(debug)
    sent = client.get(f"/api/matches/{match.pk}/submissions").json()
    assert [row["team"] for row in sent["submissions"]] == [0]
    assert tokens[0] not in str(dict(client.session))  # only the team's row is kept


def test_a_team_of_one_match_opens_no_other(client, private):
    match, tokens = private
    other, other_tokens = make_match(turns=2, public=False)
    client.post(f"/matches/{other.pk}/team", {"token": other_tokens[0]})
    assert client.get(f"/matches/{other.pk}/replay").status_code == 200
    assert client.get(f"/matches/{match.pk}/replay").status_code == 404
    assert client.post(f"/matches/{match.pk}/team", {"token": other_tokens[0]}).status_code == 403
    assert client.get(f"/api/matches/{match.pk}/debug").status_code == 404


def test_the_sign_in_sends_nowhere_but_the_matchs_own_pages(client, private):
    match, tokens = private
    for elsewhere in ("https://example.com/", "//example.com/", "/admin/", f"/matches/{match.pk}"):
        answer = client.post(f"/matches/{match.pk}/team", {"token": tokens[1], "next": elsewhere})
        assert answer["Location"] == f"/matches/{match.pk}/replay"
    assert client.get("/matches/99999/team").status_code == 200  # the same form for any number
