"""A real Chromium reads the venue screen's side panel and its cards: full team names at
every size, one "starts in" before the start, the end in words, "reconnecting…" in the
countdown's place, the last turn's failures in full, and each game's own parts."""

import re
from pathlib import Path

import pytest

from matches.live import messages
from matches.models import Team
from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.e2e
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
LONG = ("Đội Hà Nội Phương Đông", "Nara 奈良高専 プロコン部")
SIZES = [(1920, 1080), (1280, 800), (390, 844)]
VERY_LONG = ("Trường THPT Chuyên Khoa học Tự nhiên, Đại học Quốc gia Hà Nội — "
             "Đội tuyển lập trình Procon 2026")


def imported(vector):
    record = parse_record((VECTORS / f"{vector}.record.json").read_bytes())
    match = match_import(record, published=True)
    return match.pk, messages.snapshot(match)["verdict"]


@pytest.fixture
def matches(transactional_db):
    """Made before the browser starts: Playwright's loop forbids database calls after."""
    upcoming, _ = make_match(teams=LONG, start_in=600)
    running, _ = make_match(teams=LONG)  # turn 1's strategy step is open for an hour
    longest, _ = make_match(teams=(VERY_LONG, "Beta"))
    Team.objects.filter(match=longest, index=0).update(short="HUS")
    voided, _ = make_match(teams=("Alpha", "Beta"))
    from matches.services.control import match_void

    match_void(match_id=voided.pk, reason="the hall's power failed", judge="judy")
    return {"voided": voided.pk, "upcoming": upcoming.pk, "running": running.pk,
            "longest": longest.pk,
            "kakomimasu": imported("kakomimasu/conflict_same_target"),
            "invalid": imported("kakomimasu/bad_actions_duplicate_unknown_offboard"),
            "trapped": imported("chaser/item_block_traps_self"),
            "blokus": imported("blokus-duo/random_s7_00")}


@pytest.fixture
def open_page(matches, live_server_process, pages):
    def open_at(match_id, size=(1920, 1080), ready=".board .cell", before=None):
        page = pages.open(f"{live_server_process}/matches/{match_id}/", size, before)
        page.wait_for_selector(ready)
        page.wait_for_function("document.querySelector('#venue').dataset.phase !== 'connecting'")
        return page

    return open_at


NAME_FITS = """(node) => {
  const style = getComputedStyle(node);
  return {text: node.textContent, fits: node.scrollWidth <= node.clientWidth,
          ellipsis: style.textOverflow === "ellipsis" && style.overflow === "hidden",
          lines: Math.round(node.getBoundingClientRect().height / parseFloat(style.lineHeight))};
}"""


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_full_team_names_are_never_cut(open_page, matches, size):
    page = open_page(matches["running"], size)
    for team, name in enumerate(LONG):
        shown = page.locator(f'[data-team="{team}"] .name').evaluate(NAME_FITS)
        assert shown["text"] == name
        assert shown["fits"] and not shown["ellipsis"]
        assert shown["lines"] <= 2


def test_a_name_that_cannot_fit_shows_the_short_code_and_keeps_the_full_name(
        open_page, matches):
    assert len(VERY_LONG) <= 100
    page = open_page(matches["longest"], (1280, 800))
    name = page.locator('[data-team="0"] .name')
    assert name.inner_text() == "HUS" and name.get_attribute("title") == VERY_LONG
    assert name.evaluate(NAME_FITS)["fits"]


def test_before_the_start_one_countdown_and_no_empty_panels(open_page, matches):
    page = open_page(matches["upcoming"])
    page.wait_for_selector("[data-start]:not([hidden])")
    starts_in = page.inner_text("[data-starts-in]")
    assert re.fullmatch(r"(9|10):\d\d", starts_in), starts_in
    assert page.inner_text("[data-countdown]") == ""  # no second countdown
    assert page.inner_text("[data-status]") == "upcoming"
    assert not page.is_visible("svg.chart") and not page.is_visible("[data-failures]")


LINES = """(box) => {
  const bottom = box.getBoundingClientRect().bottom;
  return [...box.querySelectorAll("li")].map((line) => ({
    text: line.textContent, inside: line.getBoundingClientRect().bottom <= bottom + 1,
    whole: line.scrollWidth <= line.clientWidth
           && getComputedStyle(line).textOverflow !== "ellipsis"}));
}"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_failures_have_a_headline_and_whole_reasons(open_page, matches, size):
    """Seven invalid actions: "✕ 7 invalid", then whole lines; "+k more" for the rest."""
    match_id, _ = matches["invalid"]
    page = open_page(match_id, size, ready="[data-failures] .summary .invalid")
    page.wait_for_timeout(300)  # the list fits the room the cards leave
    summary = page.inner_text("[data-failures] .summary")
    assert summary.startswith("✕ 7 invalid")
    lines = page.locator("[data-failures]").evaluate(LINES)
    assert all(line["inside"] and line["whole"] for line in lines), lines
    reasons = [line["text"] for line in lines if not line["text"].startswith("+")]
    assert all(re.match(r"✕[AB]\d", text) and ": " in text for text in reasons), reasons
    if not reasons:  # no room for a whole line: the count joins the headline
        assert summary.endswith("+7 more")
    elif len(reasons) < 7:  # on a line of its own, or beside the headline where that
        more = f"+{7 - len(reasons)} more"  # line would leave no room for a reason
        assert lines[-1]["text"] == more or summary.endswith(more), (lines, summary)
    assert size != (1920, 1080) or len(reasons) >= 2


def test_the_end_says_who_won_by_how_much(open_page, matches):
    match_id, verdict = matches["kakomimasu"]
    page = open_page(match_id, ready="[data-result]:not([hidden])")
    assert re.fullmatch(r"\S.* wins by \d+ points?|A draw: .*", verdict)
    assert page.inner_text("[data-result] .verdict") == verdict
    assert page.inner_text("[data-status]") == "finished"


def test_a_void_match_s_card_gives_the_reason_and_no_final_score(open_page, matches):
    """Its card read "final 511 – 544" under "Void by the judges": a score that counts
    nowhere."""
    page = open_page(matches["voided"], ready="[data-result]:not([hidden])")
    assert page.inner_text("[data-result] .verdict") == \
        "Void by the judges: the hall's power failed"
    assert page.inner_text("[data-result] .final") == "stopped at turn 0"


def test_chaser_says_why_the_game_ended(open_page, matches):
    match_id, verdict = matches["trapped"]
    page = open_page(match_id, ready="[data-result]:not([hidden])")
    assert page.inner_text("[data-result] .verdict") == "Hot wins: Cool is boxed in"
    # the blocks that box Cool in, ringed on the board
    assert page.locator(".board .cell.decisive.block").count() == 4
    assert page.get_attribute("[data-result]", "data-winner") == "1"
    assert "items taken: 1" in page.inner_text('[data-team="0"] .details')
    assert page.locator(".share-a").evaluate("(bar) => bar.style.width") == "0%"


def test_blokus_duo_trays_and_moves_in_words(open_page, matches):
    match_id, _ = matches["blokus"]
    page = open_page(match_id, ready=".tray:not([hidden]) svg.piece")
    for team in (0, 1):
        remaining = int(page.inner_text(f'[data-team="{team}"] .total'))
        squares = page.locator(f'[data-team="{team}"] .tray svg.piece rect').count()
        assert squares == remaining
    assert not page.is_visible(".to-move-chip")  # the game is over
    lines = page.locator("[data-failures] li").all_inner_texts()
    assert lines and all(re.search(r"piece [a-u] · \d squares? · |pass", line) for line in lines)


def test_while_reconnecting_the_countdown_says_so(open_page, matches):
    sockets = []

    def first_through_then_none(socket):
        if sockets:
            socket.close()  # the server stays out of reach
            return
        sockets.append(socket)
        socket.connect_to_server()

    def route(page):
        page.route_web_socket(re.compile(r".*/ws/matches/\d+/.*"), first_through_then_none)

    page = open_page(matches["running"], before=route)
    page.wait_for_function("document.querySelector('[data-countdown]').textContent"
                           ".startsWith('next in')")
    sockets[0].close()
    page.wait_for_function("document.querySelector('#venue').classList.contains('offline')")
    page.wait_for_timeout(300)
    assert page.inner_text("[data-countdown]") == "reconnecting…"
    assert page.inner_text("[data-status]") == "reconnecting…"


CONTRASTS = """() => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).slice(0, 4).map(Number);
  const background = (node) => {
    for (; node; node = node.parentElement) {
      const [r, g, b, a = 1] = rgb(getComputedStyle(node).backgroundColor);
      if (a === 1) return [r, g, b];
    }
    return [255, 255, 255];
  };
  const lum = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const L = ([r, g, b]) => 0.2126 * lum(r) + 0.7152 * lum(g) + 0.0722 * lum(b);
  const ratio = (a, b) => (Math.max(L(a), L(b)) + 0.05) / (Math.min(L(a), L(b)) + 0.05);
  const shown = "[data-failures] .summary > span, [data-failures] li, [data-failures] li > span, "
              + ".team .details, .team .name, [data-countdown]";
  return [...document.querySelectorAll(shown)].filter((node) => node.textContent.trim()).map(
    (node) => [node.className || node.tagName, node.textContent.slice(0, 30),
               ratio(rgb(getComputedStyle(node).color), background(node))]);
}"""


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("which", ["invalid", "trapped"])
def test_the_panels_text_reads_at_4_5_to_1(open_page, matches, live_server_process, theme,
                                           which):
    match_id, _ = matches[which]
    page = open_page(match_id, ready="[data-failures] li")
    page.goto(f"{live_server_process}/matches/{match_id}/?theme={theme}")
    page.wait_for_selector("[data-failures] li")
    seen = page.evaluate(CONTRASTS)
    assert len(seen) >= 6
    assert [shown for shown in seen if shown[2] < 4.5] == []


TITLES = """() => [...document.querySelectorAll(".tile-title")].map((title) => ({
  whole: title.scrollWidth <= title.clientWidth,
  ownLine: title.clientWidth >= title.parentElement.clientWidth - 2}))"""


@pytest.mark.parametrize("size", [(1920, 1080), (390, 844)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_an_upcoming_tile_says_when_it_starts_over_its_board(matches, live_server_process,
                                                              pages, size):
    ids = f"{matches['upcoming']},{matches['running']}"
    page = pages.open(f"{live_server_process}/screens/?matches={ids}", size)
    upcoming = page.locator(f'#match-{matches["upcoming"]}')
    upcoming.locator("[data-start]:not([hidden])").wait_for()
    assert re.fullmatch(r"(9|10):\d\d", upcoming.locator("[data-starts-in]").inner_text())
    card, board = (upcoming.locator(part).bounding_box() for part in ("[data-start]", ".board"))
    assert board["x"] <= card["x"] and card["x"] + card["width"] <= board["x"] + board["width"] + 1
    running = page.locator(f'#match-{matches["running"]}')
    assert not running.locator("[data-start]").is_visible()
    # a long title keeps a line of its own rather than three letters beside the clock
    assert all(title["whole"] or title["ownLine"] for title in page.evaluate(TITLES))


APART = """() => {
  const card = document.querySelector("[data-result]").getBoundingClientRect();
  const board = document.querySelector(".board").getBoundingClientRect();
  const overlap = Math.max(0, Math.min(card.right, board.right) - Math.max(card.left, board.left))
    * Math.max(0, Math.min(card.bottom, board.bottom) - Math.max(card.top, board.top));
  return { overlap, inView: board.bottom <= innerHeight + 1 && card.top >= 0,
           scrolls: document.documentElement.scrollHeight > innerHeight + 1 };
}"""


@pytest.mark.parametrize("language", ["en", "vi"])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_verdict_never_hides_the_final_board(matches, size, language, live_server_process,
                                                 pages):
    for key in ("kakomimasu", "trapped", "blokus"):
        match_id, _ = matches[key]
        page = pages.open(f"{live_server_process}/matches/{match_id}/?lang={language}", size)
        page.wait_for_selector("[data-result]:not([hidden])")
        page.wait_for_timeout(200)
        shown = page.evaluate(APART)
        assert shown == {"overlap": 0, "inView": True, "scrolls": False}, (key, shown)
        page.close()


@pytest.fixture
def explained(transactional_db):
    """Matches whose last turn is news: territory closed (Kakomimasu) and three agents
    colliding at one cell with territory closed too."""
    return {vector: imported(vector)[0] for vector in
            ("kakomimasu/enclosure_ring", "kakomimasu/random_s7_19")}


CALLOUTS = """() => [...document.querySelectorAll(".board .callout")].map((node) => {
  const box = node.getBoundingClientRect(), board = node.closest(".board").getBoundingClientRect();
  return { text: node.textContent, team: node.className,
           inside: box.left >= board.left - 1 && box.right <= board.right + 1
                   && box.top >= board.top - 1 && box.bottom <= board.bottom + 1,
           size: parseFloat(getComputedStyle(node).fontSize) };
})"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_last_turn_is_explained_on_the_board_in_the_pages_language(
        explained, live_server_process, pages, size):
    page = pages.open(f"{live_server_process}/matches/{explained['kakomimasu/random_s7_19']}/",
                      size)
    page.wait_for_selector(".board .callout")
    said = page.evaluate(CALLOUTS)
    assert [s["text"] for s in said] == ["⚡ 3 agents collided at (4, 8)",
                                          "A +17: territory closed at (11, 5)"], said
    assert all(s["inside"] and s["size"] >= 14 for s in said), said
    assert "team-a" in said[1]["team"]
    page = pages.open(f"{live_server_process}/matches/{explained['kakomimasu/enclosure_ring']}"
                      "/?lang=ja", size)
    page.wait_for_selector(".board .callout")
    assert page.evaluate(CALLOUTS)[0]["text"].endswith("で陣地を囲んだ")


@pytest.mark.parametrize("language", ["en", "vi"])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_blokus_duos_last_move_has_a_line_beside_the_trays(matches, size, language,
                                                           live_server_process, pages):
    match_id, _ = matches["blokus"]
    page = pages.open(f"{live_server_process}/matches/{match_id}/?lang={language}", size)
    page.wait_for_selector(".tray:not([hidden]) svg.piece")
    page.wait_for_timeout(300)  # the list fits the room the cards leave
    lines = page.locator("[data-failures] li:not(.more)").all_inner_texts()
    said = r"(piece|quân) [a-u] · \d (squares?|ô) · |pass|bỏ lượt"  # a move, or a pass
    assert lines and re.search(said, lines[0]), lines


@pytest.fixture
def long_pause(transactional_db):
    from matches.services.control import match_pause

    match, _ = make_match(teams=LONG)
    match_pause(match_id=match.pk, judge="judy", reason=(
        "会場のネットワーク機器が再起動中のため、すべての試合を一時停止しています。"
        "復旧まで数分お待ちください。奈良高専チームのルーターも確認中です。"))
    return match.pk


@pytest.mark.parametrize("size", SIZES[:2], ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_long_pause_reason_leaves_the_panels_under_the_clock_on_screen(
        long_pause, live_server_process, pages, size):
    """A long reason in Japanese beside the turn pushed the chart, the legend and the
    status chip off the venue screen: the reason now runs under the turn, three lines
    at most, the times first."""
    page = pages.open(f"{live_server_process}/matches/{long_pause}/?lang=ja", size)
    page.wait_for_selector("[data-countdown][data-kind='paused'] .paused-said")
    assert "審判により一時停止中" in page.inner_text("[data-countdown] .paused-said")
    assert page.inner_text("[data-countdown] .paused-times").strip()
    height = size[1]
    for part in (".status-line", "[data-board-legend]", ".chart-panel"):
        box = page.locator(f".side {part}").bounding_box()
        assert box and box["y"] + box["height"] <= height + 0.5, (part, box)


@pytest.fixture
def two_games(transactional_db):
    """A Procon 2020 match whose first game is over; its second to come."""
    import json
    from datetime import timedelta

    from django.utils import timezone

    from matches.models import Match
    from matches.services.transition import turn_resolve
    from tests.commands.calls import run

    made = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:1",
                          "--secret-board", "random:2", "--teams", "Hà Nội", "Huế",
                          "--turns", "2", "--strategy-seconds", "60", "--start-in", "0",
                          "--between", "600", "--public", "--json"))
    first, second = made["games"]
    Match.objects.filter(pk=first).update(start_at=timezone.now() - timedelta(minutes=10))
    for number in (1, 2):
        turn_resolve(match_id=first, number=number)
    return first, second


def test_a_game_s_venue_moves_on_to_the_match_s_next_game(two_games, live_server_process,
                                                           pages):
    """The venue stayed on game 1 of a match of two once it was over (the TV moved on)."""
    first, second = two_games
    page = pages.open(f"{live_server_process}/matches/{first}/?lang=vi", (1920, 1080),
                      before=lambda page: page.clock.install())
    page.wait_for_selector("[data-result]:not([hidden])")
    page.clock.fast_forward(21_000)  # the result has stood its while
    page.wait_for_url(f"**/matches/{second}/?lang=vi", timeout=15_000)
