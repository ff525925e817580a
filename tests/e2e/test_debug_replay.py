"""A team reviews its private match in a real Chromium: it opens the match with its token
once, and its replay shows, at each turn, what its program said and its marks drawn over
the board; nothing of the other team's. A visitor of the public match sees none of it."""

import json

import pytest

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match

pytestmark = pytest.mark.e2e


@pytest.fixture
def reviewed(transactional_db, client):
    match, tokens = make_match(turns=2, teams=("Nara", "Hanoi"), public=False)
    for index, said, colour in ((0, "Nara: corner first", "red"), (1, "Hanoi: secret", "blue")):
        client.post(f"/api/matches/{match.pk}/actions", json.dumps({
            "actions": [], "debug": said,
            "marks": [{"cell": [1, 1], "color": colour, "label": "aim"},
                      {"line": [[0, 0], [2, 1]], "color": colour}]}),
            content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[index]}")
    for turn in (1, 2):
        turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    return match, tokens


def test_a_team_sees_its_own_debug_in_its_replay_and_a_visitor_none(
        reviewed, live_server_process, browser):
    match, tokens = reviewed
    base = live_server_process
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/matches/{match.pk}/replay?turn=1")
    page.click("text=Your team's own match?")  # the 404 page offers the team its way in
    page.fill("input[name=token]", tokens[0])
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/matches/{match.pk}/replay?turn=1")
    page.locator("[data-debug-text] pre").wait_for()
    assert "Nara: corner first" in page.inner_text("[data-debug-text]")
    assert "Hanoi" not in page.inner_text("[data-debug]")
    assert page.locator(".board svg.debug-marks rect").count() == 1
    assert page.locator(".board svg.debug-marks line").count() == 1
    assert page.locator(".board svg.debug-marks rect").get_attribute("stroke") == "red"
    page.keyboard.press("Home")  # turn 0: nothing said yet
    page.wait_for_function("() => !document.querySelector('.board svg.debug-marks')")
    assert "Nothing said this turn." in page.inner_text("[data-debug-text]")
    # a variation from turn 0: its turn 1 was never played, so the match's marks of
    # turn 1 are not drawn over it (they were)
    page.click("[data-whatif-open]")
    page.fill("[data-whatif-turns]", "1")
    page.click("[data-whatif] button[type=submit]")
    page.locator("[data-variation]").wait_for()
    page.wait_for_function("() => document.querySelector('[data-turn-field]').value === '1'")
    assert page.locator(".board svg.debug-marks").count() == 0
    assert "corner first" not in page.inner_text("[data-debug-text]")


@pytest.fixture
def published(reviewed):
    match, tokens = reviewed
    Match.objects.filter(pk=match.pk).update(published=True)
    return match, tokens


def test_a_visitor_of_the_published_match_sees_none_of_it(published, live_server_process,
                                                          browser):
    match, _ = published
    base = live_server_process
    visitor = browser.new_page(viewport={"width": 1280, "height": 800})
    visitor.goto(f"{base}/matches/{match.pk}/replay?turn=1")
    visitor.locator("[data-debug-token]").wait_for()  # the offer, not the output
    assert "secret" not in visitor.content() and "corner first" not in visitor.content()
    assert visitor.locator(".board svg.debug-marks").count() == 0
