"""What if in a real Chromium: from a turn of the replay, team A's built-in player plays
on while team B plays as it did; the replay shows the variation in place of the match,
its link opens it again, and "Back to the match" puts the match back."""

import json

import pytest

from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.api.test_whatif import vectors

pytestmark = pytest.mark.e2e


@pytest.fixture
def finished(transactional_db):
    _, record, timeline = vectors("kakomimasu", 1)[0]
    return match_import(parse_record(record), published=True), timeline


def test_a_variation_is_shown_linked_and_left(finished, live_server_process, browser):
    match, timeline = finished
    base = live_server_process
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/matches/{match.pk}/replay?turn=2")
    page.click("[data-whatif-open]")
    assert "From turn 2" in page.inner_text("[data-whatif-from]")
    page.select_option("[data-whatif-choice='0']", "level-2")
    page.fill("[data-whatif-turns]", "3")
    page.click("[data-whatif] button[type=submit]")
    page.locator("[data-variation]").wait_for()
    assert "What if, from turn 2: 3 turns not played" in page.inner_text("[data-variation]")
    assert "in-variation" in page.get_attribute("#replay", "class")
    assert page.input_value("[data-turn-field]") == "3"
    link = page.get_attribute("[data-variation-link]", "href")
    assert "whatif=" in link

    other = browser.new_page(viewport={"width": 1280, "height": 800})
    other.goto(link)  # a teammate opens the link: the same variation
    other.locator("[data-variation]").wait_for()
    assert other.inner_text("[data-variation-words]") == page.inner_text("[data-variation-words]")

    page.click("[data-variation-back]")
    page.wait_for_function(
        "() => !document.querySelector('#replay').classList.contains('in-variation')")
    assert "whatif=" not in page.url
    page.keyboard.press("End")  # the match's own turns are back
    assert page.input_value("[data-turn-field]") == str(len(timeline["states"]) - 1)


def test_share_offers_the_turns_link_its_code_and_a_clip(finished, live_server_process,
                                                         browser):
    match, _ = finished
    base = live_server_process
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/matches/{match.pk}/replay?turn=5")
    page.click("[data-share-open]")
    assert page.input_value("[data-share-link]").endswith(f"/matches/{match.pk}/replay?turn=5")
    page.wait_for_function("() => document.querySelector('[data-share-code]').naturalWidth > 0")
    assert page.input_value("[data-share-from]") == "0"
    assert page.input_value("[data-share-to]") == "5"
    clip = page.get_attribute("[data-share-gif]", "href")
    assert "from=0" in clip and "to=5" in clip and "lang=en" in clip
    answer = page.request.get(base + clip)
    assert answer.status == 200 and answer.headers["content-type"] == "image/gif"
    assert answer.body()[:6] == b"GIF89a"


@pytest.fixture
def spread(transactional_db):
    """A Kakomimasu match whose agents have room to move at turn 2 (random24_s42_0)."""
    _, record, timeline = vectors("kakomimasu", 2)[0]
    return match_import(parse_record(record), published=True), timeline


def test_a_teams_next_actions_are_set_by_clicking_its_agent_and_its_target(
        spread, live_server_process, browser):
    match, timeline = spread
    state = timeline["states"][2]
    agent = next(index for index, at in enumerate(state["agents"][0]) if at)
    (x, y), width, height = state["agents"][0][agent], len(state["cells"][0]), len(state["cells"])
    taken = {tuple(at) for team in state["agents"] for at in team if at}
    tx, ty = next((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                  if 0 <= x + dx < width and 0 <= y + dy < height and (dx, dy) != (0, 0)
                  and (x + dx, y + dy) not in taken)  # a free neighbour of the agent
    kind = "remove" if state["cells"][ty][tx] == "B" else "move"
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server_process}/matches/{match.pk}/replay?turn=2")
    page.click("[data-whatif-open]")
    page.click("[data-whatif-pick='0']")
    assert page.get_attribute("[data-whatif-pick='0']", "aria-pressed") == "true"
    page.click(f".board .cell[data-x='{x}'][data-y='{y}']")  # the agent ...
    page.click(f".board .cell[data-x='{tx}'][data-y='{ty}']")  # ... and its target
    # the agents not set do what they did in the match's turn 3, not nothing
    played = [{key: value for key, value in outcome.items() if key not in ("result", "reason")}
              for outcome in timeline["states"][3]["outcomes"][0] if outcome["agent"] != agent]
    assert played  # (the team has other agents, which acted)
    assert json.loads(page.input_value("[data-whatif-actions='0']")) == sorted(
        [{"agent": agent, "type": kind, "x": tx, "y": ty}, *played],
        key=lambda action: action["agent"])
    assert page.inner_text(f".board .cell[data-x='{tx}'][data-y='{ty}'] .plan") \
        .startswith(str(agent))
    page.fill("[data-whatif-turns]", "1")
    page.click("[data-whatif] button[type=submit]")
    page.locator("[data-variation]").wait_for()
    assert "What if, from turn 2" in page.inner_text("[data-variation]")
    assert page.locator(".board .plan").count() == 0  # the variation shows no plans
    if kind == "move":  # the agent went there in the variation's turn 3
        assert page.locator(f".board .cell[data-x='{tx}'][data-y='{ty}'] .agent").count() == 1
