"""The scripts' words in Japanese, in a real Chromium: the venue screen, the replay, the
front page and the play page of a match played to its end show no word of the English
catalogue (what they build themselves included), and a Vietnamese screen shows the
server's verdict in Vietnamese."""

import pytest

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match, move, put, submit
from tests.i18n.test_pages import WORD, english_words

pytestmark = pytest.mark.e2e

# The text a person sees: text nodes and the words of title, aria-label, placeholder and
# alt, but not code, kbd, pre, textarea, scripts, nor what is marked translate="no".
SHOWN_TEXT = """() => {
  const skipped = "code, kbd, pre, textarea, script, style, template, [translate='no'], [hidden]";
  const said = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const words = node.textContent.trim();
    if (words && !node.parentElement.closest(skipped)) said.push(words);
  }
  const named = document.body.querySelectorAll("[title], [aria-label], [placeholder], [alt]");
  for (const element of named) {
    if (element.closest(skipped)) continue;
    for (const name of ["title", "aria-label", "placeholder", "alt"]) {
      if (element.getAttribute(name)) said.push(element.getAttribute(name));
    }
  }
  return said;
}"""


@pytest.fixture
def finished(transactional_db):
    match, tokens = make_match(turns=3, teams=("東京", "大阪"))
    plays = [([put(0, 0, 0), put(1, 1, 1)], [put(0, 3, 3)]), ([move(0, 1, 0)], [move(0, 2, 2)]),
             ([], [])]
    for number, actions in enumerate(plays, start=1):
        for team, team_actions in enumerate(actions):
            if team_actions:
                submit(match, tokens[team], team_actions, number)
        turn_resolve(match_id=match.pk, number=number)
    Match.objects.filter(pk=match.pk).update(published=True, title="東京 対 大阪")
    return Match.objects.get(pk=match.pk)


def left_in_english(page, vocabulary) -> list[str]:
    return [text for text in page.evaluate(SHOWN_TEXT)
            if {w.lower() for w in WORD.findall(text) if len(w) > 2} & vocabulary]


def test_the_scripts_pages_are_in_japanese(finished, live_server_process, browser):
    vocabulary = english_words()
    problems, opened = [], []
    for path, ready in ((f"/matches/{finished.pk}/", ".board .cell"),
                        (f"/matches/{finished.pk}/replay", ".board .cell"),
                        ("/", ".match-row"), (f"/matches/{finished.pk}/play", "form")):
        for size in ((1920, 1080), (390, 844)):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(f"{live_server_process}{path}?lang=ja")
            page.wait_for_selector(ready)
            opened.append((f"{path} {size[0]}", page))
    # every page open together for 1.5 s more: the socket's snapshot, the result, the lists
    opened[-1][1].wait_for_timeout(1500)
    for name, page in opened:
        assert page.evaluate("document.documentElement.lang") == "ja"
        problems += [f"{name}: {text!r}" for text in left_in_english(page, vocabulary)]
        page.close()
    assert not problems, "left in English:\n" + "\n".join(problems)


def test_a_vietnamese_venue_shows_the_servers_verdict_in_vietnamese(finished,
                                                                   live_server_process,
                                                                   browser):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{live_server_process}/matches/{finished.pk}/?lang=vi")
    page.wait_for_selector(".result-card:not([hidden]) .verdict")
    verdict = page.inner_text(".result-card .verdict")
    assert "thắng" in verdict or "Hòa" in verdict or "hòa" in verdict, verdict
    page.close()


@pytest.fixture
def untitled(transactional_db):
    return make_match(teams=("東京", "大阪"))[0]


def test_an_untitled_match_is_named_in_the_venue_s_language(untitled, live_server_process,
                                                             browser):
    """The venue's title line said "Match 12" in English on a Japanese or Vietnamese
    screen: the socket's one title was the server's default language's."""
    match = untitled
    for language, named in (("ja", f"試合 {match.pk}"), ("vi", f"Trận {match.pk}")):
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{live_server_process}/matches/{match.pk}/?lang={language}")
        page.wait_for_function(
            "document.querySelector('#venue').dataset.phase !== 'connecting'")
        assert page.inner_text("[data-title]").startswith(named), page.inner_text("[data-title]")
        page.close()


# Matches whose last turn failed actions for reasons with values inside: an agent's
# name (Kakomimasu, Procon 2020), a piece (Blokus Duo), a quote of a command (CHaser).
REASONED = ["kakomimasu/random_s7_00", "procon2020/move_into_staying_agent",
            "blokus-duo/edge_contact_forbidden", "chaser/unknown_command_fault"]


@pytest.fixture
def reasoned(transactional_db):
    from matches.rules.records import parse_record
    from matches.services.archive import match_import
    from tests.e2e.test_venue_panels import VECTORS
    found = {}
    for vector in REASONED:
        record = parse_record((VECTORS / f"{vector}.record.json").read_bytes())
        match = match_import(record, published=True)
        found[vector] = (match.pk, match.turns)
    return found


@pytest.mark.parametrize("language", ["ja", "vi"])
def test_the_reasons_of_failed_actions_are_said_in_the_pages_language(reasoned, language,
                                                                      live_server_process,
                                                                      browser):
    vocabulary = english_words()
    problems, shown = [], 0
    for vector, (match_id, turns) in reasoned.items():
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{live_server_process}/matches/{match_id}/?lang={language}")
        page.wait_for_selector("[data-failures] .summary :is(.conflict, .invalid)")
        page.wait_for_timeout(300)  # the list fits the room the cards leave
        venue = page.locator("[data-failures] li .why").all_inner_texts()
        page.goto(f"{live_server_process}/matches/{match_id}/replay?turn={turns}&lang={language}")
        page.wait_for_selector("[data-actions] .reason")
        replay = page.locator("[data-actions] .reason").all_inner_texts()
        page.close()
        shown += len(venue)  # the venue lists what fits (Blokus Duo's trays leave no room)
        assert replay, f"{vector}: the replay shows no reason"
        for where, texts in (("venue", venue), ("replay", replay)):
            problems += [f"{vector} {where}: {text!r}" for text in texts
                         if {w.lower() for w in WORD.findall(text) if len(w) > 2} & vocabulary]
    assert shown >= 3 and not problems, "reasons left in English:\n" + "\n".join(problems)


# Where a line breaks inside a word: between two katakana of one word ("ゲ|ーム"), or
# inside a score ("37 –|13"). Each text node is read a character at a time.
BROKEN_WORDS = """() => {
  const kana = /[\\u30A0-\\u30FF]/;
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent;
    if (!/[\\u30A0-\\u30FF]{2}|\\d \\u2013 [\\u2212\\d]/.test(text)) continue;
    if (!node.parentElement.checkVisibility()) continue;
    range.selectNodeContents(node);
    if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size < 2) continue;
    const scores = [...text.matchAll(/[\\u2212\\d]+ \\u2013 [\\u2212\\d]+/g)]
      .map((found) => [found.index, found.index + found[0].length]);
    let top = null;
    for (let i = 0; i < text.length; i += 1) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect || !rect.width) continue;
      const inWord = kana.test(text[i]) && kana.test(text[i - 1] || "");
      const inScore = scores.some(([start, end]) => i > start && i < end);
      if (top !== null && rect.top > top + 2 && (inWord || inScore)) {
        broken.push(`${text.slice(Math.max(0, i - 8), i)}|${text.slice(i, i + 8)}`);
      }
      top = rect.top;
    }
  }
  return broken;
}"""


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_japanese_lines_break_between_words_never_inside_one(reasoned, finished, size,
                                                             live_server_process, browser):
    ids = ",".join(str(match_id) for match_id, _ in reasoned.values())
    paths = ["/", "/matches/", f"/screens/?matches={ids}", "/tv/"]
    shown = [*reasoned.values(), (finished.pk, 3)] if size[0] < 900 else [(finished.pk, 3)]
    for match_id, _ in shown:  # every match's screens on a phone, where most lines wrap
        paths += [f"/matches/{match_id}/", f"/matches/{match_id}/replay"]
    opened = []
    for path in paths:
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.goto(f"{live_server_process}{path}{'&' if '?' in path else '?'}lang=ja")
        opened.append((path, page))
    opened[-1][1].wait_for_timeout(1500)  # every page open together: its snapshot, lists
    problems = []
    for path, page in opened:
        problems += [f"{path}: {piece!r}" for piece in page.evaluate(BROKEN_WORDS)]
        page.close()
    assert not problems, "broken inside a word:\n" + "\n".join(problems)
