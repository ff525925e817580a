"""A real Chromium opens the wall of screens, the TV and the embedded board."""

from pathlib import Path

import pytest

from matches.rules.records import parse_record
from matches.services.archive import match_import
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
