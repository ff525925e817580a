"""Tokens stored and looked up hashed, a token confined to its own team
and match, CSRF on the forms, and nothing pending on any page or read route.

(Audit pages and exports for judges only: tests/views/test_audit.py. Private matches
everywhere: tests/views/test_privacy.py. The match socket: tests/consumers.)
"""

import hashlib
import json
from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from matches.caches import caches_reset
from matches.models import Match, Submission, Team
from matches.services.transition import turn_resolve
from tests.api.test_submissions import ACTIONS, assert_error, post
from tests.factories import make_match, move, put

pytestmark = pytest.mark.django_db


def sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def test_tokens_are_stored_only_as_their_sha256(client):
    match, tokens = make_match()
    assert post(client, match.pk, ACTIONS, tokens[0]).status_code == 202
    dump = StringIO()
    call_command("dumpdata", stdout=dump)  # every table: teams, submissions, the rest
    for index, token in enumerate(tokens):
        assert token not in dump.getvalue()
        assert Team.objects.get(match=match, index=index).token_hash == sha256(token)


def test_a_token_is_known_only_whole(api):
    """The token is looked up by its SHA-256 (in the database, then in the process's
    cache): no comparison ever runs on the token itself, and a near miss is a stranger."""
    match, tokens = make_match()
    assert post(api, match.pk, ACTIONS, tokens[1]).status_code == 202
    for near in (tokens[1][:-1], tokens[1] + "x", tokens[1].upper(), f" {tokens[1]}x"):
        assert_error(post(api, match.pk, ACTIONS, near), 401, "unauthorized")
    assert [s.team_id is not None for s in Submission.objects.order_by("id")] == [True] + [
        False] * 4


def test_a_token_submits_for_its_own_team_whatever_the_body_says(api):
    match, tokens = make_match()
    body = {"team": 1, "teams": [1], "index": 1, "actions": [put(0, 2, 2)]}
    assert post(api, match.pk, body, tokens[0]).status_code == 202
    assert Submission.objects.get().team.index == 0
    row = turn_resolve(match_id=match.pk, number=1)
    assert row.agents == [[[2, 2], None], [None, None]]


def test_a_token_of_another_match_neither_submits_nor_replaces(api):
    match, tokens = make_match()
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    assert post(api, match.pk, {"actions": [put(0, 1, 1)]}, tokens[0]).status_code == 202
    for token in other_tokens:
        assert_error(post(api, match.pk, {"actions": [put(0, 5, 4)]}, token), 403, "forbidden")
    row = turn_resolve(match_id=match.pk, number=1)
    assert row.agents == [[[1, 1], None], [None, None]]


# --- CSRF -------------------------------------------------------------------------------


def csrf_client(username=None):
    """A browser-like client that enforces CSRF, logged in as a judge if named."""
    strict = Client(enforce_csrf_checks=True)
    if username:
        user = User.objects.create_user(username, password="pw-for-tests")
        user.user_permissions.add(Permission.objects.get(codename="judge"))
        strict.login(username=username, password="pw-for-tests")
    return strict


def form_token(strict: Client, page: str) -> str:
    assert strict.get(page).status_code == 200
    return strict.cookies["csrftoken"].value


def test_the_login_form_needs_its_csrf_token():
    User.objects.create_user("jo", password="pw-for-tests")
    strict = csrf_client()
    fields = {"username": "jo", "password": "pw-for-tests"}
    assert strict.post("/accounts/login/", fields).status_code == 403
    assert "_auth_user_id" not in strict.session
    token = form_token(strict, "/accounts/login/")
    assert strict.post("/accounts/login/", fields | {"csrfmiddlewaretoken": token}
                       ).status_code == 302
    assert "_auth_user_id" in strict.session


def test_publishing_needs_its_csrf_token():
    match, _ = make_match(turns=1, public=False)
    turn_resolve(match_id=match.pk, number=1)
    strict = csrf_client("judy")
    url = f"/matches/{match.pk}/audit/publish"
    assert strict.post(url, {"published": "1"}).status_code == 403
    assert not Match.objects.get(pk=match.pk).published
    token = form_token(strict, f"/matches/{match.pk}/audit")
    assert strict.post(url, {"published": "1", "csrfmiddlewaretoken": token}).status_code == 302
    assert Match.objects.get(pk=match.pk).published


def test_offline_entry_works_with_its_csrf_token():
    """(Without it: tests/views/test_audit.py.) The token is what let it through."""
    match, _ = make_match()
    strict = csrf_client("judy")
    token = form_token(strict, f"/matches/{match.pk}/audit")
    fields = {"team": 0, "actions": json.dumps(ACTIONS), "note": "their network is down"}
    response = strict.post(f"/matches/{match.pk}/audit/enter",
                           fields | {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Submission.objects.get().entered_by == "judy"


def test_the_answer_api_takes_bearer_tokens_not_cookies_so_needs_no_csrf_token():
    match, tokens = make_match()
    strict = csrf_client("judy")
    assert post(strict, match.pk, ACTIONS, tokens[0]).status_code == 202
    assert_error(post(strict, match.pk, ACTIONS), 401, "unauthorized")  # a judge's session


# --- nothing pending anywhere -----------------------------------------------------------


def surfaces(match_id: int) -> list[str]:
    return ["/", "/matches/", f"/matches/{match_id}/", f"/matches/{match_id}/scores.csv",
            f"/matches/{match_id}/board.png", f"/matches/{match_id}/replay",
            f"/screens/?matches={match_id}", "/api/matches", f"/api/matches/{match_id}",
            f"/api/matches/{match_id}/record", f"/api/matches/{match_id}/timeline"]


def test_no_page_or_read_route_shows_a_submission_before_its_transition(monkeypatch):
    """Every surface, read by anyone, by either team, by another match's team and by a
    judge (outside the audit), is the same byte for byte before and after the teams
    submit; the transition changes it."""
    now = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: now[0])
    match, tokens = make_match(turns=3)
    _, stranger = make_match(teams=("Gamma", "Delta"))
    for token, actions in zip(tokens, [[put(0, 1, 1)], [put(0, 4, 3)]], strict=True):
        assert post(Client(), match.pk, {"actions": actions}, token).status_code == 202
    turn_resolve(match_id=match.pk, number=1)
    now[0] = match.opens_at(2) + (now[0] - match.start_at)  # turn 2's strategy step

    readers = {"anyone": (Client(), {}), "judge": (csrf_client("judy"), {})}
    for name, token in [("team A", tokens[0]), ("team B", tokens[1]),
                        ("another match's team", stranger[0])]:
        readers[name] = (Client(), {"HTTP_AUTHORIZATION": f"Bearer {token}"})

    def read_all():
        seen = {}
        for reader, (client, headers) in readers.items():
            for url in surfaces(match.pk):
                caches_reset()
                cache.clear()
                response = client.get(url, **headers)
                assert response.status_code < 500, url
                seen[reader, url] = (response.status_code, response.content)
        return seen

    before = read_all()
    assert post(Client(), match.pk, {"actions": [move(0, 2, 2)]}, tokens[0]).status_code == 202
    assert post(Client(), match.pk, {"actions": "oops"}, tokens[1]).status_code == 400
    again = read_all()
    differ = {key: (before[key][0], before[key][1][:300], seen[0], seen[1][:300])
              for key, seen in again.items() if seen != before[key]}
    assert not differ, f"read again, these answered otherwise: {differ}"
    turn_resolve(match_id=match.pk, number=2)
    after = read_all()
    changed = {(reader, url) for (reader, url), seen in after.items()
               if seen != before[reader, url]}
    assert {("anyone", f"/matches/{match.pk}/replay"), ("team B", f"/api/matches/{match.pk}"),
            ("judge", f"/matches/{match.pk}/scores.csv")} <= changed
