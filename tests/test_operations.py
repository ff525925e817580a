"""GET /healthz and GET /metrics (matches/views/operations.py, matches/metrics.py): what
the venue's monitor and nginx read."""

import time

import pytest
from django.core.cache import cache

from matches.services import clock
from matches.services.clock import CLOCK_TICKED_KEY, heartbeat, tick_and_wait
from matches.views import operations

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    operations.HEALTH.expire()
    cache.delete(CLOCK_TICKED_KEY)
    # a clock writes its heartbeat at most once a HEARTBEAT_SECONDS: an earlier test's
    # tick in this process must not keep this one's from being written
    clock.HEARTBEAT.reset()
    yield
    operations.HEALTH.expire()


def test_healthz_is_ok_once_a_clock_ticks_and_says_what_fails_otherwise(client):
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer["Cache-Control"] == "no-store"
    checks = answer.json()["checks"]
    assert checks["database"]["ok"] and checks["channel_layer"]["ok"]
    assert checks["clock"] == {"ok": False, "error": "no clock has ticked: is runclock running?"}
    tick_and_wait()  # a clock's tick leaves its heartbeat on the shared cache
    operations.HEALTH.expire()
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok", answer.json()
    assert 0 <= answer.json()["checks"]["clock"]["last_tick_seconds_ago"] < 2
    cache.set(CLOCK_TICKED_KEY, time.time() - 60)  # a clock gone quiet a minute ago
    operations.HEALTH.expire()
    assert client.get("/healthz").json()["checks"]["clock"]["ok"] is False


def test_healthz_works_its_answer_out_once_a_second_however_often_it_is_asked(client):
    heartbeat()
    first = client.get("/healthz").json()
    cache.delete(CLOCK_TICKED_KEY)  # the clock's heartbeat gone: not seen within the second
    for _ in range(20):
        assert client.get("/healthz").json() == first
    operations.HEALTH.expire()  # a second later
    assert client.get("/healthz").status_code == 503


def counted(text: str, name: str, **labels) -> float:
    """A sample's value in the exposition, 0 if absent."""
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{{wanted}}}" if labels else f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_turns_and_answers_for_this_machine_only(client):
    """This process's own numbers move exactly (other test processes share the folder,
    and /metrics sums them all: at least as much as this one's)."""
    import json
    from datetime import timedelta

    from prometheus_client import REGISTRY

    from matches.services.transition import turn_resolve
    from tests.factories import make_match

    def own(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0.0

    late = {"game": "kakomimasu"}
    before = {"turns": own("spectator_turns_resolved_total", **late),
              "answers": own("spectator_answer_seconds_count", team="Metrics A"),
              "within": own("spectator_turn_lateness_seconds_bucket", le="0.25", **late),
              "half": own("spectator_turn_lateness_seconds_bucket", le="0.5", **late)}
    match, tokens = make_match(turns=2, strategy=2.0, teams=("Metrics A", "Metrics B"))
    sent = client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert sent.status_code == 202
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1) + timedelta(seconds=0.3))
    assert own("spectator_turns_resolved_total", **late) == before["turns"] + 1
    assert own("spectator_answer_seconds_count", team="Metrics A") == before["answers"] + 1
    assert own("spectator_turn_lateness_seconds_bucket", le="0.25", **late) == before["within"]
    assert own("spectator_turn_lateness_seconds_bucket", le="0.5", **late) == before["half"] + 1
    answer = client.get("/metrics", REMOTE_ADDR="127.0.0.1")
    assert answer["Content-Type"].startswith("text/plain")
    text = answer.content.decode()
    assert counted(text, "spectator_answer_seconds_count", team="Metrics A") >= 1
    assert counted(text, "spectator_turns_resolved_total", game="kakomimasu") >= \
        own("spectator_turns_resolved_total", **late)
    stranger = client.get("/metrics", REMOTE_ADDR="203.0.113.9")
    assert stranger.status_code == 404


def test_each_request_is_counted_by_kind_once_answered():
    from matches.metrics import request_kind

    assert [request_kind(path) for path in (
        "/api/matches/3/actions", "/api/matches/3", "/v1/matches", "/procon31/teams/me",
        "/procon2020/matches", "/static/matches/app.css", "/healthz", "/matches/3/replay",
        "/")] == ["answer", "api", "dialect", "dialect", "dialect", "static", "operations",
                  "page", "page"]  # (the Vietnamese dialect was counted as a page)


def test_the_demo_forgets_only_the_numbers_of_processes_that_have_ended(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    from matches import metrics

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for name in (f"counter_{ended}.db", f"counter_{os.getpid()}.db", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    metrics.dead_forgotten()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"counter_{os.getpid()}.db", "notes.txt"]
