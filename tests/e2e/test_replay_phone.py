"""What a tester saw wrong on the replay, measured in a real Chromium: a 24 × 24 board on
a phone zooms and moves like a map (values readable zoomed, no scrolling box inside the
page), Share and What if… leave the shown turn's actions whole at 1280 × 800, Blokus
Duo's trays keep squares one can see on a phone, and a game over reads its last turn."""

import pytest

from tests.e2e.conftest import published_vectors

pytestmark = pytest.mark.e2e
BIG = "kakomimasu/random24_s42_0"  # 24 × 24, 14 agents a team
LAPTOP = "kakomimasu/random_s7_05"  # 20 × 19
BLOKUS = "blokus-duo/random_s7_00"  # over at its 30th turn of a possible 84
PHONE = {"width": 390, "height": 844}

# Every box on the page that scrolls what it holds (the page itself aside).
SCROLLING_BOXES = """(inside) => [...document.querySelectorAll(inside + ' *, ' + inside)]
  .filter((node) => {
    const style = getComputedStyle(node);
    return /auto|scroll/.test(style.overflowX + style.overflowY)
      && (node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1);
  }).map((node) => node.className)"""
# A value's height on the screen, zoom included.
VALUE_HEIGHT = """() => document.querySelector('.board .cell[data-x="12"][data-y="12"] .points')
  .getBoundingClientRect().height"""


@pytest.fixture
def published(transactional_db):
    """The matches, imported and published before the browser starts."""
    return published_vectors([BIG, LAPTOP, BLOKUS])


@pytest.fixture
def phone(published, live_server_process, browser, pages):
    """`phone(vector, path, query)`: a touch phone's page of that match."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)

    def open_page(vector, path="replay", query=""):
        page = context.new_page()
        page.on("pageerror", lambda error: pages.errors.append(str(error)))
        pages.all.append(page)
        page.goto(f"{live_server_process}/matches/{published[vector]}/{path}{query}")
        page.wait_for_selector(".board .cell")
        return page

    return open_page


def transform(page) -> str:
    return page.evaluate("document.querySelector('.board').style.transform")


def touch(page, kind, points):
    """Fingers on the screen, as Chromium's input (one session a page keeps them down)."""
    if not hasattr(page, "fingers"):
        page.fingers = page.context.new_cdp_session(page)
    page.fingers.send("Input.dispatchTouchEvent", {
        "type": kind,
        "touchPoints": [{"x": x, "y": y, "id": n} for n, (x, y) in enumerate(points)]})


def test_a_big_board_opens_fitted_to_a_phone_and_zooms_to_readable_values(phone):
    page = phone(BIG, query="?turn=40")
    page.wait_for_function("document.querySelector('.board').dataset.shownTurn === '40'")
    board = page.locator(".board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]  # fitted
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(VALUE_HEIGHT) < 10  # too small to read, whole
    assert page.evaluate(SCROLLING_BOXES, "main") == []  # the page scrolls, nothing in it
    assert page.locator('[data-zoom="out"]').is_disabled()

    while page.locator('[data-zoom="in"]').is_enabled():
        page.click('[data-zoom="in"]')
    assert page.evaluate(VALUE_HEIGHT) >= 16  # readable
    frame = page.locator(".board-frame").bounding_box()
    assert frame["width"] <= PHONE["width"]
    assert frame["height"] == pytest.approx(board["height"], abs=1)  # its place in the page
    assert page.evaluate(SCROLLING_BOXES, "main") == []  # zoomed inside its box, not scrolled

    # a finger drags it: the board moves, the page does not
    before, scrolled = transform(page), page.evaluate("scrollY")
    touch(page, "touchStart", [(250, 250)])
    for step in range(1, 6):
        touch(page, "touchMove", [(250 - 20 * step, 250 - 15 * step)])
    touch(page, "touchEnd", [])
    assert transform(page) != before and page.evaluate("scrollY") == scrolled
    assert page.locator("[data-turn-field]").input_value() == "40"  # a drag picks nothing

    page.click('[data-zoom="fit"]')
    assert transform(page) == "" and page.locator('[data-zoom="fit"]').is_disabled()


def test_a_pinch_and_a_double_tap_zoom_the_board(phone):
    page = phone(BIG)
    touch(page, "touchStart", [(150, 200), (200, 200)])
    for step in range(1, 6):
        touch(page, "touchMove", [(150 - 10 * step, 200), (200 + 10 * step, 200)])
    touch(page, "touchEnd", [])
    assert "scale(3" in transform(page)  # fingers three times as far apart
    page.click('[data-zoom="fit"]')
    page.touchscreen.tap(150, 150)
    page.touchscreen.tap(151, 151)
    page.wait_for_function("document.querySelector('.board').style.transform !== ''")
    assert page.evaluate(VALUE_HEIGHT) >= 16
    page.touchscreen.tap(150, 150)
    page.touchscreen.tap(151, 151)
    page.wait_for_function("document.querySelector('.board').style.transform === ''")


def test_zooming_is_the_phones_alone(published, live_server_process, pages):
    page = pages.open(f"{live_server_process}/matches/{published[BIG]}/replay", size=(1280, 800))
    page.wait_for_selector(".board .cell")
    assert not page.locator("[data-zoom-buttons]").is_visible()
    page.dblclick(".board .cell >> nth=30")
    assert transform(page) == ""


@pytest.mark.parametrize("opener", ["[data-share-open]", "[data-whatif-open]"])
def test_share_and_what_if_leave_the_turns_actions_whole(published, live_server_process, pages,
                                                          opener):
    page = pages.open(f"{live_server_process}/matches/{published[LAPTOP]}/replay?turn=20",
                      size=(1280, 800))
    page.wait_for_function("document.querySelector('.board').dataset.shownTurn === '20'")
    page.locator(opener).dispatch_event("click")
    page.wait_for_timeout(300)
    boxes = page.evaluate(SCROLLING_BOXES, "aside.moves")
    assert len(boxes) <= 1, boxes  # one scroll area, the column itself
    grid = page.locator("[data-turn-actions]")
    whole = grid.evaluate("box => box.scrollHeight <= box.clientHeight + 1")
    assert whole and grid.bounding_box()["height"] > 150  # not squeezed to a line
    cells = grid.locator(".action-cell")
    assert cells.count() >= 14
    column = page.locator("aside.moves")
    assert column.evaluate("box => box.dataset.more") == "below"  # it says it scrolls
    cells.last.scroll_into_view_if_needed()
    last, seen = cells.last.bounding_box(), column.bounding_box()
    assert seen["y"] - 1 <= last["y"]
    assert last["y"] + last["height"] <= seen["y"] + seen["height"] + 1


def test_blokus_trays_keep_squares_one_can_see_on_a_phone(phone):
    page = phone(BLOKUS, path="")
    page.wait_for_selector(".tray:not([hidden]) rect")
    squares = page.eval_on_selector_all(".tray rect", """rects => rects.map((rect) => {
      const box = rect.getBoundingClientRect(); return [box.width, box.height]; })""")
    assert squares and min(min(square) for square in squares) >= 7
    gaps = page.eval_on_selector_all(".tray .piece", """pieces => pieces.flatMap((piece) => {
      const boxes = [...piece.querySelectorAll("rect")]
        .map((rect) => rect.getBoundingClientRect());
      const beside = (a, b) => Math.abs(a.top - b.top) < 0.5 && b.left > a.left;
      return boxes.flatMap((a) => boxes.filter((b) => beside(a, b)).map((b) => b.left - a.right));
    })""")
    assert gaps and min(gaps) >= 0.9  # two squares side by side never run together
    for tray in page.locator(".tray").all():  # it wraps; nothing runs off the card
        card = tray.locator("xpath=..").bounding_box()
        box = tray.bounding_box()
        assert box["x"] + box["width"] <= card["x"] + card["width"] + 1


def test_a_game_over_reads_its_last_turn_at_any_turn(published, live_server_process, pages):
    page = pages.open(f"{live_server_process}/matches/{published[BLOKUS]}/replay?turn=20",
                      size=(1280, 800))
    page.wait_for_function("document.querySelector('.board').dataset.shownTurn === '20'")
    assert page.inner_text("[data-turn-of]") == "/ 30"  # not "/ 84"
    assert page.get_attribute("[data-slider]", "max") == "30"
    assert page.get_attribute("[data-turn-field]", "max") == "30"
