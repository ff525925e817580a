"""A real Chromium opens the wall of screens, the TV and the embedded board."""

from pathlib import Path

import pytest
from django.utils import timezone

from matches.models import Match
from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.e2e.conftest import in_a_thread, timers_until
from tests.factories import make_match

pytestmark = pytest.mark.e2e

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"
RECORDS = ["kakomimasu/random24_s42_0", "procon2020/random_s7_00", "chaser/random_s7_00",
           "blokus-duo/random_s7_00"]
BIG = {"width": 24, "height": 24, "points": [[(x * 7 + y * 3) % 33 - 16 for x in range(24)]
                                               for y in range(24)]}


@pytest.fixture
def six_matches(transactional_db):
    """Two live matches (one on a 24x24 board, with long team names) and a published
    match of every game, made before the browser starts."""
    live = [make_match(board=BIG, teams=("Đội Hà Nội Phương Đông", "Nara 奈良高専 Robotics"),
                       turns=30, agents=6)[0].pk,
            make_match(turns=30)[0].pk]
    imported = [match_import(parse_record((CONFORMANCE / f"{name}.record.json").read_bytes()),
                             published=True).pk for name in RECORDS]
    return live + imported


# Every tile inside the screen and every element inside its tile; the page does not
# scroll; the tiles cover the screen; each board fills its stage in one direction; no
# value is shown smaller than 12 px.
LAYOUT = """() => {
  const box = (node) => node.getBoundingClientRect();
  const inside = (a, b) => a.left >= b.left - 1 && a.top >= b.top - 1 && a.right <= b.right + 1
    && a.bottom <= b.bottom + 1;
  const problems = [];
  const root = document.documentElement;
  if (root.scrollHeight > innerHeight || root.scrollWidth > innerWidth) {
    problems.push(`the page scrolls: ${root.scrollWidth}x${root.scrollHeight}`);
  }
  const screen = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  let covered = 0;
  for (const tile of document.querySelectorAll("section.mini")) {
    const outer = box(tile);
    covered += outer.width * outer.height;
    if (!inside(outer, screen)) problems.push(`${tile.id} outside the screen`);
    for (const node of tile.querySelectorAll("*")) {
      const own = box(node);
      if (own.width && own.height && !inside(own, outer)) {
        problems.push(`${tile.id}: ${node.tagName}.${node.getAttribute("class")} sticks out`);
        break;
      }
    }
    const title = tile.querySelector(".tile-title");
    if (!title?.textContent.trim() || box(title).width < 40) problems.push(`${tile.id}: no title`);
    const stage = box(tile.querySelector(".stage"));
    const board = box(tile.querySelector(".board"));
    if (board.width < 0.9 * stage.width && board.height < 0.9 * stage.height) {
      problems.push(`${tile.id}: the board ${board.width}x${board.height} leaves its `
                    + `${stage.width}x${stage.height} stage empty`);
    }
    for (const value of tile.querySelectorAll(".points")) {
      const style = getComputedStyle(value);
      if (style.visibility !== "hidden" && parseFloat(style.fontSize) < 12) {
        problems.push(`${tile.id}: a value in ${style.fontSize}`);
        break;
      }
    }
  }
  if (covered < 0.8 * innerWidth * innerHeight) problems.push(`tiles cover ${covered} px²`);
  return problems;
}"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)])
def test_walls_of_one_to_six_matches_fit_the_screen(live_server_process, six_matches,
                                                    browser, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    for count in range(1, 7):
        shown = ",".join(str(pk) for pk in six_matches[:count])
        answer = page.goto(f"{live_server_process}/screens/?matches={shown}")
        assert answer.status == 200, f"{count} matches: {answer.status}"
        page.wait_for_function(f"""() => {{
            const boards = [...document.querySelectorAll("section.mini .board")];
            return boards.length === {count}
              && boards.every((board) => board.querySelector(".cell"));
        }}""", timeout=15000)
        page.wait_for_timeout(500)  # fonts and the last layout
        assert page.evaluate(LAYOUT) == [], f"{count} matches at {size[0]}x{size[1]}"
    # Six tiles at 1280x800 leave a 24x24 board no room for readable values: they go,
    # and its agents and walls stay.
    big = page.locator(f"#match-{six_matches[0]} .board")
    assert "compact" in big.get_attribute("class")
    assert page.locator(f"#match-{six_matches[0]} .points").first.evaluate(
        "(node) => getComputedStyle(node).visibility") == "hidden"


@pytest.fixture
def two_rounds(transactional_db):
    """A short public match on now (about 7 s), and the next one a minute from now (the
    test brings its start forward once the TV has said when it is)."""
    first = make_match(start_in=0, strategy=1.0, transition=0.2, turns=6)[0]
    second = make_match(start_in=60, strategy=1.0, transition=0.2, turns=60,
                        teams=("Hot", "Cool"))[0]
    return first.pk, second.pk


def test_the_tv_follows_the_live_match_and_moves_on_by_itself(live_server_process, two_rounds,
                                                             browser):
    first, second = two_rounds
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.install()  # its timers on Playwright's clock (as the real one until moved)
    page.goto(f"{live_server_process}/tv/?pause=2")
    page.wait_for_selector(f"section.mini[data-match='{first}'] .board .cell", timeout=15000)
    # Its end: the result, then the next match's time while it has not started...
    timers_until(page, "[data-tv-result]:not([hidden])", 30)
    assert page.inner_text("[data-verdict]").strip()
    timers_until(page, "[data-idle]:not([hidden])", 15)
    assert page.inner_text("[data-idle-headline]").startswith("Next match at ")
    assert "Hot vs Cool" in page.inner_text("[data-idle]")
    assert page.locator("section.mini").count() == 0
    # ...and the next match, live, as soon as it starts (now: its start brought forward,
    # which the TV learns as it asks the server every few seconds): nobody touched the
    # screen.
    in_a_thread(lambda: Match.objects.filter(pk=second).update(start_at=timezone.now()))
    timers_until(page, f"section.mini[data-match='{second}'] .board .cell", 40)
    assert page.locator("[data-idle]").is_hidden()
    assert page.inner_text(f"section.mini[data-match='{second}'] [data-team='0'] .name") == "Hot"
    assert errors == []


def test_nothing_on_says_so(live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server_process}/tv/")
    page.wait_for_function(
        "document.querySelector('[data-idle-headline]').textContent === 'No match on'")


@pytest.fixture
def one_published(transactional_db):
    return match_import(parse_record(
        (CONFORMANCE / "kakomimasu/random_s7_00.record.json").read_bytes()), published=True).pk


def test_another_site_frames_the_embedded_board_live_or_at_a_turn(live_server_process,
                                                                 one_published, browser):
    page = browser.new_page(viewport={"width": 800, "height": 600})
    embed = f"{live_server_process}/matches/{one_published}/embed"
    page.set_content(f'<iframe src="{embed}" width="640" height="400"></iframe>'
                     f'<iframe src="{embed}?turn=4" width="400" height="400"></iframe>'
                     f'<iframe src="{live_server_process}/matches/{one_published}/"></iframe>')
    live, fixed, venue = page.frames[1:]
    live.wait_for_selector(".board .cell", timeout=15000)
    fixed.wait_for_selector(".board .cell", timeout=15000)
    assert fixed.inner_text("[data-turn]").startswith("4 /")
    for frame, width, height in ((live, 640, 400), (fixed, 400, 400)):
        board = frame.locator(".board").bounding_box()
        assert board["width"] <= width and board["height"] <= height
        assert frame.locator(".team .name").first.inner_text() == "A"
    # Every other page keeps its X-Frame-Options: Chromium refuses to show it in a frame.
    page.wait_for_timeout(1000)
    assert venue.url.startswith("chrome-error:") and venue.locator(".board").count() == 0


@pytest.fixture
def one_turn_played(transactional_db):
    """A public live match whose first turn is played (walls on the board, a change)."""
    from matches.services.transition import turn_resolve
    from tests.factories import put, submit
    match, tokens = make_match(turns=30, strategy=3600, teams=("Alpha", "Beta"))
    submit(match, tokens[0], [put(0, 0, 0), put(1, 1, 1)], 1)
    submit(match, tokens[1], [put(0, 3, 3)], 1)
    turn_resolve(match_id=match.pk, number=1)
    return match.pk


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800), (390, 844)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_tv_explains_the_game_the_units_the_parts_and_the_last_change(
        live_server_process, one_turn_played, browser, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{live_server_process}/tv/")
    tile = f"section.mini[data-match='{one_turn_played}']"
    page.wait_for_selector(f"{tile} .team .change:not(:empty)", timeout=15000)
    assert page.inner_text(".tv-game") == "Kakomimasu (Procon 31)"
    assert "enclose" in page.inner_text(".tv-rule")
    for team in (0, 1):
        card = f"{tile} [data-team='{team}']"
        assert page.inner_text(f"{card} .unit") == "points"
        assert "wall" in page.inner_text(f"{card} .details")
        assert page.inner_text(f"{card} .change").endswith("last turn")
    if size[0] > size[1]:  # a wide screen: the chart beside the board, drawn
        assert page.locator(".tv-chart svg.chart path, .tv-chart svg.chart polyline").count()
    assert page.evaluate(LAYOUT) == []


@pytest.fixture
def played_short(transactional_db):
    """A public match of four quick turns that starts in 2 s (team A plays it)."""
    match, tokens = make_match(strategy=1.0, transition=0.3, start_in=2, turns=4)
    return match.pk, tokens[0]


def test_after_a_match_the_tv_shows_the_turn_that_moved_the_score_most(
        live_server_process, played_short, browser):
    from tests.e2e.test_venue_screen import team_a_playing

    match_id, token = played_short
    with team_a_playing(live_server_process, match_id, token):
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.clock.install()
        page.goto(f"{live_server_process}/tv/?pause=60")
        timers_until(page, "[data-swing]:not([hidden])", 40)
        assert page.inner_text("[data-swing-words]").startswith("The biggest swing: turn 1, +")
        assert page.get_attribute(".tv-swing iframe", "src") == \
            f"/matches/{match_id}/embed?turn=1"
        page.wait_for_function(
            "document.querySelector('.tv-code img').complete"
            " && document.querySelector('.tv-code img').naturalWidth > 0")
        board = page.frame_locator(".tv-swing iframe").locator(".board .cell")
        board.first.wait_for()
        assert board.count() == 30  # the board after turn 1, in its frame
