"""GET /api/matches/{id} by the match's own team: served straight from ASGI, on the
reads' own thread (matches/api_asgi.py), once this process knows the team's token, and
answered as Django's operation answers it; every other read is handed on to Django."""

import pytest

from matches.api_asgi import AnswerEndpoint
from tests.api.conftest import AsgiClient
from tests.api.test_submissions import SECURITY_HEADERS, handed_on
from tests.factories import make_match

pytestmark = pytest.mark.django_db

# What two reads a moment apart differ in (selectors.timing: the server's clock)
MOMENT = {"server_time"}


def test_a_teams_own_read_is_answered_as_djangos_operation_answers_it(client):
    match, tokens = make_match(public=False)  # (only its teams and the judges see it)
    path, token = f"/api/matches/{match.pk}", f"Bearer {tokens[1]}"
    endpoint = AsgiClient(AnswerEndpoint(handed_on))
    # a token this process has not found a team for yet: Django's
    assert endpoint.get(path, HTTP_AUTHORIZATION=token).status_code == 299
    by_django = client.get(path, HTTP_AUTHORIZATION=token)  # (found: known from now on)
    by_asgi = endpoint.get(path, HTTP_AUTHORIZATION=token)
    assert (by_django.status_code, by_asgi.status_code) == (200, 200)
    django_said, asgi_said = by_django.json(), by_asgi.json()
    assert asgi_said["you"] == 1 and asgi_said["state"] == django_said["state"]
    assert set(asgi_said) == set(django_said)
    assert {key for key in django_said if asgi_said[key] != django_said[key]} <= MOMENT
    assert by_asgi.headers["content-type"] == by_django.headers["content-type"]
    assert {name: by_asgi.headers[name] for name in SECURITY_HEADERS
            if name in by_asgi.headers} == \
        {name: by_django.headers[name] for name in SECURITY_HEADERS
         if name in by_django.headers}
    assert int(by_asgi.headers["content-length"]) == len(by_asgi.content)


def test_every_other_read_is_handed_on_to_django(client):
    match, tokens = make_match()
    other, other_tokens = make_match(teams=("Gamma", "Delta"))
    for token in (tokens[0], other_tokens[0]):  # (both known to this process)
        assert client.get(f"/api/matches/{match.pk}",
                          HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    endpoint = AsgiClient(AnswerEndpoint(handed_on))
    own = f"/api/matches/{match.pk}"
    assert endpoint.get(own, HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").status_code == 200
    for path, meta in [
            (own, {}),  # a visitor
            (own, {"HTTP_AUTHORIZATION": f"Bearer {other_tokens[0]}"}),  # another match's team
            (own, {"HTTP_AUTHORIZATION": "Bearer nobodys"}),  # Django's 401
            (own, {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}", "host": "evil.example"}),
            (f"/api/matches/{other.pk + 1000}",  # no such match: Django's 404
             {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}"}),
            (own + "/actions", {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}"}),
            (own + "/", {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}"})]:
        answer = endpoint.get(path, **meta)
        assert (path, meta, answer.status_code) == (path, meta, 299)
