"""What a tile of the wall, the TV and the embed shows, measured in a real Chromium: the
game named on every tile, names broken only between words, a four-digit number whole
beside its ▲, a callout never cut, nothing moving as a step's words come and go, the
TV's result covering the tile whole, and the cards drawing a step's own numbers and
words."""

from pathlib import Path

import pytest
from django.utils import translation

from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.e2e.conftest import timers_until
from tests.factories import make_match

pytestmark = pytest.mark.e2e

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"
NARA = "奈良工業高等専門学校"  # 奈良 · 工業 · 高等 · 専門 · 学校
NARA_WORDS = {2, 4, 6, 8}  # where a line may start inside it
TREASURE = "Đội kho\u00a0báu Hà Nội"  # "kho báu" (treasure) kept whole by a no-break space


def imported(name: str) -> int:
    record = parse_record((CONFORMANCE / f"{name}.record.json").read_bytes())
    return match_import(record, published=True).pk


@pytest.fixture
def named_wall(transactional_db):
    """Four matches of three games, two with long names in Japanese and Vietnamese."""
    live = [make_match(teams=(NARA, TREASURE), turns=30)[0].pk,
            make_match(teams=(TREASURE, NARA), turns=30)[0].pk]
    return live + [imported("procon2020/random_s7_00"), imported("chaser/random_s7_00")]


# Where each line of a card's name starts (indices into its text), from the boxes of
# its characters.
NAME_LINES = """(name) => {
  let text = "", tops = [];
  const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      tops.push(box && box.width ? Math.round(box.top) : null);
      text += node.data[i];
    }
  }
  const starts = [];
  let last = null;
  tops.forEach((top, i) => {
    if (top === null) return;
    if (last !== null && top > last + 2) starts.push(i);
    last = top;
  });
  return { text, starts, overflows: name.scrollWidth > name.clientWidth + 1 };
}"""


@pytest.mark.parametrize("language", ["ja", "vi"])
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080), (390, 844)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_wall_tile_names_its_game_and_breaks_a_name_only_between_words(
        live_server_process, named_wall, browser, language, size):
    with translation.override(language):
        titles = [str(translation.gettext(rules_for(game).title))
                  for game in ("kakomimasu", "kakomimasu", "procon2020", "chaser")]
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{live_server_process}/screens/?matches={','.join(map(str, named_wall))}"
              f"&lang={language}")
    page.wait_for_function("[...document.querySelectorAll('section.mini .board')]"
                           ".every((board) => board.querySelector('.cell'))", timeout=15000)
    page.wait_for_timeout(500)
    assert page.locator(".tile-game").all_inner_texts() == titles
    for name in page.locator(".mini .team .name").all():
        lines = name.evaluate(NAME_LINES)
        assert not lines["overflows"], lines
        if lines["text"] == NARA:
            assert set(lines["starts"]) <= NARA_WORDS, lines
        else:  # a line starts only after a space
            assert all(lines["text"][i - 1] == " " for i in lines["starts"]), lines


@pytest.fixture
def published(transactional_db):
    return imported("kakomimasu/random24_s42_0")


@pytest.fixture
def tall(transactional_db):
    """A board taller than wide: in a wide frame it fills the height, from the top."""
    return imported("procon2020/random_s7_00")


EMBED = """async ([scores, lead]) => {
  const { showTurn } = await import("/static/matches/embed.js");
  const data = JSON.parse(document.getElementById("fixed-turn").textContent);
  Object.assign(data, { lead });
  data.state.scores = scores;
  showTurn(document.querySelector("section.mini"), data);
}"""

WHOLE_NUMBER = """() => [...document.querySelectorAll(".team")].map((card) => {
  const total = card.querySelector(".total");
  const line = parseFloat(getComputedStyle(total).fontSize) * 1.6;
  const box = total.getBoundingClientRect(), outer = card.getBoundingClientRect();
  return { text: total.textContent, oneLine: box.height <= line,
           inside: total.scrollWidth <= total.clientWidth + 1 && box.right <= outer.right + 1 };
})"""


def test_an_embed_keeps_a_four_digit_number_and_its_mark_on_one_line(
        live_server_process, published, browser):
    page = browser.new_page(viewport={"width": 640, "height": 400})
    page.goto(f"{live_server_process}/matches/{published}/embed?turn=3")
    page.wait_for_selector(".board .cell")
    scores = [{"wall": 1000, "territory": 25, "total": 1025},
              {"wall": 270, "territory": 0, "total": 270}]
    page.evaluate(EMBED, [scores, rules_for("kakomimasu").lead(scores)])
    page.wait_for_timeout(200)
    cards = page.evaluate(WHOLE_NUMBER)
    assert [card["text"] for card in cards] == ["1025", "270"]
    assert page.locator('[data-team="0"]').get_attribute("class").split().count("leader") == 1
    assert all(card["oneLine"] and card["inside"] for card in cards), cards


# Each callout's box (one by each edge and corner of the board, and by a cell near its
# top) against every box above it that clips what it holds.
CALLOUT_CUT = """async () => {
  const { drawCallouts } = await import("/static/matches/venue/callouts.js");
  const board = document.querySelector(".board");
  const cols = Number(board.style.getPropertyValue("--cols")) || 10;
  const rows = Number(board.style.getPropertyValue("--rows")) || 10;
  const cells = [[0, 0], [cols - 1, 0], [Math.floor(cols / 2), 2], [0, rows - 1],
                 [cols - 1, rows - 1], [Math.floor(cols / 2), rows - 1]];
  const cut = [];
  for (const [index, at] of cells.entries()) {
    drawCallouts(board, [{ text: "Đội Hà Nội Phương Đông +29: khép vùng lãnh thổ tại "
                           + `(${at[0]}, ${at[1]})`, team: 0, at }], 900 + index);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const callout = board.querySelector(".callout").getBoundingClientRect();
    for (let node = board.parentElement; node; node = node.parentElement) {
      if (getComputedStyle(node).overflow === "visible") continue;
      const box = node.getBoundingClientRect();
      if (callout.top < box.top - 1 || callout.left < box.left - 1 || callout.right > box.right + 1
          || callout.bottom > box.bottom + 1) cut.push(`${at}: ${node.className || node.tagName}`);
    }
  }
  return cut;
}"""


def test_a_callout_by_any_edge_of_the_board_is_not_cut(live_server_process, tall, browser):
    page = browser.new_page(viewport={"width": 640, "height": 400}, reduced_motion="reduce")
    page.goto(f"{live_server_process}/matches/{tall}/embed?turn=3")
    page.wait_for_selector(".board .cell")
    page.wait_for_timeout(200)
    assert page.evaluate(CALLOUT_CUT) == []


# Where the board and the cards stand after each of the countdown's words (as a step,
# the next turn's countdown, nothing) and each team leading in turn.
POSITIONS = """(said) => {
  const countdown = document.querySelector("[data-countdown]");
  const where = () => ["section.mini .board", '[data-team="0"]', '[data-team="1"]']
    .map((part) => Math.round(document.querySelector(part).getBoundingClientRect().top)).join();
  const seen = new Set();
  for (const words of said) {
    countdown.textContent = words;
    countdown.dataset.kind = words ? "step" : "";
    for (const leader of [0, 1]) {
      for (const team of [0, 1]) {
        document.querySelector(`[data-team="${team}"]`).classList.toggle("leader", team === leader);
      }
      seen.add(where());
    }
  }
  return [...seen];
}"""


@pytest.fixture
def running(transactional_db):
    return make_match(teams=("Collector", "Hunter"), turns=100)[0].pk


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_nothing_on_the_tv_moves_as_the_steps_come(live_server_process, running, browser,
                                                   size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{live_server_process}/tv/?lang=vi")
    page.wait_for_selector(".tv-stage .board .cell", timeout=15000)
    page.wait_for_timeout(500)
    positions = page.evaluate(POSITIONS, [
        "lượt tiếp sau 2.4 giây", "Collector · sd · tìm kiếm xuống dưới",
        "Hunter · wl · đi sang trái", "", "Collector · pu · đặt khối lên trên"])
    assert len(positions) == 1, positions


COVERED = """() => {
  const result = document.querySelector("[data-tv-result]").getBoundingClientRect();
  const tile = document.querySelector(".tv-stage > .mini").getBoundingClientRect();
  return result.left <= tile.left + 1 && result.top <= tile.top + 1
    && result.right >= tile.right - 1 && result.bottom >= tile.bottom - 1;
}"""


@pytest.fixture
def played_short(transactional_db):
    """A public match of four quick turns that starts in 2 s (team A plays it)."""
    match, tokens = make_match(strategy=1.0, transition=0.3, start_in=2, turns=4)
    return match.pk, tokens[0]


@pytest.mark.parametrize("size", [(1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_tvs_result_with_its_swing_covers_the_whole_tile(live_server_process,
                                                             played_short, browser, size):
    from tests.e2e.test_venue_screen import team_a_playing

    match_id, token = played_short
    with team_a_playing(live_server_process, match_id, token):
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.clock.install()
        page.goto(f"{live_server_process}/tv/?pause=60")
        timers_until(page, "[data-swing]:not([hidden])", 40)
        assert page.evaluate(COVERED)


# The cards of a CHaser step: the step's own numbers, ▲ and words (its message's `lead`
# and `panels`), and the turn's again once the turn's scores are drawn.
STEP_CARDS = """async () => {
  const { drawTeams } = await import("/static/matches/venue/cards.js");
  const root = document.createElement("div");
  root.innerHTML = [0, 1].map((team) => `<div class="panel team" data-team="${team}">
    <span class="name"></span><span class="total"></span><span class="details"></span>
    </div>`).join("");
  document.body.append(root);
  const turn = [{ items: 13 }, { items: 14 }];
  const stepWords = ["Cool (C) · items taken: 14", "Hot (H) · items taken: 14"];
  const step = { state: { scores: [{ items: 14 }, { items: 14 }] },
                 lead: { team: null, margin: 0, share: 0.5 },
                 panels: { en: { words: stepWords } } };
  const teams = [{ index: 0, name: "A" }, { index: 1, name: "B" }];
  const screen = { meta: { game: "chaser", headline: "items", teams },
                   lead: { team: 1, margin: 1, share: 0.48 }, step, history: [],
                   panel: { words: ["Cool (C) · items taken: 13", "Hot (H) · items taken: 14"] } };
  const read = () => [0, 1].map((team) => {
    const card = root.querySelector(`[data-team="${team}"]`);
    return [card.querySelector(".total").textContent, card.classList.contains("leader"),
            card.querySelector(".details").textContent];
  });
  drawTeams(root, screen, step.state.scores);
  const atStep = read();
  drawTeams(root, screen, turn);
  return { atStep, atTurn: read() };
}"""


def test_a_steps_cards_say_the_steps_numbers_and_words(live_server_process, published,
                                                       browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server_process}/matches/{published}/embed?turn=3")
    page.wait_for_selector(".board .cell")
    cards = page.evaluate(STEP_CARDS)
    assert cards["atStep"] == [["14", False, "Cool (C) · items taken: 14"],
                               ["14", False, "Hot (H) · items taken: 14"]]
    assert cards["atTurn"] == [["13", False, "Cool (C) · items taken: 13"],
                               ["14", True, "Hot (H) · items taken: 14"]]
