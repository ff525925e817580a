"""A real Chromium measures the venue screen as the hall sees it: the final board whole
under a long verdict, the last turn's reasons where they fit, nothing on the side under
the judges' banner, type large enough for 15 m, callouts beside their cells, the delay
said before the start and the game named."""

import re
from pathlib import Path

import pytest

from matches.models import Match
from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.e2e
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
LANDSCAPE = [(1920, 1080), (1280, 800)]
TALL_BOARD = {"width": 6, "height": 14,
              "points": [[(x * y) % 7 - 2 for x in range(6)] for y in range(14)]}
LONG_VOID = ("the hall's power failed twice during the afternoon and the judges could not "
             "restore the network before the end of the session")
PAUSED = ("会場のネットワーク機器が再起動中のため、すべての試合を一時停止しています。"
          "復旧まで数分お待ちください。奈良高専チームのルーターも確認中です。")
BANNER = ("昼食休憩は12時30分から13時15分までです。次の試合は13時20分に開始します。"
          "会場内での飲食はロビーでお願いします。")


def imported(vector: str) -> int:
    return match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                        published=True).pk


def sized(size):
    return pytest.mark.parametrize("size", size, ids=lambda s: f"{s[0]}x{s[1]}")


@pytest.fixture
def matches(transactional_db):
    """Made before the browser starts: Playwright's loop forbids database calls after."""
    from matches.services.control import match_pause, match_void

    tall, _ = make_match(board=TALL_BOARD, teams=("Đội Hà Nội Phương Đông", "Nara 奈良高専"))
    match_void(match_id=tall.pk, reason=LONG_VOID, judge="judy")
    paused, _ = make_match(teams=("Đội Hà Nội Phương Đông", "Nara 奈良高専 プロコン部"))
    match_pause(match_id=paused.pk, judge="judy", reason=PAUSED)
    delayed, _ = make_match(start_in=900)
    Match.objects.filter(pk=delayed.pk).update(delay_s=60)
    return {"tall": tall.pk, "paused": paused.pk, "delayed": delayed.pk,
            "chaser": imported("chaser/capture_by_put"),
            "ring": imported("kakomimasu/enclosure_ring"),
            "collided": imported("kakomimasu/random_s7_19")}


@pytest.fixture
def venue(matches, live_server_process, pages):
    def open_at(match_id, size, language="en", ready=".board .cell"):
        page = pages.open(f"{live_server_process}/matches/{match_id}/?lang={language}", size)
        page.wait_for_selector(ready)
        page.wait_for_function("document.querySelector('#venue').dataset.phase !== 'connecting'")
        page.wait_for_timeout(300)  # the side fits what it holds, the callouts are placed
        return page

    return open_at


FINAL = """() => {
  const card = document.querySelector("[data-result]").getBoundingClientRect();
  const board = document.querySelector(".board").getBoundingClientRect();
  const columns = [...document.querySelectorAll(".board .coord.x")]
    .map((node) => node.getBoundingClientRect());
  return { cardBottom: card.bottom, boardTop: board.top, boardBottom: board.bottom,
           columnsTop: Math.min(...columns.map((box) => box.top)), height: innerHeight };
}"""


@pytest.mark.parametrize("language", ["en", "ja"])
@sized(LANDSCAPE)
def test_the_final_board_and_its_coordinates_fit_under_a_long_verdict(venue, matches, size,
                                                                      language):
    """A verdict of three lines over a tall board: the board ran 19 px off a 1080p screen
    (its room was a guess at the card's height), its column numbers under the card."""
    page = venue(matches["tall"], size, language, ready="[data-result]:not([hidden])")
    shown = page.evaluate(FINAL)
    assert shown["boardBottom"] <= shown["height"] - 8, shown
    assert shown["columnsTop"] >= shown["cardBottom"], shown
    assert shown["boardTop"] >= shown["cardBottom"], shown


ONE_LINE_OF_ROOM = """() => {
  const box = document.querySelector("[data-failures]");
  const line = box.querySelector("li").getBoundingClientRect().height;
  const style = getComputedStyle(box);
  const summary = box.querySelector(".summary").getBoundingClientRect().height;
  const list = parseFloat(getComputedStyle(box.querySelector("ul")).marginTop);
  box.style.flex = "none";
  box.style.minHeight = "0px";
  box.style.height = `${summary + list + line + 4 + parseFloat(style.paddingTop)
    + parseFloat(style.paddingBottom) + 2}px`;
}"""


@sized(LANDSCAPE)
def test_a_box_with_room_for_one_reason_shows_it(venue, matches, size):
    """CHaser lists both sides' commands: with room for one line, "+2 more" stood over
    an empty box, the line it took being the one a reason would have had."""
    page = venue(matches["chaser"], size, ready="[data-failures] li")
    page.evaluate(ONE_LINE_OF_ROOM)
    page.wait_for_timeout(300)  # the list is fitted again to its new height
    box = page.locator("[data-failures]")
    reasons = box.locator("li:not(.more)").all_inner_texts()
    assert len(reasons) == 1, reasons
    assert re.search(r"\+\d+ more", box.inner_text())
    assert box.evaluate("(box) => box.scrollHeight <= box.clientHeight + 1")


SIDE = """() => {
  const banner = document.getElementById("notice-banner");
  const foot = banner ? banner.getBoundingClientRect().top : innerHeight;
  const parts = [...document.querySelectorAll(".venue .side > *")]
    .filter((node) => node.getClientRects().length)
    .map((node) => ({ part: node.className, box: node.getBoundingClientRect() }));
  const overlaps = parts.slice(1)
    .filter((part, index) => part.box.top < parts[index].box.bottom - 0.5).map((part) => part.part);
  return { foot, overlaps, shown: parts.map((part) => part.part),
           below: parts.filter((part) => part.box.bottom > foot + 0.5).map((part) => part.part) };
}"""


def banner_up(page):
    """The judges' announcement as the socket brings it (venue/notices.js)."""
    page.evaluate("""async (text) => {
      const { drawNotices } = await import("/static/matches/venue/notices.js");
      drawNotices(document.getElementById("venue"), [{ id: 1, text, at: 0, to: "everyone" }]);
    }""", BANNER)
    page.wait_for_timeout(400)


@pytest.mark.parametrize("language", ["ja", "vi"])
@sized(LANDSCAPE)
def test_nothing_on_the_side_goes_under_the_banner_in_a_long_pause(venue, matches, size,
                                                                   language):
    """A long pause in Japanese and an announcement at 1280 x 800: the legend and the
    status chip ran under the banner, the last turn's panel cut in half."""
    page = venue(matches["paused"], size, language,
                 ready="[data-countdown][data-kind='paused'] .paused-said")
    banner_up(page)
    side = page.evaluate(SIDE)
    assert side["overlaps"] == [] and side["below"] == [], side
    assert any("legend" in part for part in side["shown"]), side
    assert any("status-line" in part for part in side["shown"]), side
    # and when it comes down, the parts that gave way come back
    page.evaluate("""async () => {
      const { drawNotices } = await import("/static/matches/venue/notices.js");
      drawNotices(document.getElementById("venue"), []);
    }""")
    page.wait_for_timeout(400)
    side = page.evaluate(SIDE)
    assert side["overlaps"] == [] and side["below"] == [], side
    if size == (1920, 1080):
        assert any("chart-panel" in part for part in side["shown"]), side


TYPE = """() => Object.fromEntries([["title", ".venue .title-line"],
  ["legend", "[data-board-legend] .legend-item"], ["status", ".venue .status-line"],
  ["words", ".venue .team .details"]].map(([name, selector]) =>
  [name, parseFloat(getComputedStyle(document.querySelector(selector)).fontSize)]).concat(
  [["chart ticks", (() => {  // as drawn: the chart's own scale applied to its words
    const svg = document.querySelector(".venue svg.chart");
    const tick = svg.querySelector(".tick");
    return parseFloat(getComputedStyle(tick).fontSize)
      * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  })()]]))"""


@pytest.mark.parametrize("language", ["en", "vi"])
@sized(LANDSCAPE)
def test_the_side_s_words_are_large_enough_for_15_m(venue, matches, size, language):
    """At 1280 x 800 the title was 14 px, the legend 12 px and the chart's ticks 11."""
    page = venue(matches["collided"], size, language, ready="[data-result]:not([hidden])")
    sizes = page.evaluate(TYPE)
    assert sizes["title"] >= 18 and min(sizes.values()) >= 16, sizes
    side = page.evaluate(SIDE)
    assert side["overlaps"] == [] and side["below"] == [], side


CALLOUTS = """() => [...document.querySelectorAll(".board .callout[data-at]")].map((node) => {
  const [x, y] = node.dataset.at.split(",");
  const cell = document.querySelector(`.cell[data-x="${x}"][data-y="${y}"]`)
    .getBoundingClientRect();
  const box = node.getBoundingClientRect(), board = node.closest(".board").getBoundingClientRect();
  const apart = box.right <= cell.left + 0.5 || box.left >= cell.right - 0.5
    || box.bottom <= cell.top + 0.5 || box.top >= cell.bottom - 0.5;
  const middle = { x: (cell.left + cell.right) / 2, y: (cell.top + cell.bottom) / 2 };
  const facing = { above: box.bottom <= cell.top && box.left <= middle.x && middle.x <= box.right,
                   below: box.top >= cell.bottom && box.left <= middle.x && middle.x <= box.right,
                   right: box.left >= cell.right && box.top <= middle.y && middle.y <= box.bottom,
                   left: box.right <= cell.left && box.top <= middle.y && middle.y <= box.bottom };
  const tail = getComputedStyle(node, "::after");
  return { text: node.textContent, apart, facing: facing[node.dataset.side], tail: tail.content,
           inside: box.left >= board.left - 1 && box.right <= board.right + 1
                   && box.top >= board.top - 1 && box.bottom <= board.bottom + 1 };
})"""


@pytest.mark.parametrize("which", ["ring", "collided"])
@sized(LANDSCAPE + [(390, 844)])
def test_a_callout_stands_beside_its_cell_and_points_at_it(venue, matches, size, which):
    """On a small board with large cells the callout of the territory closed at (2, 2)
    took four lines over the ring it closed and ran over the column numbers."""
    page = venue(matches[which], size, ready=".board .callout[data-side]")
    said = page.evaluate(CALLOUTS)
    assert said, said
    for callout in said:
        assert callout["apart"] and callout["facing"] and callout["inside"], callout
        assert callout["tail"] != "none", callout


@pytest.mark.parametrize(("language", "note"), [
    ("en", "The audience sees this match 60 seconds late"),
    ("ja", "観客にはこの試合が60秒遅れで映ります"),
    ("vi", "Khán giả xem trận này chậm 60 giây")])
def test_a_delayed_match_s_start_card_says_the_hall_sees_it_late(venue, matches, language, note):
    page = venue(matches["delayed"], (1280, 800), language, ready="[data-start]:not([hidden])")
    assert page.inner_text("[data-start] [data-behind-note]") == note
    card, board = (page.locator(part).bounding_box() for part in ("[data-start]", ".board"))
    assert card["y"] + card["height"] <= board["y"] + board["height"]


def test_a_match_without_a_delay_says_none(venue, matches):
    page = venue(matches["paused"], (1280, 800))
    assert not page.locator("[data-behind-note]").is_visible()


@pytest.mark.parametrize(("language", "game"), [
    ("en", "Kakomimasu (Procon 31)"), ("ja", "囲みマス (第31回高専プロコン)"),
    ("vi", "Kakomimasu (Procon 31, Nhật Bản)")])
def test_the_title_names_the_game(venue, matches, language, game):
    page = venue(matches["paused"], (1280, 800), language)
    assert page.inner_text(".venue .title-line [data-game]") == game
    assert page.locator(".venue .title-line [data-game]").is_visible()
    page = venue(matches["chaser"], (1920, 1080), language)
    assert page.inner_text(".venue .title-line [data-game]") == "CHaser (U-16)"
