"""More than 20 requests from one token within a second: 429, stored and logged.

The clock fixture holds the time both answer paths stamp requests with, so every
window here is exact; the last test sends real requests to two server processes.
"""

import json
import logging
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib import request as urllib_request
from urllib.error import HTTPError

import pytest
from django.utils import timezone

from matches.models import RequestTally, Submission, Team
from matches.services.submissions import (
    RATE_LIMIT,
    RATE_WINDOW,
    STORED_A_MINUTE,
    Request,
    submission_enter,
    submission_receive,
)
from matches.services.transition import turn_resolve
from tests.api.test_submissions import ACTIONS, assert_error, post
from tests.factories import make_match, put


def burst(api, clock, match, token, count, spacing=0.0, body=ACTIONS):
    """`count` requests, `spacing` seconds apart; their status codes."""
    codes = []
    for _ in range(count):
        codes.append(post(api, match.pk, body, token).status_code)
        clock.advance(spacing)
    return codes


def test_twenty_in_a_second_are_accepted_the_21st_is_429_stored_and_logged(api, clock, caplog):
    match, tokens = make_match()
    assert burst(api, clock, match, tokens[0], 20, spacing=0.045) == [202] * 20
    late = {"actions": [put(0, 5, 4)]}
    with caplog.at_level(logging.WARNING, logger="matches.services.submissions"):
        refused = post(api, match.pk, late, tokens[0])  # 0.9 s after the first
    assert_error(refused, 429, "rate_limited", "21 requests within a second")
    assert refused.headers["retry-after"] == "1"
    stored = Submission.objects.latest("id")
    assert (stored.team.index, stored.turn, stored.status_code, stored.error) == (
        0, 1, 429, "rate_limited")
    assert json.loads(bytes(stored.body)) == late
    assert Submission.objects.filter(match=match).count() == 21
    [record] = [r for r in caplog.records if r.name == "matches.services.submissions"]
    assert record.levelno == logging.WARNING
    assert f"match {match.pk}, team Alpha (A): 21 requests" in record.getMessage()
    turn_resolve(match_id=match.pk, number=1)  # the refused request changed nothing
    assert Submission.objects.get(counted=True).actions == ACTIONS["actions"]


def test_after_the_window_the_team_is_answered_again(api, clock):
    match, tokens = make_match()
    assert burst(api, clock, match, tokens[0], 21) == [202] * 20 + [429]
    clock.advance(0.999)
    assert post(api, match.pk, ACTIONS, tokens[0]).status_code == 429
    clock.advance(0.001)  # the first 21 are a second old: one refused request is left
    assert post(api, match.pk, ACTIONS, tokens[0]).status_code == 202


def test_429s_count_so_a_flood_is_refused_while_it_lasts_and_a_second_more(api, clock):
    match, tokens = make_match()
    clock.to_next_minute()
    codes = burst(api, clock, match, tokens[0], 120, spacing=0.025)  # 40 a second for 3 s
    assert codes == [202] * 20 + [429] * 100  # the refused ones keep the window full
    clock.advance(0.3 - 0.025)  # 0.3 s after the flood's last request
    assert post(api, match.pk, ACTIONS, tokens[0]).status_code == 429
    clock.advance(1.0)  # a second after the last refused request
    assert post(api, match.pk, ACTIONS, tokens[0]).status_code == 202
    # the 20 taken and the next one, the first few 429s of the minute one by one, the
    # rest counted in one row
    assert Submission.objects.filter(match=match).count() == 21 + STORED_A_MINUTE
    assert RequestTally.objects.get(team__match=match).count == 101


def test_another_team_of_the_same_match_is_unaffected(api, clock):
    match, tokens = make_match()
    assert burst(api, clock, match, tokens[0], 30) == [202] * 20 + [429] * 10
    assert burst(api, clock, match, tokens[1], 20) == [202] * 20
    # started a second before the held time (however long the bursts took in real time)
    other, other_tokens = make_match(teams=("Gamma", "Delta"), now=clock.now())
    assert burst(api, clock, other, other_tokens[0], 20) == [202] * 20


def test_every_kind_of_request_counts_toward_the_limit(api, clock):
    match, tokens = make_match()
    kinds = [ACTIONS, b"{", b'{"actions": 3}', b"x" * 70_000]
    codes = [post(api, match.pk, kinds[i % 4], tokens[0], raw=i % 4 > 0).status_code
             for i in range(20)]
    assert sorted(set(codes)) == [202, 400, 413]
    assert_error(post(api, match.pk, b"{", tokens[0], raw=True), 429, "rate_limited")


@pytest.mark.django_db
def test_judges_offline_entries_are_not_limited_and_do_not_count():
    match, tokens = make_match()
    team = Team.objects.get(match=match, index=0)
    now = timezone.now()
    body = json.dumps(ACTIONS).encode()
    replies = [submission_enter(team, body, "judy", "the team's network is down", now)
               for _ in range(RATE_LIMIT + 5)]
    assert {reply.status for reply in replies} == {202}
    reply = submission_receive(Request(match.pk, f"Bearer {tokens[0]}", body, len(body),
                                       "application/json", "127.0.0.1", now))
    assert reply.status == 202


# --- several server processes ------------------------------------------------------------


def send(url: str, token: str) -> int:
    data = json.dumps(ACTIONS).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        with urllib_request.urlopen(urllib_request.Request(url, data, headers), timeout=30) as r:
            return r.status
    except HTTPError as error:
        return error.code


@pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                    reason="the windows are shared by server processes through Redis")
def test_the_limit_holds_across_server_processes(spawn, tmp_path):
    """Two server processes on one database and one Redis, one token's requests sent to
    both at once: whatever the timing, each request was refused exactly when the
    requests stored before it held RATE_LIMIT others in its second. (25 requests: the
    refused ones are few enough to be stored one by one, none only counted.)"""
    from tests.e2e.conftest import free_port, wait_for_port

    match, tokens = make_match()
    ports = [free_port(), free_port()]
    for port in ports:
        spawn("runserver", "--noreload", f"127.0.0.1:{port}", log_to=tmp_path / f"{port}.log")
    for port in ports:
        wait_for_port(port)
    urls = [f"http://127.0.0.1:{port}/api/matches/{match.pk}/actions" for port in ports]
    sent = RATE_LIMIT + STORED_A_MINUTE
    with ThreadPoolExecutor(max_workers=16) as pool:
        codes = list(pool.map(send, [urls[i % 2] for i in range(sent)], [tokens[0]] * sent))
    assert set(codes) <= {202, 429} and codes.count(202) >= RATE_LIMIT
    stored = list(Submission.objects.filter(match=match).order_by("id"))
    assert len(stored) == sent and sorted(codes) == sorted(s.status_code for s in stored)
    for index, submission in enumerate(stored):
        window = [s for s in stored[:index] if submission.received_at - RATE_WINDOW
                  < s.received_at <= submission.received_at]
        assert (submission.status_code == 429) == (len(window) >= RATE_LIMIT), index


def test_without_an_answering_redis_the_limit_is_counted_in_this_process(api, clock, settings):
    """A Redis that does not answer (here: nothing listens on its port) costs a warning,
    not the answer API: this process counts the windows."""
    from matches.services.submissions import limits

    settings.REDIS_URL = "redis://127.0.0.1:9/0"
    limits._redis.cache_clear()
    try:
        match, tokens = make_match()
        assert burst(api, clock, match, tokens[0], 21, spacing=0.01) == [202] * 20 + [429]
    finally:
        limits._redis.cache_clear()


def test_without_redis_an_answers_rate_window_loads_no_redis_client():
    """The embedded default counts its windows in the process: its first answer does not
    load redis-py (a quarter of a second, which that answer spent holding SQLite's
    lock). In a process of its own, where nothing else has loaded it yet."""
    checked = subprocess.run(
        [sys.executable, "-c", "\n".join([
            "import sys, django",
            "django.setup()",
            "from django.utils import timezone",
            "from matches.services.submissions import limits",
            "assert 'redis' not in sys.modules",
            "limits._window_count('token:x', timezone.now())",
            "print('redis' in sys.modules)"])],
        env={**os.environ, "REDIS_URL": "", "CHANNEL_REDIS_URLS": "",
             "DJANGO_SETTINGS_MODULE": "spectator.settings"},
        capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr[-2000:]
    assert checked.stdout.strip() == "False"
