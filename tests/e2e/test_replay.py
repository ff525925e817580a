"""A real Chromium replays matches: slider, buttons, keys, the address, the chart, the
list of turns, speeds, a match still running that opens at its latest turn and grows
live, and a 12-agent match whose actions and controls stay in sight."""

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.e2e.conftest import in_a_thread
from tests.factories import make_match, move, put, submit

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"

pytestmark = pytest.mark.e2e

# 16 in the top left corner: taking it swings the score by more than the threshold (10)
POINTS = [[16, 1, 1, 1, 1, 1]] + [[1] * 6 for _ in range(4)]
TURNS = [
    ([put(0, 0, 0), put(1, 1, 1)], [put(0, 3, 3), put(1, 5, 4)]),  # 1: A +17, B +2
    ([move(1, 2, 2)], [move(0, 2, 2)]),  # 2: both target (2, 2): two conflicts
    ([put(0, 0, 1)], []),  # 3: invalid, the agent is already on the board
    ([move(1, 1, 2)], [move(1, 5, 3)]),  # 4
    ([], []),  # 5
    ([], []),  # 6
]



@pytest.fixture
def played(transactional_db):
    """A published match of six turns, made before the browser starts."""
    match, tokens = make_match(turns=len(TURNS), board={"width": 6, "height": 5,
                                                         "points": POINTS})
    for number, actions in enumerate(TURNS, start=1):
        for team, team_actions in enumerate(actions):
            if team_actions:
                submit(match, tokens[team], team_actions, number)
        turn_resolve(match_id=match.pk, number=number)
    Match.objects.filter(pk=match.pk).update(published=True)
    return match


@pytest.fixture
def running(transactional_db):
    """Starts in half a minute (time for a loaded machine to open the page before it;
    the test then brings the start forward); the server's clock plays its four (empty)
    turns."""
    match, _ = make_match(strategy=1.0, transition=0.2, start_in=30.0, turns=4)
    return match


@pytest.fixture
def open_replay(live_server_process, browser):
    pages, errors = [], []

    def open_page(match, query="", size=(1920, 1080), fake_clock=False):
        """`fake_clock`: the page's timers on Playwright's clock, which the test moves."""
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.on("pageerror", lambda error: errors.append(str(error)))
        if fake_clock:
            page.clock.install()  # (it runs as the real one until moved)
        page.goto(f"{live_server_process}/matches/{match.pk}/replay{query}")
        page.wait_for_selector(".board .cell")
        page.wait_for_function("document.querySelector('.board').dataset.shownTurn !== undefined")
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        page.close()
    assert errors == []


def shown(page) -> int:
    return int(page.get_attribute(".board", "data-shown-turn"))


def wait_shown(page, turn: int, timeout: float = 5000) -> None:
    page.wait_for_function(f"document.querySelector('.board').dataset.shownTurn === '{turn}'",
                           timeout=timeout)


def playing(page) -> bool:
    return "playing" in page.get_attribute("#replay", "class")


def test_the_slider_buttons_and_marks_move_through_the_turns(played, open_replay):
    page = open_replay(played)
    assert shown(page) == 0 and page.input_value("[data-turn-field]") == "0"
    assert "the empty board" in page.inner_text("[data-actions]")
    box = page.locator("[data-slider]").bounding_box()
    page.mouse.click(box["x"] + 10 + (box["width"] - 20) * 3 / 6, box["y"] + box["height"] / 2)
    assert shown(page) == 3 and page.input_value("[data-turn-field]") == "3"
    assert "the agent is already on the board" in page.inner_text("[data-actions]")
    for action, turn in [("forward", 4), ("back", 3), ("last", 6), ("first", 0)]:
        page.click(f'[data-action="{action}"]')
        assert shown(page) == turn, action
    assert page.locator(".mark.swing.team-a").get_attribute("data-mark-turn") == "1"
    page.click(".mark.conflicts")
    assert shown(page) == 2
    panel = page.inner_text("[data-actions]")
    assert "2 conflicts" in panel and "many conflicts" in panel and "also targets (2, 2)" in panel
    page.click('[data-action="last"]')
    assert page.locator(".action.none").count() == 4  # turn 6: nobody did anything
    assert page.locator(".board .agent.team-a").count() == 2


def test_keys_step_play_and_show_help_but_not_in_the_turn_field(played, open_replay):
    page = open_replay(played)
    for key, turn in [("ArrowRight", 1), ("End", 6), ("ArrowLeft", 5), ("Home", 0),
                      ("ArrowLeft", 0)]:
        page.keyboard.press(key)
        assert shown(page) == turn, key
    page.keyboard.press(" ")
    assert playing(page)
    page.keyboard.press(" ")
    assert not playing(page)
    page.keyboard.press("?")
    assert page.is_visible("[data-keys]") and "Space" in page.inner_text("[data-keys]")
    page.keyboard.press("?")
    assert not page.is_visible("[data-keys]")

    page.click('[data-action="first"]')
    page.click("[data-turn-field]")
    for key in ["ArrowRight", "End", " ", "?"]:
        page.keyboard.press(key)
    assert shown(page) == 0 and not playing(page) and not page.is_visible("[data-keys]")
    page.fill("[data-turn-field]", "4")
    page.keyboard.press("Enter")
    assert shown(page) == 4
    page.keyboard.press("Escape")  # leaves the field: keys work again
    page.keyboard.press("ArrowRight")
    assert shown(page) == 5

    page.click('[data-action="play"]')  # the focused play button: Space toggles it once
    assert playing(page)
    page.keyboard.press(" ")
    assert not playing(page)


def test_the_address_and_the_picture_link_hold_the_turn(played, open_replay):
    page = open_replay(played, "?turn=3")
    assert shown(page) == 3 and page.input_value("[data-turn-field]") == "3"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("location.search === '?turn=4'")
    picture = page.get_attribute("[data-png-link]", "href")
    assert picture.endswith(f"/matches/{played.pk}/board.png?turn=4")
    page.reload()
    page.wait_for_selector(".board .cell")
    wait_shown(page, 4)
    assert open_replay(played, "?turn=99").input_value("[data-turn-field]") == "6"


def test_a_click_on_the_chart_goes_to_that_turn(played, open_replay):
    page = open_replay(played)
    box = page.locator("svg.chart").bounding_box()
    width = float(page.get_attribute("svg.chart", "viewBox").split()[2])
    scale = box["width"] / width  # the plot runs from 48 to 10 short of the right edge
    plot = width - 48 - 10
    page.mouse.click(box["x"] + (48 + 4 / 6 * plot) * scale, box["y"] + box["height"] / 2)
    assert shown(page) == 4
    cursor = float(page.get_attribute("svg.chart line.cursor", "x1"))
    assert cursor == pytest.approx(48 + 4 / 6 * plot, abs=0.5)
    page.wait_for_function("location.search === '?turn=4'")
    page.mouse.click(box["x"] + 50 * scale, box["y"] + box["height"] / 2)
    assert shown(page) == 0


def test_at_16x_a_short_match_plays_through_quickly_and_at_a_quarter_it_does_not(played,
                                                                                 open_replay):
    page = open_replay(played)
    page.select_option("[data-speed]", "16")
    started = time.monotonic()
    page.click('[data-action="play"]')
    wait_shown(page, 6, timeout=3000)
    assert time.monotonic() - started < 2.0  # six turns at 16 a second: about 0.4 s
    page.wait_for_function("!document.getElementById('replay').classList.contains('playing')")
    page.wait_for_function("location.search === '?turn=6'")

    slow = open_replay(played)
    slow.select_option("[data-speed]", "0.25")
    slow.click('[data-action="play"]')
    slow.wait_for_timeout(1500)  # a turn every four seconds
    assert shown(slow) == 0 and playing(slow)
    assert "¼×" in slow.inner_text("[data-events]")


def test_a_running_match_grows_live_and_offers_the_live_screen(running, open_replay):
    page = open_replay(running, fake_clock=True)
    opened = timezone.now()
    link = page.locator("[data-live-link]")
    assert link.inner_text() == "back to live"
    assert link.get_attribute("href") == f"/matches/{running.pk}/"
    if opened < running.start_at - timedelta(seconds=1):  # a loaded machine may be later
        assert page.inner_text("[data-status]") == "not started yet"
    # The start comes now: the server's (its clock plays the turns from this moment), then
    # the page's (its clock jumps to the start it was told, and on)
    in_a_thread(lambda: Match.objects.filter(pk=running.pk).update(start_at=timezone.now()))
    page.clock.fast_forward(
        max(0, round((running.start_at - timezone.now()).total_seconds() * 1000)) + 100)
    wait_shown(page, 2, timeout=30000)  # at the latest turn: it follows the new ones
    assert page.get_attribute("[data-slider]", "max") == "4"
    page.click('[data-action="first"]')
    wait_shown(page, 0)
    page.wait_for_function(
        "document.querySelector('[data-status]').textContent.startsWith('finished')",
        timeout=15000)
    assert shown(page) == 0  # not at the latest turn any more: it stays where it was
    page.keyboard.press("End")
    assert shown(page) == 4 and link.inner_text() == "match screen"


TWELVE_TEAMS = ("Đội Hà Nội Phương Đông", "Nara 奈良高専")


@pytest.fixture
def twelve_agents(transactional_db):
    """A match of 12 agents a team, two of its 30 turns played (so it is still running):
    every agent put on the board, then B's agents all aiming at cells A holds."""
    points = [[1] * 12 for _ in range(12)]
    match, tokens = make_match(turns=30, agents=12, teams=TWELVE_TEAMS,
                               board={"width": 12, "height": 12, "points": points})
    first = ([put(agent, agent, 0) for agent in range(12)],
             [put(agent, agent, 11) for agent in range(12)])
    second = ([move(agent, agent, 1) for agent in range(12)],
              [put(agent, agent, 0) for agent in range(12)])
    for number, actions in enumerate([first, second], start=1):
        for team, team_actions in enumerate(actions):
            submit(match, tokens[team], team_actions, number)
        turn_resolve(match_id=match.pk, number=number)
    return match


def inside(box, area) -> bool:
    return (box["x"] >= area["x"] - 1 and box["y"] >= area["y"] - 1
            and box["x"] + box["width"] <= area["x"] + area["width"] + 1
            and box["y"] + box["height"] <= area["y"] + area["height"] + 1)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_every_agents_action_and_the_controls_are_in_sight(twelve_agents, open_replay, size):
    page = open_replay(twelve_agents, "?turn=2", size=size)
    screen = {"x": 0, "y": 0, "width": size[0], "height": size[1]}
    for control in ['[data-action="first"]', '[data-action="back"]', '[data-action="play"]',
                    '[data-action="forward"]', '[data-action="last"]', "[data-slider]",
                    "[data-turn-field]", "[data-speed]", "[data-png-link]"]:
        assert inside(page.locator(control).bounding_box(), screen), control
    assert page.evaluate("document.scrollingElement.scrollHeight") <= size[1]
    grid = page.locator("[data-turn-actions]")
    for team, name in enumerate(TWELVE_TEAMS):
        grid.evaluate("box => { box.scrollTop = 0; }")
        heading = grid.locator("h3").nth(team)
        assert heading.inner_text() == name and inside(heading.bounding_box(), screen)
        for agent in range(12):
            cell = grid.locator(f'.action-cell[data-team="{team}"][data-row="{agent}"]')
            assert cell.locator(".agent-chip").inner_text() == str(agent)
            if not inside(cell.bounding_box(), grid.bounding_box()):
                # out of sight only with the cue saying so, and scrolling brings it in
                assert "more below" in page.inner_text("[data-actions] [data-more-cue]")
                cell.scroll_into_view_if_needed()
            assert inside(cell.bounding_box(), grid.bounding_box()), (team, agent)
            assert inside(cell.bounding_box(), screen), (team, agent)
    assert "also targets" not in page.inner_text("[data-actions]")  # puts onto A's walls
    assert page.locator("[data-turn-actions] .action.invalid").count() == 12


def test_a_running_match_opens_at_its_latest_turn(twelve_agents, open_replay):
    page = open_replay(twelve_agents)
    wait_shown(page, 2)
    assert page.input_value("[data-turn-field]") == "2"
    assert page.get_attribute("[data-slider]", "max") == "30"
    assert page.get_attribute('[data-line-turn="2"]', "aria-current") == "true"


def test_a_line_of_the_turns_moves_the_board_and_follows_it(played, open_replay):
    page = open_replay(played)
    lines = page.locator("[data-move-list] li")
    assert lines.count() == 7  # turn 0 and the six turns
    assert "⚡2" in page.inner_text('[data-line-turn="2"]')
    page.click('[data-line-turn="4"]')
    assert shown(page) == 4
    assert page.get_attribute('[data-line-turn="4"]', "aria-current") == "true"
    assert page.locator(".board svg.moves").count() == 1  # turn 4's moves, on the board
    page.click('[data-line-turn="5"]')
    assert shown(page) == 5 and page.locator(".board svg.moves").count() == 0  # none
    page.click('[data-line-turn="4"]')
    page.wait_for_function("location.search === '?turn=4'")
    page.keyboard.press("ArrowLeft")
    assert shown(page) == 3
    assert page.get_attribute('[data-line-turn="3"]', "aria-current") == "true"
    assert page.locator("[data-move-list] [aria-current]").count() == 1


def test_the_timeline_spans_the_page_with_a_tick_for_every_turn(played, open_replay):
    page = open_replay(played)
    slider = page.locator("[data-slider]").bounding_box()
    assert slider["width"] >= 0.6 * 1920
    assert page.locator("[data-ticks] .tick").count() >= 7  # 0 to 6, and the end
    labels = [text for text in page.locator("[data-ticks] .tick").all_inner_texts() if text]
    assert labels[0] == "0" and labels[-1] == "6"
    # turn 1: A takes the lead (17 to 2) and keeps it
    assert page.locator(".mark.lead.team-a").get_attribute("data-mark-turn") == "1"


@pytest.fixture
def long_and_alternating(transactional_db):
    """A published Kakomimasu match of 77 turns and a Blokus Duo game that ended at its
    30th turn of a possible 84."""
    from matches.rules.records import parse_record
    from matches.services.archive import match_import
    found = {name: match_import(parse_record((CONFORMANCE / f"{name}.record.json").read_bytes()),
                                published=True)
             for name in ("kakomimasu/random_s7_00", "blokus-duo/random_s7_00")}
    for match in found.values():
        match.played = match.turn_rows.count()  # read before the browser's loop starts
    return found


CURRENT_IN_VIEW = """() => {
  const list = document.querySelector("[data-move-list]");
  const line = list.querySelector("[aria-current]");
  const box = list.getBoundingClientRect(), own = line.getBoundingClientRect();
  return { turn: Number(line.dataset.lineTurn),
           inView: own.top >= box.top - 1 && own.bottom <= box.bottom + 1 };
}"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_replay_opened_at_its_last_turn_shows_that_line_in_the_list(long_and_alternating,
                                                                       open_replay, size):
    match = long_and_alternating["kakomimasu/random_s7_00"]
    for query in (f"?turn={match.turns}&lang=vi", "?turn=40"):
        page = open_replay(match, query, size)
        page.wait_for_timeout(300)  # the list laid out
        turn = match.turns if "lang" in query else 40
        assert page.evaluate(CURRENT_IN_VIEW) == {"turn": turn, "inView": True}


def test_a_game_that_ended_early_spans_the_turns_it_took(long_and_alternating, open_replay):
    match = long_and_alternating["blokus-duo/random_s7_00"]
    played = match.played
    page = open_replay(match)
    labels = [text for text in page.locator("[data-ticks] .tick").all_inner_texts() if text]
    assert labels[-1] == str(played)
    idle = page.locator("[data-move-list] .move.idle").all_inner_texts()
    assert idle and set(idle) == {""}  # the team not to move: blank, not "not its move"


# Every animation a page starts on an agent, recorded as it starts (a fifth of a second
# is over before a test could look at document.getAnimations()).
RECORD_SLIDES = """() => {
  window.slid = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    if (this.matches(".agent")) window.slid.push(this.dataset.key);
    return animate.apply(this, args);
  };
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_step_forward_slides_the_agents_that_moved_unless_motion_is_reduced(played,
                                                                              open_replay,
                                                                              motion):
    page = open_replay(played, "?turn=3")
    page.emulate_media(reduced_motion=motion)
    page.evaluate(RECORD_SLIDES)
    page.click('[data-action="forward"]')  # turn 4: A's agent 1 and B's agent 1 move
    assert shown(page) == 4
    slid = sorted(page.evaluate("window.slid"))
    assert slid == ([] if motion == "reduce" else ["0,1", "1,1"]), slid
    page.evaluate("window.slid = []")
    page.click('[data-action="first"]')  # a jump, not a step: nothing slides
    page.click('[data-action="last"]')
    assert page.evaluate("window.slid") == []


def test_each_turn_shown_is_explained_on_the_board(long_and_alternating, open_replay):
    match = long_and_alternating["kakomimasu/random_s7_00"]
    page = open_replay(match, f"?turn={match.turns}&lang=ja")
    page.wait_for_selector(".board .callout")
    said = page.locator(".board .callout").all_inner_texts()
    assert len(said) == 1 and said[0].endswith("+15：(6, 4) で陣地を囲んだ"), said
    page.click('[data-action="back"]')  # turn 76: B closed territory too
    assert shown(page) == match.turns - 1
    assert page.locator(".board .callout").all_inner_texts()[0].endswith("(9, 16) で陣地を囲んだ")
    page.click('[data-action="back"]')  # turn 75: a quiet turn says nothing
    assert page.locator(".board .callout").count() == 0


@pytest.mark.parametrize("language", ["en", "ja", "vi"])
def test_the_match_column_fits_a_full_hd_screen_in_every_language(long_and_alternating,
                                                                  open_replay, language):
    match = long_and_alternating["kakomimasu/random_s7_00"]
    page = open_replay(match, f"?turn=5&lang={language}")
    page.wait_for_timeout(300)
    column = page.evaluate("""() => { const info = document.querySelector(".replay .info");
      return { over: info.scrollHeight - info.clientHeight, more: info.dataset.more || "" }; }""")
    assert column["over"] <= 1 and column["more"] == "", column
