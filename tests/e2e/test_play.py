"""A person plays a match in the browser (/matches/<id>/play) through the answer API with
a team's token: a whole Blokus Duo game, one side by clicks and keys on the page, the
other by the built-in bot through the API; a token that is not the match's is refused."""

import json
import random
import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.bots.blokus_duo import greedy_bot, position
from matches.models import Match
from matches.rules.blokus_duo_board import legal_moves, placement
from tests.e2e.conftest import in_a_thread
from tests.factories import make_alternating_match

pytestmark = pytest.mark.e2e
DIGITS = "123456789ABCDE"
SQUARES_IN_PAGE = """async ([team, left]) => {
  const { default: rules } = await import("/static/matches/games/blokus-duo.js");
  const play = rules.play;
  const cells = [...document.querySelectorAll(".board .cell")];
  const rows = Array.from({ length: 14 }, (_, y) => cells.slice(y * 14, y * 14 + 14)
    .map((cell) => cell.classList.contains("piece-a") ? "A"
      : cell.classList.contains("piece-b") ? "B" : ".").join(""));
  return play.legal(play.view(rows, team), left).map(([x, y, piece, o]) =>
    play.squares(piece, o).map(([dx, dy]) => [x + dx, y + dy])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([a, b]) => `${a}.${b}`).join(","));
}"""


def api(base, path, token, body=None):
    request = urllib.request.Request(
        f"{base}/api{path}", data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def wait_for(base, match, token, ready, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _, shown = api(base, f"/matches/{match.pk}", token)
        if ready(shown):
            return shown
        time.sleep(0.1)
    raise AssertionError(f"the match never got there: {shown}")


def set_orientation(page, wanted):
    """Turn the chosen piece with the keys (and once in a while the buttons) until it
    shows the orientation wanted; returns the presses."""
    chosen = page.locator("[data-chosen]")
    presses = []
    current = int(chosen.get_attribute("data-orientation"))
    if current % 2 != wanted % 2:
        page.keyboard.press("f")
        presses.append("f")
    for _ in range(4):
        current = int(chosen.get_attribute("data-orientation"))
        if current == wanted:
            return presses
        if len(presses) == 2:
            page.get_by_role("button", name="Rotate").click()
        else:
            page.keyboard.press("r")
        presses.append("r")
    assert int(chosen.get_attribute("data-orientation")) == wanted
    return presses


def sign_in(page, url: str, token: str):
    """Open the play page and give it the team's token, as a person does once a tab."""
    page.goto(url)
    page.fill("[data-token-input]", token)
    page.get_by_role("button", name="Play").click()


@pytest.fixture
def private_match(transactional_db):
    return make_alternating_match(clock=600, public=False)


@pytest.fixture
def two_matches(transactional_db):
    return make_alternating_match(), make_alternating_match()


def test_a_person_plays_a_whole_blokus_duo_game_against_the_bot(private_match,
                                                                  live_server_process, browser):
    base = live_server_process
    match, tokens = private_match
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    sign_in(page, f"{base}/matches/{match.pk}/play", tokens[0])
    page.wait_for_selector(".board .cell")
    assert page.evaluate(f"sessionStorage.getItem('play-token:{match.pk}')") == tokens[0]
    assert "Alpha" in page.inner_text("[data-you]")
    rng, presses, mine = random.Random(7), [], 0
    shown = wait_for(base, match, tokens[0], lambda m: m["to_move"] == 0)
    while shown["status"] == "running":
        if shown["to_move"] == 1:
            move = greedy_bot(shown, 1, rng)
            assert api(base, f"/matches/{match.pk}/actions", tokens[1],
                       {"actions": move, "turn": shown["strategy_turn"]})[0] == 202
        else:
            state = position(shown)
            codes = legal_moves(state, 0)
            page.wait_for_function(
                f"document.querySelector('.board').dataset.shownTurn === '{shown['turn']}'")
            left = [chr(97 + i) for i in range(21) if (state.unused[0] >> i) & 1]
            # the page's legal placements are the rules' own, square for square
            assert set(page.evaluate(SQUARES_IN_PAGE, [0, left])) == (
                {",".join(f"{x}.{y}" for x, y in sorted(placement(c).cells())) for c in codes})
            code = rng.choice(codes)
            x, y, piece, orientation = (DIGITS.index(code[0]), DIGITS.index(code[1]), code[2],
                                        int(code[3]))
            page.click(f"[data-tray] [data-piece='{piece}']")
            presses += set_orientation(page, orientation)
            cell = page.locator(f".board .cell[data-x='{x}'][data-y='{y}']")
            cell.hover()
            assert page.inner_text("[data-code-line]").startswith(f"{code} · click to place")
            assert page.locator(".board .cell[data-preview='ok']").count() == len(
                placement(code).cells())
            cell.click()
            mine += 1
        turn = shown["turn"]
        shown = wait_for(base, match, tokens[0],
                         lambda m, turn=turn: m["turn"] > turn or m["status"] != "running")
        if shown["to_move"] == 1 and shown["status"] == "running":
            # the page shows the move played and the piece gone from the tray
            page.wait_for_function(
                f"document.querySelector('.board').dataset.shownTurn === '{shown['turn']}'")
            assert page.locator(f"[data-tray] [data-piece='{piece}']").is_disabled()
    played = [o["move"] for t in shown["actions"] for o in t["outcomes"][0]
              if o["result"] == "ok" and o["move"] != "----"]
    assert shown["status"] == "finished" and len(played) >= 8 and mine == len(played)
    assert "f" in presses and "r" in presses
    # the result in the server's words, as the venue shows it ("Alpha wins by 3 squares")
    words = shown["verdicts"]["en"]
    winner = shown["result"]["winner"]
    assert words.startswith("A draw" if winner is None else shown["teams"][winner]["name"])
    page.wait_for_function("([words]) => document.querySelector('[data-to-move]').textContent"
                           " === `Game over · ${words}`", arg=[words])
    assert page.locator("[data-hand]").is_hidden()
    page.close()


def test_a_token_that_is_not_the_matchs_is_refused_clearly(two_matches, live_server_process,
                                                            browser):
    base = live_server_process
    (match, _), (_, others) = two_matches
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/matches/{match.pk}/play")
    for wrong in ("not-a-token", others[0]):
        page.fill("[data-token-input]", wrong)
        page.get_by_role("button", name="Play").click()
        refusal = page.locator("[data-token-refusal]")
        refusal.wait_for(state="visible")
        assert f"not the token of a team in match {match.pk}" in refusal.inner_text()
        assert page.locator(".board .cell").count() == 0
        assert page.evaluate(f"sessionStorage.getItem('play-token:{match.pk}')") is None
        page.evaluate("document.querySelector('[data-token-refusal]').hidden = true")
    page.close()


def test_the_servers_refusal_is_shown_as_it_says_it(two_matches, live_server_process, browser):
    base = live_server_process
    (match, tokens), _ = two_matches
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{base}/matches/{match.pk}/play", tokens[0])
    page.wait_for_selector(".board .cell")
    # the page stops hearing of the match, and the team's move arrives another way (a
    # second tab): the page still offers a move the server no longer takes. (It reads
    # the match when its socket tells it of the move: that read is refused.)
    url = f"{base}/api/matches/{match.pk}"
    page.route(f"**/api/matches/{match.pk}", lambda route: route.abort())
    with page.expect_event("requestfailed", lambda request: request.url == url):
        assert api(base, f"/matches/{match.pk}/actions", tokens[0],
                   {"actions": [{"move": "55u0"}], "turn": 1})[0] == 202
    page.click("[data-tray] [data-piece='a']")
    cell = page.locator(".board .cell[data-x='4'][data-y='4']")
    cell.hover()
    assert page.inner_text("[data-code-line]").startswith("55a0 · click to place")
    cell.click()
    refusal = page.locator("[data-refusal]")
    refusal.wait_for(state="visible")
    assert refusal.inner_text() == "55a0 refused: the open strategy step is turn 2, not 1"
    page.close()


@pytest.fixture
def kakomimasu_match(transactional_db, live_server_process):
    """Made once the server is up (its start may take seconds on a loaded machine): the
    test's clicks for turn 1 must fall in that turn's strategy step."""
    from tests.factories import make_match

    return make_match(strategy=10, transition=0.5, start_in=0.5, turns=3, agents=2,
                      public=False)


def test_a_kakomimasu_turn_is_set_by_clicks_and_sent_before_the_deadline(
        kakomimasu_match, live_server_process, browser):
    base = live_server_process
    match, tokens = kakomimasu_match
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{base}/matches/{match.pk}/play", tokens[0])
    page.wait_for_function("document.querySelector('[data-countdown]').textContent"
                           ".startsWith('Turn 1 ·')")
    assert page.locator("[data-tray]").is_hidden()

    def cell(x, y):
        return page.locator(f".board .cell[data-x='{x}'][data-y='{y}']")

    # turn 1: agent 0 is chosen first, then the next one without an action
    cell(1, 1).click()
    cell(3, 2).click()
    assert page.locator("[data-agent-list] .planned").all_inner_texts() == [
        "put (1, 1)", "put (3, 2)"]
    assert cell(1, 1).locator(".plan").inner_text() == "0+"
    assert cell(3, 2).locator(".plan").inner_text() == "1+"
    page.get_by_role("button", name="Send 2 actions for turn 1").click()
    page.wait_for_function("document.querySelector('[data-sent]').textContent"
                           ".startsWith('Sent 2 actions for turn 1')")
    status, own = api(base, f"/matches/{match.pk}/actions", tokens[0])
    assert status == 200 and own["actions"] == [
        {"agent": 0, "type": "put", "x": 1, "y": 1}, {"agent": 1, "type": "put", "x": 3, "y": 2}]
    assert api(base, f"/matches/{match.pk}/actions", tokens[1],
               {"actions": [{"agent": 0, "type": "put", "x": 2, "y": 1}], "turn": 1})[0] == 202
    # both teams have sent turn 1: its step closes now instead of at its 10 s deadline (the
    # match's start moved back as far; turn 2 keeps its whole step)
    in_a_thread(lambda: Match.objects.filter(pk=match.pk).update(
        start_at=timezone.now() - timedelta(seconds=10)))
    # turn 2: the agents stand where they were put; a move changed into the removal of
    # the other team's wall next to it, one that stays, a target too far refused
    page.wait_for_function("document.querySelector('[data-countdown]').textContent"
                           ".startsWith('Turn 2 ·')", timeout=20000)
    assert page.locator("[data-agent-list] .planned").all_inner_texts() == [
        "stays (nothing set)", "stays (nothing set)"]
    cell(2, 2).click()  # agent 0 moves
    cell(3, 2).click()  # agent 1's own cell: it stays
    page.click("[data-agent-list] [data-agent='0']")
    cell(2, 1).click()
    assert page.locator("[data-agent-list] .planned").all_inner_texts() == [
        "remove (2, 1)", "stay"]
    assert cell(2, 1).locator(".plan").inner_text() == "0✕"
    assert cell(2, 2).locator(".plan").count() == 0
    cell(5, 4).click()  # agent 1 is too far from (5, 4)
    assert "is not next to agent" in page.inner_text("[data-orders-refusal]")
    page.get_by_role("button", name="Send 2 actions for turn 2").click()
    page.wait_for_function("document.querySelector('[data-sent]').textContent"
                           ".startsWith('Sent 2 actions for turn 2')")
    status, own = api(base, f"/matches/{match.pk}/actions", tokens[0])
    assert own["turn"] == 2 and own["actions"] == [
        {"agent": 0, "type": "remove", "x": 2, "y": 1}, {"agent": 1, "type": "stay"}]
    # a reload starts from what was sent for the step
    page.reload()
    page.wait_for_function("document.querySelectorAll('[data-agent-list] .planned:not(.none)')"
                           ".length === 2")
    assert page.locator("[data-agent-list] .planned").all_inner_texts() == [
        "remove (2, 1)", "stay"]
    page.close()


def test_on_a_phone_a_first_tap_shows_the_piece_and_a_second_places_it(
        two_matches, live_server_process, browser):
    base = live_server_process
    (match, tokens), _ = two_matches
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    sign_in(page, f"{base}/matches/{match.pk}/play", tokens[0])
    page.wait_for_selector(".board .cell")
    page.tap("[data-tray] [data-piece='a']")
    cell = page.locator(".board .cell[data-x='4'][data-y='4']")
    cell.tap()
    assert page.inner_text("[data-code-line]").startswith("55a0 · click to place")
    page.wait_for_timeout(300)
    assert api(base, f"/matches/{match.pk}", tokens[0])[1]["turn"] == 0
    cell.tap()
    wait_for(base, match, tokens[0], lambda m: m["turn"] == 1)
    assert api(base, f"/matches/{match.pk}", tokens[0])[1]["actions"][0]["outcomes"][0] == [
        {"move": "55a0", "result": "ok"}]
    context.close()


@pytest.fixture
def short_clocks(transactional_db):
    return make_alternating_match(clock=25)


def test_both_clocks_are_shown_the_movers_running_and_under_30_s_in_the_warning_colour(
        short_clocks, live_server_process, browser):
    match, tokens = short_clocks
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{live_server_process}/matches/{match.pk}/play", tokens[1])
    page.wait_for_selector(".board .cell")
    assert page.inner_text("[data-to-move]") == "Alpha to move"
    def seconds(team):
        return float(page.inner_text(f"[data-clock='{team}']").removesuffix(" s"))

    first = seconds(0)
    page.wait_for_timeout(1200)
    assert first - 2 < seconds(0) < first - 0.5  # the mover's clock runs between reads
    assert page.inner_text("[data-clock='1']") == "25.0 s"
    assert page.locator(".clock-row.running [data-clock='0']").count() == 1
    assert "low" in page.get_attribute("[data-clock='0']", "class")
    page.close()


@pytest.fixture
def procon2020_match(transactional_db):
    from tests.commands.calls import run

    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:4",
                             "--teams", "Hà Nội", "Đà Nẵng", "--strategy-seconds", "3600",
                             "--start-in", "0", "--json"))
    return printed["id"], [team["token"] for team in printed["teams"]]


def test_a_procon2020_turn_is_set_by_clicks(procon2020_match, live_server_process, browser):
    base = live_server_process
    match_id, tokens = procon2020_match
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{base}/matches/{match_id}/play", tokens[0])
    page.wait_for_function("document.querySelector('[data-countdown]').textContent"
                           ".startsWith('Turn 1 ·')")
    state = api(base, f"/matches/{match_id}", tokens[0])[1]["state"]
    (x, y), cells = state["agents"][0][0], state["cells"]
    dx, dy = next((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx or dy)
                  and 0 <= y + dy < len(cells) and 0 <= x + dx < len(cells[0])
                  and cells[y + dy][x + dx] == ".")
    page.click(f".board .cell[data-x='{x + dx}'][data-y='{y + dy}']")
    assert page.locator("[data-agent-list] .planned").first.inner_text().startswith("move ")
    count = len(state["agents"][0])
    assert page.locator(f".board .cell[data-x='{x + dx}'][data-y='{y + dy}'] .plan").inner_text(
    ) == "0→"
    page.get_by_role("button", name="Send 1 action for turn 1").click()
    page.wait_for_function("document.querySelector('[data-sent]').textContent"
                           ".startsWith('Sent 1 action for turn 1')")
    own = api(base, f"/matches/{match_id}/actions", tokens[0])[1]
    assert own["actions"] == [{"agent": 0, "type": "move", "dx": dx, "dy": dy}]
    assert page.locator("[data-agent-list] li").count() == count
    page.close()


@pytest.fixture
def two_short_games(transactional_db):
    from tests.commands.calls import run

    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:5",
                             "--teams", "Huế", "Cần Thơ", "--turns", "1",
                             "--strategy-seconds", "1", "--transition-seconds", "0",
                             "--between", "3", "--start-in", "2", "--json"))
    return printed["games"], printed["teams"][1]["token"]


def test_the_end_of_a_first_game_leads_to_the_second_with_the_same_token(
        two_short_games, live_server_process, browser):
    (first, second), token = two_short_games
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{live_server_process}/matches/{first}/play", token)
    page.locator("[data-side]").wait_for(state="visible")
    assert page.locator("[data-title]").inner_text().endswith("· game 1 of 2")
    link = page.locator("[data-next-game]")
    link.wait_for(state="visible", timeout=15_000)
    assert link.inner_text() == "Play game 2 of 2 →"
    link.click()
    page.wait_for_url(f"**/matches/{second}/play")
    page.locator("[data-side]").wait_for(state="visible")  # no token asked again
    assert page.locator("[data-token-form]").is_hidden()
    assert page.locator("[data-title]").inner_text().endswith("· game 2 of 2")
    assert page.locator("p[data-you]").inner_text() == "You play B · Cần Thơ"
    page.close()


@pytest.fixture
def moved(transactional_db):
    """A Kakomimasu match whose agent 0 was put on (2, 2), then moved to (3, 2)."""
    from matches.services.transition import turn_resolve
    from tests.factories import make_match, put, submit

    match, tokens = make_match(turns=5, public=False)
    for number, action in enumerate([put(0, 2, 2), {"agent": 0, "type": "move", "x": 3, "y": 2}],
                                    start=1):
        submit(match, tokens[0], [action], number)
        turn_resolve(match_id=match.pk, number=number, now=match.deadline(number))
    return match, tokens


def test_the_play_page_draws_the_last_turns_move_the_server_says(moved, live_server_process,
                                                                 browser):
    """The server's `last` (the rules' marks, as every screen draws them): the play page
    had worked the marks out from the state alone, which does not say where a Kakomimasu
    agent came from, and drew no move."""
    match, tokens = moved
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sign_in(page, f"{live_server_process}/matches/{match.pk}/play", tokens[0])
    page.wait_for_function("document.querySelector('.board')?.dataset.shownTurn === '2'")
    assert page.locator(".board svg.moves g.team-a").count() == 1
    chevrons = page.get_attribute(".board svg.moves g.team-a polyline", "points")
    assert all(2.5 < float(point.split(",")[0]) < 3.5 for point in chevrons.split())  # x: 2 → 3
    page.close()
