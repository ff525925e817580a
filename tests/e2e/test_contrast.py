"""Contrast of the venue screen's key elements, from the colours Chromium computes, in
both themes: text at least 4.5:1 against what is behind it, marks and fills that carry
meaning (territory, walls, agents, failure marks, moves) at least 3:1 (WCAG 2's relative
luminance). A mark counts as seen when its fill or its edge stands out from the cell
under it, as an outlined badge on a cell of its own colour does."""

from pathlib import Path

import pytest

from matches.rules.records import parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.e2e
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
# 24 × 24, both teams' walls and territory, 14 agents, two conflicts on the last turn.
KAKOMIMASU = "kakomimasu/random24_s42_0"
# Procon 2020 with an invalid action on the last turn (obstacles, treasures, areas).
PROCON = "procon2020/invalid_actions"
THEMES = ("light", "dark")

# In the page: colours as [r, g, b, a], luminance, contrast, and what lies behind an
# element (the first ancestor with an opaque background colour).
MEASURE = """
() => {
  for (const animation of document.getAnimations()) animation.finish();  // a score's flash
  const rgba = (text) => {
    const parts = text.match(/[\\d.]+/g).map(Number);
    return parts.length === 3 ? [...parts, 1] : parts;
  };
  const channel = (c) => {
    c /= 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const ratio = (a, b) => {
    const [x, y] = [luminance(rgba(a)), luminance(rgba(b))].sort((m, n) => n - m);
    return (x + 0.05) / (y + 0.05);
  };
  const behind = (node) => {
    for (let at = node; at; at = at.parentElement) {
      const colour = getComputedStyle(at).backgroundColor;
      if (rgba(colour)[3] === 1) return colour;
    }
    return getComputedStyle(document.documentElement).backgroundColor;
  };
  const style = (node, pseudo) => getComputedStyle(node, pseudo);
  const text = (node) => ratio(style(node).color, behind(node));
  // a mark's fill, its edge or its casing (a box-shadow line), against the cell under it
  const mark = (node, pseudo, ...parts) => {
    const under = behind(node.closest(".cell"));
    const seen = parts.map((part) => style(node, pseudo)[part])
      .map((value) => value.match(/rgba?\\([^)]*\\)/)?.[0]).filter((c) => c && rgba(c)[3] === 1);
    return Math.max(...seen.map((c) => ratio(c, under)));
  };
  const cells = [...document.querySelectorAll(".board .cell")];
  const kinds = {};
  for (const cell of cells) {
    const kind = [...cell.classList].filter((name) => name !== "cell").sort().join(" ") || "plain";
    const points = cell.querySelector(".points");
    if (points?.checkVisibility()) kinds[kind] = Math.min(kinds[kind] ?? 99, text(points));
  }
  const first = (selector) => document.querySelector(`.board ${selector}`);
  const fill = (selector) => style(first(selector)).backgroundColor;
  const neutral = fill(".cell.neutral");
  const wall = (team) => {
    const cell = first(`.cell.wall-${team}`);
    const { backgroundColor, borderTopColor } = style(cell);
    return Math.max(ratio(backgroundColor, neutral), ratio(borderTopColor, neutral));
  };
  const agents = [...document.querySelectorAll(".board .agent")];
  const badges = agents.map((agent) => agent.querySelector(".agent-no") || agent);
  const failures = [...document.querySelectorAll(".board .failure")];
  const least = (nodes, ...parts) => Math.min(...nodes.map((node) => mark(node, ...parts)));
  const glyphs = failures.map((failure) => failure.querySelector(".failure-glyph") || failure);
  return {
    names: [0, 1].map((team) => text(document.querySelector(`[data-team="${team}"] .name`))),
    scores: [0, 1].map((team) => text(document.querySelector(`[data-team="${team}"] .total`))),
    values: kinds,
    territory: ["a", "b"].map((team) => ratio(fill(`.cell.land-${team}`), neutral)),
    territoryPattern: ["a", "b"].map((team) => style(first(`.cell.land-${team}`)).backgroundImage),
    wallPattern: ["a", "b"].map((team) => style(first(`.cell.wall-${team}`)).backgroundImage),
    walls: ["a", "b"].map(wall),
    agents: agents.length,
    badges: least(badges, null, "backgroundColor", "borderTopColor"),
    badgeText: Math.min(...badges.map(text)),
    rings: least(agents, "::before", "borderTopColor", "boxShadow"),
    failures: failures.map((failure) => failure.className),
    frames: least(failures, null, "borderTopColor", "boxShadow"),
    glyphs: least(glyphs, null, "backgroundColor", "borderTopColor"),
    glyphText: Math.min(...glyphs.map(text)),
    coordinates: [...document.querySelectorAll(".board .coord.x, .board .coord.y")].map(text),
    // a changed number's flash on its card, and a treasure's gold on an empty cell
    flash: (() => {
      const card = document.querySelector('[data-team="0"] .total');
      const probe = document.createElement("span");
      probe.style.cssText = "color: var(--flash); background-color: var(--flash-bg)";
      card.append(probe);
      const { color, backgroundColor } = getComputedStyle(probe);
      const ground = rgba(backgroundColor)[3] === 1 ? backgroundColor : behind(card);
      probe.remove();
      return ratio(color, ground);
    })(),
    gold: (() => {
      const probe = document.createElement("span");
      probe.style.cssText = "color: var(--gold)";
      document.body.append(probe);
      const found = ratio(getComputedStyle(probe).color, neutral);
      probe.remove();
      return found;
    })(),
    // the last turn's conflicts and invalid actions in words, beside the board
    failureWords: [...document.querySelectorAll("[data-failures] *")]
      .filter((node) => [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()))
      .map((node) => [node.textContent.trim().slice(0, 30), text(node)]),
  };
}
"""


@pytest.fixture
def imported(transactional_db):
    """Published before the browser starts (Playwright's loop forbids database calls)."""
    return {vector: match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                                 published=True).pk for vector in (KAKOMIMASU, PROCON)}


def measure(browser, base, match_id, theme):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{base}/matches/{match_id}/?theme={theme}")
        page.wait_for_function("document.querySelector('.board').dataset.shownTurn > 0")
        return page.evaluate(MEASURE)
    finally:
        page.close()


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_text_and_marks_stand_out_in_both_themes(live_server_process, imported, browser, theme):
    seen = measure(browser, live_server_process, imported[KAKOMIMASU], theme)
    assert min(seen["names"]) >= 4.5 and min(seen["scores"]) >= 4.5, seen
    assert {"neutral", "wall-a", "wall-b", "land-a", "land-b"} <= set(seen["values"])
    assert min(seen["values"].values()) >= 4.5, seen["values"]  # every kind of cell
    assert len(seen["coordinates"]) == 48 and min(seen["coordinates"]) >= 4.5  # x and y, 0-23
    # territory stands out from neutral cells, and is hatched where a wall is solid
    assert min(seen["territory"]) >= 3, seen["territory"]
    assert all("gradient" in image for image in seen["territoryPattern"])
    assert seen["wallPattern"] == ["none", "none"]
    assert min(seen["walls"]) >= 3, seen["walls"]
    # 14 agents a team, each a badge and a ring that read on whatever cell it stands on
    assert seen["agents"] == 28
    assert seen["badges"] >= 3 and seen["rings"] >= 3 and seen["badgeText"] >= 4.5, seen
    # the last turn's two conflicts: a framed cell and a large mark
    assert seen["failures"] == ["failure conflict"] * 2
    assert seen["frames"] >= 3 and seen["glyphs"] >= 3 and seen["glyphText"] >= 4.5, seen
    assert seen["failureWords"] and all(ratio >= 4.5 for _, ratio in seen["failureWords"]), seen
    assert seen["flash"] >= 3 and seen["gold"] >= 3, seen  # the highlight, the treasures


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_invalid_marks_and_areas_stand_out_in_procon2020(live_server_process, imported,
                                                         browser, theme):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{live_server_process}/matches/{imported[PROCON]}/?theme={theme}")
        page.wait_for_function("document.querySelector('.board').dataset.shownTurn > 0")
        seen = page.evaluate(MEASURE.replace(".land-${team}", ".tile-${team}")
                             .replace(".wall-${team}", ".tile-${team}"))
    finally:
        page.close()
    assert "failure invalid" in seen["failures"]
    assert seen["frames"] >= 3 and seen["glyphs"] >= 3 and seen["glyphText"] >= 4.5, seen
    assert min(seen["values"].values()) >= 4.5, seen["values"]


def test_the_theme_switch_shows_the_theme_in_use_and_goes_back(live_server_process, imported,
                                                                browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{live_server_process}/matches/{imported[KAKOMIMASU]}/?theme=light")
        light, dark = (page.locator(f'[data-theme-choice="{name}"]') for name in THEMES)
        page.mouse.move(640, 400)  # the venue's switches wait for the pointer to move
        light.wait_for(state="visible")
        assert dark.is_visible()
        assert light.get_attribute("aria-pressed") == "true"
        assert dark.get_attribute("aria-pressed") == "false"
        dark.click()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert "theme=" not in page.url and dark.get_attribute("aria-pressed") == "true"
        page.reload()  # the choice is kept, and the address no longer forces light
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert dark.get_attribute("aria-pressed") == "true"
    finally:
        page.close()
