"""The theme and language switches never cover what a page shows: at the end of a
document, in the replay's side column, and out of sight on the screens read from afar
until the pointer moves (issue "The hall understands every turn", item 1)."""

import pytest

from tests.e2e.conftest import published_vectors

pytestmark = pytest.mark.e2e

VECTORS = ("kakomimasu/random24_s42_0", "chaser/random_s7_00", "blokus-duo/random_s7_00")

# The visible elements of the page (outside the switches, and not holding them) whose
# boxes meet a visible switch's box.
COVERED = """() => {
  const seen = (node) => node.getClientRects().length > 0
    && getComputedStyle(node).visibility === "visible"
    && Number(getComputedStyle(node).opacity) > 0;
  const meet = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const found = [];
  for (const switches of document.querySelectorAll(".switches")) {
    if (!seen(switches)) continue;
    const own = switches.getBoundingClientRect();
    for (const node of document.querySelectorAll("main, main *")) {
      if (node.contains(switches) || switches.contains(node) || !seen(node)) continue;
      const box = node.getBoundingClientRect();
      if (box.width && box.height && meet(own, box)) {
        found.push(`${node.tagName}.${node.getAttribute("class")}`);
      }
    }
  }
  return found;
}"""
SHOWN = """() => [...document.querySelectorAll(".switches")].some((node) =>
  node.getClientRects().length && getComputedStyle(node).visibility === "visible")"""


@pytest.fixture
def played(transactional_db):
    return published_vectors(VECTORS)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)])
def test_the_venue_and_the_wall_show_them_only_while_the_pointer_moves(live_server_process,
                                                                      played, pages, size):
    ids = ",".join(str(played[vector]) for vector in VECTORS)
    for address in [f"/matches/{played[VECTORS[0]]}/?lang=vi",
                    f"/screens/?matches={ids}&lang=vi"]:
        page = pages.open(f"{live_server_process}{address}", size)
        page.wait_for_selector(".board .cell")
        assert not page.evaluate(SHOWN), address
        page.clock.install()  # (the switches' wait from now on)
        page.mouse.move(size[0] // 2, size[1] // 2)
        page.mouse.move(size[0] // 3, size[1] // 3)
        page.wait_for_function(SHOWN)
        page.get_by_role("link", name="English").wait_for(state="visible")
        page.clock.run_for(3500)  # still, for longer than the switches wait
        page.wait_for_function(f"!({SHOWN})()")
        assert page.evaluate(SHOWN) is False, address


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800), (390, 844)])
def test_on_documents_and_the_replay_they_cover_nothing(live_server_process, played, pages,
                                                         size):
    page = pages.open(f"{live_server_process}/?lang=ja", size)
    for address in ["/", f"/matches/{played[VECTORS[0]]}/replay",
                    f"/matches/{played[VECTORS[2]]}/replay"]:
        page.goto(f"{live_server_process}{address}?lang=ja")
        page.wait_for_load_state("networkidle")
        page.mouse.move(size[0] // 2, size[1] // 2)
        # the replay's match column, where it must scroll, says so in the page's language
        cue = page.evaluate("""() => { const info = document.querySelector('.replay .info');
          return info && info.dataset.more === 'below'
            && getComputedStyle(info, '::after').content; }""")
        assert not cue or ("スクロール" in cue and "more" not in cue), cue
        page.evaluate("() => document.querySelector('.switches').scrollIntoView()")
        assert page.evaluate(SHOWN), address
        assert page.evaluate(COVERED) == [], (address, size)
    page.locator("[data-theme-choice=light]").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
