"""GET /api/matches/{id}/report: a team's report on its own match (the rehearsal check):
its requests with their answers and latencies, its invalid actions, the steps it
missed, the result; nothing of the other team's requests."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db


def send(client, match, token, body):
    return client.post(f"/api/matches/{match.pk}/actions", json.dumps(body),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def report(client, match, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.get(f"/api/matches/{match.pk}/report", **headers)


def test_a_team_reads_what_became_of_each_of_its_requests(client):
    match, tokens = make_match(strategy=60, turns=3)
    # turn 1: team A sends a refused request, then a good one with an invalid action
    assert send(client, match, tokens[0], {"actions": "nope"}).status_code == 400
    assert send(client, match, tokens[0], {"actions": [
        put(0, 1, 1), {"agent": 7, "type": "put", "x": 0, "y": 0}]}).status_code == 202
    assert send(client, match, tokens[1], {"actions": [put(0, 2, 2)]}).status_code == 202
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    # turn 2: team A sends nothing (a missed step); team B sends once more
    Match.objects.filter(pk=match.pk).update(
        start_at=timezone.now() - timedelta(seconds=match.period.total_seconds() + 1))
    match.refresh_from_db()
    turn_resolve(match_id=match.pk, number=2, now=match.deadline(2))

    answer = report(client, match, tokens[0])
    assert answer.status_code == 200
    got = answer.json()
    assert (got["match"], got["team"], got["name"]) == (match.pk, 0, "Alpha")
    first, second = got["turns"]
    assert [r["status"] for r in first["requests"]] == [400, 202]
    assert first["requests"][0]["error"] == "invalid_actions" and first["requests"][0]["detail"]
    assert first["requests"][1]["counted"] and first["requests"][1]["actions"] == 2
    assert first["requests"][1]["latency_ms"] >= 0
    assert first["invalid"] == [{"agent": 7, "reason": first["invalid"][0]["reason"]}]
    assert first["invalid"][0]["reason"]
    assert first["answered"] and not first["missed"]
    assert second["requests"] == [] and second["missed"]
    summary = got["summary"]
    assert summary["requests"] == 2 and summary["accepted"] == 1
    assert summary["refused"] == {"invalid_actions": 1}
    assert summary["invalid_actions"] == 1 and summary["steps_missed"] == 1
    assert summary["turns_resolved"] == 2 and summary["won"] is None
    assert set(summary["latency_ms"]) == {"p50", "p99", "max"}
    # a program's printed output (POST /output) is kept, and said as such: no request
    # that could play, nor "a protocol line" (CHaser's words)
    assert client.post(f"/api/matches/{match.pk}/output", "thinking...\nchose 3 moves",
                       content_type="text/plain",
                       HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").status_code == 200
    got = report(client, match, tokens[0]).json()
    assert got["summary"]["requests"] == 2 and got["summary"]["outputs"] == 1
    kinds = [request["kind"] for turn in got["turns"] for request in turn["requests"]] + \
        [request["kind"] for request in got["unresolved"]]
    assert kinds == ["actions", "actions", "output"]
    # team B's report holds its own request only
    other = report(client, match, tokens[1]).json()
    assert [len(t["requests"]) for t in other["turns"]] == [1, 0]
    assert other["summary"]["refused"] == {} and other["summary"]["invalid_actions"] == 0


def test_the_report_is_the_teams_alone(client):
    match, tokens = make_match()
    other, other_tokens = make_match(teams=("Gamma", "Delta"))
    assert report(client, match).status_code == 401
    assert report(client, match, "not-a-token").status_code == 401
    assert report(client, match, other_tokens[0]).status_code == 403
    missing = client.get("/api/matches/99999/report", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert missing.status_code == 404
