"""A real Chromium watches a short live match on the venue screen."""

import contextlib
import json
import re
import threading
import time
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.e2e.conftest import in_a_thread
from tests.factories import make_match, put

pytestmark = [pytest.mark.e2e, pytest.mark.live_stack]


@contextlib.contextmanager
def team_a_playing(base: str, match_id: int, token: str):
    """Team A plays the match (`play_team_a`) on a thread of its own while the block runs."""
    stop = threading.Event()
    player = threading.Thread(target=play_team_a, args=(base, match_id, token, stop))
    player.start()
    try:
        yield
    finally:
        stop.set()
        player.join(timeout=10)


def play_team_a(base: str, match_id: int, token: str, stop: threading.Event) -> None:
    """Team A places its agents in turn 1, then moves one of them right each turn."""
    played = set()
    auth = {"Authorization": f"Bearer {token}"}  # a team reads its match even once it ends
    while not stop.is_set():
        reading = urllib.request.Request(f"{base}/api/matches/{match_id}", headers=auth)
        with urllib.request.urlopen(reading) as response:
            state = json.loads(response.read())
        turn = state["strategy_turn"]
        if state["status"] == "finished":
            return
        if turn and turn not in played and state["turn"] == turn - 1:
            x = turn  # the first agent walks along row 0
            actions = [put(0, 0, 0), put(1, 5, 4)] if turn == 1 else [
                {"agent": 0, "type": "move", "x": min(x - 1, 5), "y": 0}]
            request = urllib.request.Request(
                f"{base}/api/matches/{match_id}/actions", method="POST",
                data=json.dumps({"actions": actions}).encode(),
                headers={**auth, "Content-Type": "application/json"})
            urllib.request.urlopen(request).close()
            played.add(turn)
        time.sleep(0.05)


def start_moved(match_id: int, start) -> None:
    from matches.models import Match
    from matches.services.clock import clock_wake

    Match.objects.filter(pk=match_id).update(start_at=start)
    clock_wake()  # (outside a transaction: at once)


@pytest.fixture
def short_match(transactional_db):
    """Made before the browser starts: Playwright's loop forbids database calls after."""
    # time to load its page (the test then brings the start forward)
    return make_match(strategy=1.0, transition=0.3, start_in=30, turns=6)


def test_the_page_follows_turns_and_scores(live_server_process, short_match, browser):
    match, tokens = short_match
    stop = threading.Event()
    player = threading.Thread(target=play_team_a,
                              args=(live_server_process, match.pk, tokens[0], stop))
    player.start()
    try:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.clock.install()  # (it runs as the real one until moved)
        page.goto(f"{live_server_process}/matches/{match.pk}/")
        page.wait_for_selector(".board .cell")
        assert page.locator(".board .cell").count() == 30
        assert page.inner_text("[data-turn]").strip() == "0 / 6"
        assert page.inner_text("[data-status]") == "upcoming"
        # The start, half a minute away, is brought forward to 2 s from now: the server's
        # (moved in the database, its clock woken) and the page's (its clock moved on by
        # as much)
        start = timezone.now() + timedelta(seconds=2)
        in_a_thread(lambda: start_moved(match.pk, start))
        page.clock.fast_forward(round((match.start_at - start).total_seconds() * 1000))
        assert re.fullmatch(r"0:0\d|\d\.\d s", page.inner_text("[data-starts-in]"))
        page.wait_for_function(
            "document.querySelector('[data-turn]').textContent.startsWith('1 ')", timeout=15000)
        total_a = int(page.inner_text('[data-team="0"] .total'))
        assert total_a > 0 and page.locator(".board .agent.team-a").count() == 2
        assert page.inner_text("[data-status]") == "live"
        page.wait_for_function(
            "document.querySelector('[data-turn]').textContent.startsWith('3 ')", timeout=15000)
        assert int(page.inner_text('[data-team="0"] .total')) != total_a
        assert page.locator(".board .cell.wall-a").count() >= 4
        page.wait_for_function(
            "document.querySelector('[data-status]').textContent.startsWith('finished')",
            timeout=20000)
        assert page.inner_text("[data-turn]").strip() == "6 / 6"
        assert re.fullmatch(r"Alpha wins by \d+ points?", page.inner_text("[data-result] .verdict"))
        # Between rounds the venue reloads its screens: public live, it stays public.
        assert page.reload().status == 200
        page.wait_for_function(
            "document.querySelector('[data-status]').textContent.startsWith('finished')",
            timeout=15000)
        assert page.inner_text("[data-turn]").strip() == "6 / 6"
    finally:
        stop.set()
        player.join(timeout=10)
