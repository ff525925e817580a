"""Private matches: judges and their own teams see them; nobody else, anywhere."""

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command

from matches.models import Match
from matches.services.publication import match_publish
from matches.services.transition import turn_resolve
from tests.factories import make_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def private():
    match, tokens = make_match(teams=("Hidden", "Secret"), public=False)
    return match, tokens


@pytest.fixture
def judge(client):
    user = User.objects.create_user("judy", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    return user


def surfaces(client, match_id, **headers):
    """Every page and read API route: the status of each, and whether the name shows."""
    seen = {}
    for url in ["/", "/api/matches", f"/matches/{match_id}/", f"/screens/?matches={match_id}",
                f"/api/matches/{match_id}", f"/api/matches/{match_id}/record",
                f"/api/matches/{match_id}/timeline"]:
        response = client.get(url, **headers)
        seen[url] = (response.status_code, b"Hidden" in response.content)
    return seen


def test_a_private_match_is_invisible_to_anonymous_visitors(client, private):
    match, _ = private
    seen = surfaces(client, match.pk)
    assert seen["/"] == (200, False) and seen["/api/matches"] == (200, False)
    for url, (status, named) in seen.items():
        if url not in ("/", "/api/matches"):
            assert (status, named) == (404, False), url


def test_a_logged_in_user_without_the_permission_sees_nothing_more(client, private):
    match, _ = private
    User.objects.create_user("fan", password="pw")
    client.login(username="fan", password="pw")
    assert surfaces(client, match.pk)[f"/matches/{match.pk}/"] == (404, False)


def test_a_judge_sees_it_everywhere(client, private, judge):
    match, _ = private
    client.login(username="judy", password="pw")
    seen = surfaces(client, match.pk)
    assert all(status == 200 for status, _ in seen.values()), seen
    assert seen[f"/matches/{match.pk}/"][1] and seen["/api/matches"][1]


def test_its_own_teams_read_its_state_with_their_token_and_no_other_team_does(client, private):
    match, tokens = private
    _, other_tokens = make_match(teams=("X", "Y"), public=False)
    own = client.get(f"/api/matches/{match.pk}", HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    assert own.status_code == 200 and own.json()["teams"][0]["name"] == "Hidden"
    other = client.get(f"/api/matches/{match.pk}", HTTP_AUTHORIZATION=f"Bearer {other_tokens[0]}")
    assert other.status_code == 404
    record = client.get(f"/api/matches/{match.pk}/record",
                        HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    assert record.status_code == 404  # records are for published matches


def test_public_live_stays_public_after_its_end_until_a_judge_unpublishes_it(client):
    match, _ = make_match(teams=("Hidden", "Secret"), turns=1, public=True)
    screen, wall = f"/matches/{match.pk}/", f"/screens/?matches={match.pk}"
    assert surfaces(client, match.pk)[screen] == (200, True)
    assert surfaces(client, match.pk)[f"/api/matches/{match.pk}/record"][0] == 404
    turn_resolve(match_id=match.pk, number=1)
    seen = surfaces(client, match.pk)  # the venue reloads its screens between rounds
    assert seen[screen] == seen[wall] == seen[f"/api/matches/{match.pk}"] == (200, True)
    assert seen["/api/matches"] == (200, True)
    assert seen[f"/api/matches/{match.pk}/record"][0] == 404  # records: once published
    match_publish(match_id=match.pk, published=False)  # a judge takes it back
    seen = surfaces(client, match.pk)
    assert seen[screen] == seen[wall] == (404, False) and seen["/api/matches"] == (200, False)
    match_publish(match_id=match.pk, published=True)
    seen = surfaces(client, match.pk)
    assert all(status == 200 for status, _ in seen.values()), seen
    record = client.get(f"/api/matches/{match.pk}/record").json()
    timeline = client.get(f"/api/matches/{match.pk}/timeline").json()
    assert record["format"] == "match-record/1" and len(record["actions"]) == 1
    assert timeline["format"] == "timeline/1" and len(timeline["states"]) == 2
    assert timeline["result"] == Match.objects.get(pk=match.pk).result


def test_createjudge_makes_a_user_with_the_permission(monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_PASSWORD", "s3cret-pass")
    call_command("createjudge", "ada")
    user = User.objects.get(username="ada")
    assert user.has_perm("matches.judge") and user.check_password("s3cret-pass")
    User.objects.create_user("bob")
    call_command("createjudge", "bob")
    assert User.objects.get(username="bob").has_perm("matches.judge")
