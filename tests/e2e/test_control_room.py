"""A judge in a real Chromium holds a match from the control room: the box turns to
paused, the venue screen says why (its socket told it), and Resume lets it go on; the
room's live part follows a team's first request without a reload."""

import json
import urllib.request

import pytest
from django.contrib.auth.models import Permission, User

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
    room = browser.new_page(viewport={"width": 1280, "height": 800})
    room.goto(f"{base}/accounts/login/")
    room.fill("input[name=username]", "judy")
    room.fill("input[name=password]", "pw")
    room.click("button[type=submit]")
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
