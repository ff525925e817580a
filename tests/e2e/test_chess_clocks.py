"""A real Chromium watches a game played in alternating turns on chess clocks: each
team's clock on its card (the mover's running down, the other's still), whose move it is
instead of the turn's countdown, a loss on time at the end; a simultaneous game's screen
keeps its countdown and shows no clock."""

import json
import re
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from tests.e2e.conftest import in_a_thread
from tests.factories import make_alternating_match, make_match

pytestmark = pytest.mark.e2e
CLOCK = re.compile(r"\d+:\d\d")


@pytest.fixture
def matches(transactional_db):
    """Made before the browser starts: Playwright's loop forbids database calls after."""
    live, tokens = make_alternating_match(clock=90)
    # Alpha's 4 seconds run out after the start, which the test brings forward once its
    # page has opened: Beta wins on time.
    timed_out, _ = make_alternating_match(clock=4, start_in=30, teams=("Alpha", "Beta"))
    # Already out of time: the server's clock ends it at its first tick.
    lost, _ = make_alternating_match(clock=1, start_in=-2, teams=("Alpha", "Beta"))
    simultaneous, _ = make_match()  # turn 1's strategy step is open for an hour
    return {"live": live.pk, "token": tokens[0], "timed_out": timed_out.pk,
            "timed_out_start": timed_out.start_at, "lost": lost.pk,
            "simultaneous": simultaneous.pk}


@pytest.fixture
def open_page(matches, live_server_process, browser):
    pages, errors = [], []

    def open_at(path, size=(1920, 1080), fake_clock=False):
        """`fake_clock`: the page's timers on Playwright's clock, which the test moves."""
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.on("pageerror", lambda error: errors.append(str(error)))
        if fake_clock:
            page.clock.install()  # (it runs as the real one until moved)
        page.goto(f"{live_server_process}{path}")
        page.wait_for_selector(".board .cell")
        page.wait_for_function("[...document.querySelectorAll('[data-status]')]"
                               ".every((badge) => badge.dataset.kind !== 'connecting')")
        pages.append(page)
        return page

    yield open_at
    for page in pages:
        page.close()
    assert errors == []


def send_move(base, match_id, token, move, turn):
    request = urllib.request.Request(
        f"{base}/api/matches/{match_id}/actions", method="POST",
        data=json.dumps({"actions": [{"move": move}], "turn": turn}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 202


def clocks(page, scope=""):
    return [page.inner_text(f'{scope} [data-team="{team}"] [data-chess-clock]') for team in (0, 1)]


def seconds(text):
    minutes, secs = text.split(":")
    return 60 * int(minutes) + int(secs)


def test_the_mover_s_clock_runs_down_and_the_other_s_stands(open_page, matches,
                                                            live_server_process):
    page = open_page(f"/matches/{matches['live']}/")
    page.wait_for_function("document.querySelector('#venue').dataset.phase === 'live'")
    first = clocks(page)
    assert all(CLOCK.fullmatch(shown) for shown in first)
    assert page.locator('[data-team="0"] [data-chess-clock]').evaluate(
        "(node) => node.classList.contains('running')")
    # the turn line: the turn and whose move it is, no countdown of a step
    assert page.inner_text(".clock").split() == ["Turn", "0", "Alpha", "to", "move"]
    page.wait_for_timeout(2200)
    later = clocks(page)
    assert seconds(later[0]) <= seconds(first[0]) - 2 and later[1] == first[1] == "1:30"

    send_move(live_server_process, matches["live"], matches["token"], "55u0", 1)
    page.wait_for_function("document.querySelector('[data-turn]').textContent === '1'")
    assert page.inner_text(".clock").split() == ["Turn", "1", "Beta", "to", "move"]
    assert page.locator('[data-team="1"]').evaluate("(card) => card.classList.contains('to-move')")
    assert page.locator('[data-team="1"] .to-move-chip').is_visible()
    assert not page.locator('[data-team="0"] .to-move-chip').is_visible()
    stopped = clocks(page)
    page.wait_for_timeout(2200)
    after = clocks(page)
    assert after[0] == stopped[0] and seconds(after[0]) <= seconds(later[0])
    assert seconds(after[1]) <= seconds(stopped[1]) - 2
    assert "next in" not in page.inner_text("aside")
    # over 30 s left: not the warning colour
    assert page.locator("[data-chess-clock]").evaluate_all(
        "(nodes) => nodes.map((node) => node.dataset.state)") == ["ok", "ok"]


def test_a_game_lost_on_time_says_so(open_page, matches):
    page = open_page(f"/matches/{matches['timed_out']}/", fake_clock=True)
    assert clocks(page) == ["0:04", "0:04"]  # before the start: neither runs
    # The start, half a minute away, comes at once: the page's clock jumps to it...
    start = matches["timed_out_start"]
    page.clock.fast_forward(max(0, round((start - timezone.now()).total_seconds() * 1000)) + 200)
    # under 30 s: the warning colour, while the time runs
    page.wait_for_function("document.querySelector('#venue').dataset.phase === 'live'",
                           timeout=30000)
    assert page.locator('[data-team="0"] [data-chess-clock]').get_attribute("data-state") == "low"
    # ...and the server's: the match began Alpha's 4 seconds (and a half) ago, which its
    # clock finds at its next tick (5 s away at most: another process's wake-up reaches
    # it only through PostgreSQL or Redis) and ends the game on time
    in_a_thread(lambda: Match.objects.filter(pk=matches["timed_out"]).update(
        start_at=timezone.now() - timedelta(seconds=4.5)))
    page.wait_for_selector("[data-result]:not([hidden])", timeout=30000)
    assert page.inner_text("[data-result] .verdict") == "Beta wins: Alpha ran out of time"
    assert page.get_attribute("[data-result]", "data-winner") == "1"
    assert clocks(page)[0] == "0:00" and seconds(clocks(page)[1]) == 4
    loser = page.locator('[data-team="0"]')
    assert loser.locator("[data-chess-clock]").get_attribute("data-state") == "out"
    assert loser.locator(".to-move-chip").inner_text().lower() == "out of time"
    assert not page.locator('[data-team="1"] .to-move-chip').is_visible()
    assert page.inner_text(".clock").split() == ["Turn", "0"]


def test_a_wall_tile_shows_the_clocks_beside_a_simultaneous_game(open_page, matches,
                                                                live_server_process):
    page = open_page(f"/screens/?matches={matches['live']},{matches['simultaneous']}")
    alternating = f"#match-{matches['live']}"
    assert all(CLOCK.fullmatch(shown) for shown in clocks(page, alternating))
    assert page.inner_text(f"{alternating} [data-turn]") == "turn 0"
    assert page.inner_text(f"{alternating} [data-countdown]") == "Alpha to move"
    send_move(live_server_process, matches["live"], matches["token"], "55u0", 1)
    page.wait_for_function(f"document.querySelector('{alternating} [data-turn]').textContent"
                           " === 'turn 1'")
    assert page.inner_text(f"{alternating} [data-countdown]") == "Beta to move"
    assert page.locator(f'{alternating} [data-team="1"] [data-chess-clock]').evaluate(
        "(node) => node.classList.contains('running')")
    simultaneous = f"#match-{matches['simultaneous']}"
    assert page.locator(f"{simultaneous} [data-chess-clock]").evaluate_all(
        "(nodes) => nodes.map((node) => node.hidden)") == [True, True]
    assert page.inner_text(f"{simultaneous} [data-turn]") == "0 / 5"
    assert re.fullmatch(r"next in \d+:\d\d", page.inner_text(f"{simultaneous} [data-countdown]"))


def test_a_simultaneous_game_keeps_its_countdown_and_shows_no_clock(open_page, matches):
    page = open_page(f"/matches/{matches['simultaneous']}/")
    assert page.locator("[data-chess-clock]").evaluate_all(
        "(nodes) => nodes.map((node) => node.hidden)") == [True, True]
    assert re.fullmatch(r"Turn 0 / 5\s+next in \d+:\d\d", page.inner_text(".clock").strip())


# The contrast (WCAG 2) of each clock's colour, in each of its states, with the card
# behind it, and of the "out of time" chip's words with the chip.
CONTRAST = """
() => {
  const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (colour) => {
    const [r, g, b] = rgb(colour).map((c) => {
      c /= 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
    return (x + 0.05) / (y + 0.05);
  };
  const result = {};
  for (const node of document.querySelectorAll("[data-chess-clock]")) {
    const card = getComputedStyle(node.closest(".team")).backgroundColor;
    const was = [node.dataset.state, node.className];
    for (const [state, running] of [["ok", false], ["ok", true], ["low", true], ["out", false]]) {
      node.dataset.state = state;
      node.classList.toggle("running", running);
      const key = `${state}${running ? " running" : ""}`;
      result[key] = Math.min(result[key] ?? 99, ratio(getComputedStyle(node).color, card));
    }
    [node.dataset.state, node.className] = was;
  }
  const chip = document.querySelector(".out-of-time .to-move-chip");
  const chipStyle = chip && getComputedStyle(chip);
  if (chip) result.chip = ratio(chipStyle.color, chipStyle.backgroundColor);
  return result;
}"""


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_clocks_stand_out_in_both_themes(open_page, matches, theme):
    page = open_page(f"/matches/{matches['lost']}/?theme={theme}")
    page.wait_for_selector("[data-result]:not([hidden])", timeout=40000)
    ratios = page.evaluate(CONTRAST)
    assert set(ratios) == {"ok", "ok running", "low running", "out", "chip"}
    assert all(ratio >= 4.5 for ratio in ratios.values()), ratios


def test_an_embedded_board_at_a_turn_says_the_turn_alone(open_page, matches):
    page = open_page(f"/matches/{matches['live']}/embed?turn=0")
    assert page.inner_text("[data-turn]") == "turn 0"
    assert page.locator("[data-chess-clock]").evaluate_all(
        "(nodes) => nodes.map((node) => node.hidden)") == [True, True]


@pytest.fixture
def blokus_live(transactional_db):
    """A live Blokus Duo game, its first move to come."""
    return make_alternating_match(clock=600)


def test_a_live_blokus_duo_game_spans_about_the_turns_it_will_take(blokus_live,
                                                                   live_server_process,
                                                                   browser):
    match, _ = blokus_live
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    for path in (f"/matches/{match.pk}/", f"/matches/{match.pk}/replay"):
        page.goto(f"{live_server_process}{path}")
        page.wait_for_selector("svg.chart text.tick")
        ticks = page.locator("svg.chart text.tick").evaluate_all(
            "(texts) => texts.map((text) => text.textContent)")
        assert "turn 40" in ticks, ticks  # not the 84 it may take: a game ends near 35
    labels = [t for t in page.locator("[data-ticks] .tick").all_inner_texts() if t]
    assert labels[-1] == "40", labels
    page.close()
