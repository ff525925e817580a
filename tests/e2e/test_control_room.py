"""A judge in a real Chromium holds a match from the control room: the box turns to
paused, the venue screen says why (its socket told it), and Resume lets it go on; the
room's live part follows a team's first request without a reload."""

import json
import urllib.request

import pytest
from django.contrib.auth.models import Permission, User

from tests.e2e.conftest import judge_signed_in
from tests.factories import make_match

pytestmark = pytest.mark.e2e


@pytest.fixture
def running(transactional_db):
    match, tokens = make_match(turns=10, strategy=3600, teams=("Nara", "Hanoi"))
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    return match, tokens


def test_a_judge_pauses_and_resumes_a_match_the_venue_screen_follows(
        running, live_server_process, browser):
    match, tokens = running
    base = live_server_process
    room = judge_signed_in(browser, base)
    room.goto(f"{base}/control/")
    box = room.locator(f"#match-{match.pk}")
    assert box.get_attribute("data-status") == "running"
    assert "nothing heard yet" in box.locator("li").first.inner_text()
    request = urllib.request.Request(
        f"{base}/api/matches/{match.pk}/actions", method="POST",
        data=json.dumps({"actions": []}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {tokens[0]}"})
    urllib.request.urlopen(request, timeout=5).close()
    room.wait_for_function(  # the live part reloads by itself
        f"() => document.querySelector('#match-{match.pk} li').textContent"
        ".includes('last request')", timeout=10_000)
    venue = browser.new_page(viewport={"width": 1280, "height": 800})
    venue.goto(f"{base}/matches/{match.pk}/")
    venue.wait_for_selector("[data-countdown][data-kind='live']", timeout=10_000)
    box.locator("input[name=reason]").first.fill("Nara's router restarts")
    box.locator("button", has_text="Pause").click()
    room.wait_for_selector(f"#match-{match.pk}[data-status='paused']")
    assert f"Match {match.pk} is paused." in room.inner_text("main")
    venue.wait_for_selector("[data-countdown][data-kind='paused']", timeout=10_000)
    assert "Paused by the judges: Nara's router restarts" in \
        venue.inner_text("[data-countdown]")
    front = browser.new_page(viewport={"width": 1280, "height": 800})
    front.goto(f"{base}/")  # the list says it is held, and counts no time down
    front.wait_for_function("() => document.body.innerText.includes('paused · turn 0 / 10')",
                            timeout=10_000)
    room.locator(f"#match-{match.pk} button", has_text="Resume").click()
    room.wait_for_selector(f"#match-{match.pk}[data-status='running']")
    venue.wait_for_selector("[data-countdown][data-kind='live']", timeout=10_000)


def test_an_announcement_is_a_banner_on_the_screens_until_a_judge_takes_it_down(
        running, live_server_process, browser):
    match, tokens = running
    base = live_server_process
    room = judge_signed_in(browser, base)
    venue = browser.new_page(viewport={"width": 1920, "height": 1080})
    venue.goto(f"{base}/matches/{match.pk}/")
    venue.wait_for_selector("[data-countdown][data-kind='live']", timeout=10_000)
    assert venue.locator("#notice-banner").count() == 0
    board_before = venue.locator(".board").bounding_box()
    room.goto(f"{base}/control/")
    room.locator("details#notices summary").click()
    room.fill("details#notices textarea[name=text]", "Round 2 starts at 14:10")
    room.locator("details#notices button[type=submit]").click()
    assert "Announced to everyone" in room.inner_text("main")
    banner = venue.locator("#notice-banner")
    banner.wait_for(timeout=10_000)  # told by the socket, no reload
    assert "Round 2 starts at 14:10" in banner.inner_text()
    venue.wait_for_function("() => document.querySelector('.board').getBoundingClientRect()"
                            ".bottom <= document.getElementById('notice-banner')"
                            ".getBoundingClientRect().top")  # the board gives up room
    assert venue.locator(".board").bounding_box()["height"] < board_before["height"]
    wall = browser.new_page(viewport={"width": 1280, "height": 800})
    wall.goto(f"{base}/screens/?matches={match.pk}")  # a screen opened later: the snapshot
    wall.locator("#notice-banner").wait_for(timeout=10_000)
    assert wall.locator("#notice-banner").count() == 1
    room.locator("#notices-live form", has_text="take down").locator("button").click()
    banner.wait_for(state="detached", timeout=10_000)
    wall.locator("#notice-banner").wait_for(state="detached", timeout=10_000)
