"""Handing in a program through the API (docs/api.md, docs/programs.md): a team's token
hands in a version of its team's program, a worker builds it, the team reads its build's
log; nobody else sees it, and what cannot be taken is refused in the API's JSON."""

import pytest
from django.test import Client

from matches.hosting import sandbox
from matches.models import ProgramVersion
from matches.services import programs
from tests.factories import make_match

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

GOOD = b"print('hello')\n"


def hand_in(client, token: str | None, body: bytes = GOOD, **query):
    query = {"game": "kakomimasu", "language": "python", "filename": "main.py", **query}
    path = "/api/programs?" + "&".join(f"{name}={value}" for name, value in query.items())
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post(path, data=body, content_type="application/octet-stream", **headers)


def test_a_team_hands_in_its_program_a_worker_builds_it_and_the_team_reads_its_log(client):
    match, tokens = make_match(teams=("Kosen Nara", "Hà Nội"))
    answer = hand_in(client, tokens[0])
    assert answer.status_code == 201, answer.content
    said = answer.json()
    assert (said["team"], said["version"], said["status"]) == ("Kosen Nara", 1, "building")
    # the worker's job (tasks.build), run here
    assert programs.program_build(ProgramVersion.objects.get().pk).status == "ready"
    shown = client.get(f"/api/programs/{said['program']}",
                       HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").json()
    assert shown["team"] == "Kosen Nara" and shown["versions"][0]["status"] == "ready"
    assert "$ python3 -m py_compile main.py" in shown["versions"][0]["build_log"]
    broken = hand_in(client, tokens[0], b"def (\n").json()
    assert broken["version"] == 2
    programs.program_build(ProgramVersion.objects.get(number=2).pk)
    versions = client.get(f"/api/programs/{said['program']}",
                          HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").json()["versions"]
    assert [version["status"] for version in versions] == ["failed", "ready"]
    assert "SyntaxError" in versions[0]["build_log"]


def test_nobody_else_reads_a_teams_program(judge_client):
    client = Client()  # (judge_client is the test's client, logged in)
    match, tokens = make_match(teams=("Kosen Nara", "Hà Nội"))
    program = hand_in(client, tokens[0]).json()["program"]
    other = client.get(f"/api/programs/{program}", HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    assert other.status_code == 404 and other.json()["error"] == "not_found"
    assert client.get(f"/api/programs/{program}").status_code == 401
    assert judge_client.get(f"/api/programs/{program}").json()["team"] == "Kosen Nara"


def test_what_cannot_be_taken_is_refused_in_the_apis_json(client, monkeypatch):
    match, tokens = make_match(teams=("Kosen Nara", "Hà Nội"))
    for answer, status, code in (
            (hand_in(client, None), 401, "unauthorized"),
            (hand_in(client, "not-a-token"), 401, "unauthorized"),
            (hand_in(client, tokens[0], language="cobol"), 400, "bad_language"),
            (hand_in(client, tokens[0], game="chess"), 400, "bad_game"),
            (hand_in(client, tokens[0], b""), 400, "bad_file"),
            (hand_in(client, tokens[0], b"x" * (programs.SOURCE_LIMIT + 1)), 413, "too_large")):
        assert (answer.status_code, answer.json()["error"]) == (status, code), answer.content
    monkeypatch.setattr(programs, "HAND_INS_AN_HOUR", 2)
    assert [hand_in(client, tokens[0]).status_code for _ in range(3)] == [201, 201, 429]
    assert not ProgramVersion.objects.filter(status="ready").exists()  # nothing was built here


def test_a_token_a_practice_match_gave_hands_in_nothing(client, settings):
    settings.PRACTICE = "open"
    started = client.post("/api/practice", data={"game": "kakomimasu", "opponent": "level-1"},
                          content_type="application/json").json()
    answer = hand_in(client, started["token"])
    assert answer.status_code == 401 and "plays that match only" in answer.json()["detail"]
