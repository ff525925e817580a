"""The judges' audit: who may open it, what it shows, verify, offline entry, exports."""

import csv
import io
import json

import pytest
from django.contrib.auth.models import Permission, User

from matches.models import Match, Submission, Turn
from matches.services.transition import turn_resolve
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    """Turn 1 resolved (one accepted, one refused, one replaced submission); turn 2 open."""
    match, tokens = make_match(turns=3, strategy=3600)
    api = f"/api/matches/{match.pk}/actions"
    from django.test import Client

    team = Client(REMOTE_ADDR="10.0.0.7")
    for token, body in [(tokens[0], {"actions": [put(0, 0, 0)]}),
                        (tokens[0], {"actions": [put(0, 1, 1)]}),
                        (tokens[1], "{oops")]:
        team.post(api, data=body if isinstance(body, str) else json.dumps(body),
                  content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    turn_resolve(match_id=match.pk, number=1)
    # an hour on: turn 2's strategy step is open
    Match.objects.filter(pk=match.pk).update(start_at=match.start_at - match.period)
    match.refresh_from_db()
    return match, tokens


def audit_urls(match_id):
    return [f"/matches/{match_id}/audit", f"/matches/{match_id}/audit/submissions.csv",
            f"/matches/{match_id}/audit/submissions.json"]


def test_anonymous_visitors_are_sent_to_the_login_page(client, played):
    match, _ = played
    for url in audit_urls(match.pk):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/?next=")
    page = client.get(f"/accounts/login/?next=/matches/{match.pk}/audit")
    assert page.status_code == 200 and b"Judges' login" in page.content


def test_users_without_the_judge_permission_get_403(client, played):
    match, _ = played
    User.objects.create_user("fan", password="pw")
    client.login(username="fan", password="pw")
    for url in audit_urls(match.pk):
        assert client.get(url).status_code == 403
    response = client.post(f"/matches/{match.pk}/audit/enter",
                           {"team": 0, "actions": '{"actions": []}', "note": "x"})
    assert response.status_code == 403 and not Submission.objects.filter(entered_by="fan")


def test_the_audit_lists_every_submission_with_its_fate(judge_client, played):
    match, _ = played
    page = judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    first, second, refused = Submission.objects.filter(match=match).order_by("id")
    assert first.received_at.strftime("%H:%M:%S.%f")[:12] in page  # time with milliseconds
    assert "10.0.0.7" in page and "{oops" in page
    assert "400 malformed_json: the body is not valid JSON" in page
    assert page.count("✔ counted") == 1 and second.counted and not first.counted
    assert '<code class="said">agent 0 type put x 1 y 1</code> → <strong>ok</strong>' in page
    assert "Offline entry for turn 2" in page


def test_verify_on_a_consistent_and_on_a_corrupted_match(judge_client, played):
    match, _ = played
    page = judge_client.get(f"/matches/{match.pk}/audit?verify=1").content.decode()
    assert "Verified: the 1 stored turns equal the replay" in page
    Turn.objects.filter(match=match, number=1).update(cells=["A....", ".....", ".....", "....."])
    page = judge_client.get(f"/matches/{match.pk}/audit?verify=1").content.decode()
    assert "Differs: turn 1: cell (0, 0) expected &#x27;.&#x27;, computed &#x27;A&#x27;" in page


def test_a_judge_enters_a_teams_actions_offline_and_they_count(judge_client, played):
    match, _ = played
    response = judge_client.post(f"/matches/{match.pk}/audit/enter", {
        "team": 1, "actions": json.dumps({"actions": [put(0, 3, 3)]}),
        "note": "team B's router died; actions read out by their captain"})
    assert response.status_code == 302
    entry = Submission.objects.get(entered_by="judy")
    assert (entry.turn, entry.team.index, entry.status_code) == (2, 1, 202)
    assert entry.note.startswith("team B's router died")
    row = turn_resolve(match_id=match.pk, number=2)
    assert row.agents[1][0] == [3, 3] and Submission.objects.get(pk=entry.pk).counted
    page = judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    assert ('<strong translate="no">judy</strong>: <span translate="no">team B&#x27;s router '
            "died; actions read out by their captain</span>") in page


def test_an_offline_entry_needs_a_note_and_a_refusal_is_logged(judge_client, played):
    match, _ = played
    response = judge_client.post(f"/matches/{match.pk}/audit/enter", {
        "team": 0, "actions": '{"actions": []}', "note": "  "}, follow=True)
    assert "Refused (400 note_required)" in response.content.decode()
    refused = Submission.objects.get(entered_by="judy")
    assert refused.status_code == 400 and not refused.counted


def test_the_submission_log_exports_as_csv_and_json(judge_client, played):
    match, _ = played
    data = judge_client.get(f"/matches/{match.pk}/audit/submissions.json").json()
    rows = data["submissions"]
    assert [r["status_code"] for r in rows] == [202, 202, 400]
    assert [r["counted"] for r in rows] == [False, True, False]
    assert rows[2]["body"] == "{oops" and rows[0]["remote_addr"] == "10.0.0.7"
    response = judge_client.get(f"/matches/{match.pk}/audit/submissions.csv")
    assert response["Content-Disposition"].endswith(f'match-{match.pk}-submissions.csv"')
    table = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [row["body"] for row in table] == [r["body"] for r in rows]
    assert table[1]["counted"] == "True" and table[2]["error"] == "malformed_json"


def test_a_judge_publishes_a_finished_match_and_only_a_finished_one(judge_client, played, client):
    match, _ = played
    url = f"/matches/{match.pk}/audit/publish"
    page = judge_client.post(url, {"published": "1"}, follow=True).content.decode()
    assert "Only a finished match can be published." in page
    assert not Match.objects.get(pk=match.pk).published
    Match.objects.filter(pk=match.pk).update(ended_early=True)
    page = judge_client.post(url, {"published": "1"}, follow=True).content.decode()
    assert "Published: everyone may see it" in page and Match.objects.get(pk=match.pk).published
    from django.test import Client

    assert Client().get(f"/api/matches/{match.pk}/record").status_code == 200
    judge_client.post(url, {"published": "0"})
    assert Client().get(f"/api/matches/{match.pk}/record").status_code == 404


def test_the_audit_forms_are_csrf_protected(played):
    from django.test import Client

    match, _ = played
    user = User.objects.create_user("jo", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    strict = Client(enforce_csrf_checks=True)
    strict.login(username="jo", password="pw")
    response = strict.post(f"/matches/{match.pk}/audit/enter",
                           {"team": 0, "actions": '{"actions": []}', "note": "n"})
    assert response.status_code == 403 and not Submission.objects.filter(entered_by="jo")


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_csv_cells_that_would_be_formulas_are_quoted(judge_client, played, start):
    match, tokens = played
    from django.test import Client

    formula = f'{start}HYPERLINK("http://evil.example/","x")'
    Client().post(f"/api/matches/{match.pk}/actions", data=formula, content_type="text/plain",
                  HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    judge_client.post(f"/matches/{match.pk}/audit/enter",
                      {"team": 1, "actions": '{"actions": []}', "note": f"{start}SUM(1,2)"})
    response = judge_client.get(f"/matches/{match.pk}/audit/submissions.csv")
    table = list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))
    assert table[3]["body"] == "'" + formula and table[4]["note"] == f"'{start}SUM(1,2)"
    assert table[0]["body"].startswith('{"actions"') and table[3]["status_code"] == "400"
    assert table[3]["body_size"] == str(len(formula))  # numbers are written as numbers
    data = judge_client.get(f"/matches/{match.pk}/audit/submissions.json").json()
    assert data["submissions"][3]["body"] == formula  # the JSON export keeps it as sent
