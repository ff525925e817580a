"""The venue screen follows a CHaser game step by step as the demo's programs play it
over TCP: the last step in words with its side's name, the cells a look or a search
read tinted, the turn counting up."""

import re
import time

import pytest

from matches.models import Match
from tests.e2e.conftest import free_port, wait_for_port

pytestmark = [pytest.mark.e2e, pytest.mark.live_stack]
STEP = re.compile(r"^(Collector|Hunter) · [wlsp][udlr] · (walk|look|search|put) "
                  r"(up|down|left|right)$")


def test_the_venue_shows_each_step_of_a_chaser_game(spawn, tmp_path, request):
    port = free_port()
    spawn("demo", "--port", str(port), log_to=tmp_path / "demo.log")
    wait_for_port(port)
    deadline, match = time.monotonic() + 30, None
    while match is None and time.monotonic() < deadline:
        match = Match.objects.filter(game="chaser").first()
        time.sleep(0.2)
    assert match, (tmp_path / "demo.log").read_text()[-2000:]
    browser = request.getfixturevalue("browser")  # after the database: Playwright's loop
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"http://127.0.0.1:{port}/matches/{match.pk}/")
    countdown = page.locator("[data-countdown]")
    page.wait_for_function("document.querySelector('[data-countdown]').dataset.kind === 'step'",
                           timeout=15_000)
    # 0.3 s a step. The programs search when their plans say so (the Hunter every third
    # step unless it is chasing, the Collector every sixth unless an item is beside it),
    # so a few seconds may pass without one: watch until a read has been seen, up to
    # twenty seconds (some sixty steps).
    seen, reads, steps = set(), 0, []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        seen.add(countdown.inner_text())
        reads = max(reads, page.locator(".board .trace.read").count())
        steps = [text for text in seen if STEP.match(text)]
        if reads and len(steps) >= 3 and {text.split(" · ")[0] for text in steps} == {
                "Collector", "Hunter"}:
            break
        page.wait_for_timeout(100)
    assert len(steps) >= 3, seen
    assert {text.split(" · ")[0] for text in steps} == {"Collector", "Hunter"}
    # a look or a search reads nine cells (some may be off the map): a step shows one
    # player's, a turn both players'
    assert 1 <= reads <= 18, reads
    # the first game of a best of three, no game won yet
    assert page.locator("[data-title]").inner_text().endswith("on akisato_m01 · game 1 of 3")
    turn = page.locator("[data-turn]").inner_text()
    assert re.fullmatch(r"\d+ / 100", turn) and int(turn.split(" / ")[0]) >= 2
    page.close()
