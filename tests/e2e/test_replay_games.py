"""A real Chromium replays published matches of Procon 2020, CHaser and Blokus Duo (and
watches them on the venue screen): each game's board is drawn as its timeline says."""


import re

import pytest

from tests.e2e.conftest import published_vectors, vector_states

pytestmark = pytest.mark.e2e
SHOWN = [
    "procon2020/treasure_first_move_only",  # 10×10: a treasure enclosed, then taken
    "procon2020/invalid_actions",  # obstacles at (2, 1) and (7, 1)
    "chaser/items_decide",  # 7×5: Cool at (0, 0), Hot at (6, 4)
    "chaser/item_block_traps_self",  # Hot wins by trapping Cool, who has more items
    "blokus-duo/random_s7_00",
    "blokus-duo/corner_contact_required",
    "kakomimasu/random_s7_00",
    "kakomimasu/random_s7_03",  # turn 1: both totals below zero (-26 and -2)
]


@pytest.fixture
def published(transactional_db):
    """The matches, imported and published before the browser starts."""
    return published_vectors(SHOWN)


@pytest.fixture
def open_page(published, live_server_process, pages):
    def open_at(vector, path="replay", turn=None):
        query = "" if turn is None else f"?turn={turn}"
        page = pages.open(f"{live_server_process}/matches/{published[vector]}/{path}{query}",
                          console=True)
        page.wait_for_function("document.querySelector('.board').dataset.shownTurn !== undefined")
        return page

    return open_at


def at_turn(page, turn):
    page.wait_for_function(f"document.querySelector('.board').dataset.shownTurn === '{turn}'")


def classes(page, x, y):
    return set(page.get_attribute(f'.board .cell[data-x="{x}"][data-y="{y}"]', "class").split())


def marks(page, x, y, selector):
    return page.locator(f'.board .cell[data-x="{x}"][data-y="{y}"] {selector}').all_inner_texts()


def test_procon_tiles_areas_obstacles_and_treasures_until_taken(open_page):
    page = open_page("procon2020/treasure_first_move_only", turn=1)
    assert page.locator(".board .cell").count() == 100
    assert {"tile-a"} <= classes(page, 3, 3) and {"tile-b"} <= classes(page, 7, 2)
    assert marks(page, 7, 3, ".treasure-badge") == ["12"] and "treasure" in classes(page, 7, 3)
    assert len(marks(page, 7, 3, ".failure.conflict")) == 2  # both of B's agents aimed there
    page.keyboard.press("ArrowRight")  # turn 2: B takes the treasure (7, 3)
    at_turn(page, 2)
    assert "treasure" not in classes(page, 7, 3) and marks(page, 7, 3, ".agent.team-b") == ["0"]
    assert "treasure" in classes(page, 2, 3)
    assert "move ↓" in page.inner_text("[data-actions]")
    page.keyboard.press("ArrowRight")  # turn 3: A's tiles enclose (2, 3), still a treasure
    at_turn(page, 3)
    assert {"neutral", "area-a", "treasure"} <= classes(page, 2, 3)
    assert "area-a" not in classes(page, 0, 3)  # an edge cell is never enclosed
    page.keyboard.press("ArrowRight")  # turn 4: A steps on it and takes it
    at_turn(page, 4)
    assert {"tile-a"} <= classes(page, 2, 3) and "treasure" not in classes(page, 2, 3)
    assert "treasure 12" in page.inner_text('[data-team="0"] .details')
    page.keyboard.press("ArrowLeft")
    at_turn(page, 3)
    assert "treasure" in classes(page, 2, 3)

    page = open_page("procon2020/invalid_actions", turn=1)
    assert "obstacle" in classes(page, 2, 1) and "obstacle" in classes(page, 7, 1)
    assert marks(page, 2, 1, ".failure.invalid") == ["✕"]  # A's agent 1 at (2, 2) went up
    assert "target is an obstacle" in page.inner_text("[data-actions]")


def test_chaser_shows_blocks_items_cool_and_hot_and_their_replies(open_page):
    expected = vector_states("chaser/items_decide")
    page = open_page("chaser/items_decide")
    assert page.locator(".board .cell").count() == 7 * 5
    assert marks(page, 0, 0, ".agent.team-a") == ["C"]
    assert marks(page, 6, 4, ".agent.team-b") == ["H"]
    assert "item" in classes(page, 1, 0) and "block" in classes(page, 3, 2)
    assert "floor" in classes(page, 2, 0)
    page.keyboard.press("ArrowRight")  # Cool takes the item at (1, 0) and leaves a block
    at_turn(page, 1)
    assert "block" in classes(page, 0, 0) and marks(page, 1, 0, ".agent.team-a") == ["C"]
    assert "item" not in classes(page, 1, 0)
    [cool, hot] = expected[1]["agents"]
    assert marks(page, *hot[0], ".agent") == ["H"] and marks(page, *cool[0], ".agent") == ["C"]
    actions = page.inner_text("[data-actions]")
    assert "wr · walk right" in actions and "wl · walk left" in actions
    assert "reply 1 222 200 030" in actions  # Cool's reply, by rows of the 3×3 around it
    assert page.inner_text('[data-team="0"] .total') == "1"
    assert "conflict" not in actions


def test_blokus_draws_each_colour_pieces_outlines_and_start_squares(open_page):
    vector = "blokus-duo/random_s7_00"
    expected = vector_states(vector)
    page = open_page(vector)
    assert page.locator(".board .cell").count() == 14 * 14
    assert "start-a" in classes(page, 4, 4) and "start-b" in classes(page, 9, 9)
    page.keyboard.press("ArrowRight")  # turn 1: A's 66t0 covers (4, 4), the start square 55
    at_turn(page, 1)
    assert "start-a" not in classes(page, 4, 4) and "start-b" in classes(page, 9, 9)
    assert classes(page, 5, 5) == {"cell", "piece-a", "edge-t"}  # inside the T
    assert classes(page, 4, 4) == {"cell", "piece-a", "edge-t", "edge-l", "edge-r"}
    assert len(marks(page, 4, 4, ".trace.placed.team-a")) == 1  # just placed
    assert "66t0 · piece t, 5 squares" in page.inner_text("[data-actions]")
    page.keyboard.press("End")
    last = len(expected) - 1
    at_turn(page, last)
    # a game over has the turns it played, not the 84 it might have had ("Turn 20 / 84")
    assert last < 84 and page.inner_text("[data-turn-of]") == f"/ {last}"
    drawn = page.eval_on_selector_all(".board .cell", "cells => cells.map((c) => c.className)")
    wanted = {"A": "piece-a", "B": "piece-b", ".": "empty"}
    for y, row in enumerate(expected[last]["cells"]):
        for x, char in enumerate(row):
            assert wanted[char] in drawn[y * 14 + x].split(), (x, y)
    remaining = [score["remaining"] for score in expected[last]["scores"]]
    assert [int(page.inner_text(f'[data-team="{t}"] .total')) for t in (0, 1)] == remaining
    leader = 0 if remaining[0] < remaining[1] else 1  # fewer squares left leads
    assert "leader" in page.get_attribute(f'[data-team="{leader}"]', "class")

    page = open_page("blokus-duo/corner_contact_required", turn=3)
    assert marks(page, 1, 1, ".failure.invalid") == ["✕"]  # 22a0: column 2, row 2
    assert "touches no own square at a corner" in page.inner_text("[data-actions]")


@pytest.mark.parametrize("vector", ["procon2020/treasure_first_move_only", "chaser/items_decide",
                                    "blokus-duo/random_s7_00"])
def test_the_venue_screen_draws_every_game(open_page, vector):
    final = vector_states(vector)[-1]
    page = open_page(vector, path="")
    width, height = len(final["cells"][0]), len(final["cells"])
    assert page.locator(".board .cell").count() == width * height
    headline = "total" if "total" in final["scores"][0] else next(iter(final["scores"][0]))
    for team, score in enumerate(final["scores"]):
        assert page.inner_text(f'[data-team="{team}"] .total') == str(score[headline])
        assert page.inner_text(f'[data-team="{team}"] .details').strip()
    assert "NaN" not in page.inner_html("svg.chart")
    assert page.locator(".legend .key").count() >= 2


def test_who_leads_is_the_results_word_at_the_end(open_page):
    """Cool took an item and then trapped itself: Hot leads the last turn on both
    screens, with fewer items."""
    vector = "chaser/item_block_traps_self"
    last = len(vector_states(vector)) - 1
    for page in (open_page(vector, turn=last), open_page(vector, path="")):
        at_turn(page, last)
        assert page.inner_text('[data-team="0"] .total') == "1"
        assert page.inner_text('[data-team="1"] .total') == "0"
        leading = page.get_attribute('[data-team="1"]', "class").split()
        assert "leader" in leading
        assert "leader" not in page.get_attribute('[data-team="0"]', "class").split()
    replay = open_page(vector, turn=1)  # before the end, the items say who leads
    at_turn(replay, 1)
    assert "leader" not in replay.get_attribute('[data-team="1"]', "class").split()


def test_the_list_shows_each_games_own_number(open_page, live_server_process):
    """Items, squares left, totals: every published match's row has both numbers."""
    page = open_page("chaser/item_block_traps_self")
    page.goto(f"{live_server_process}/")
    page.wait_for_function(
        f"document.querySelectorAll('[data-list] [data-match]').length === {len(SHOWN)}")
    scores = page.locator("[data-list] .score").all_inner_texts()
    assert len(scores) == 2 * len(SHOWN)
    assert all(re.fullmatch(r"[−-]?[0-9]+", text.strip()) for text in scores), scores


def test_every_part_of_the_score_has_its_own_line_style_and_key(open_page):
    """Procon 2020 has four parts (total, tile, area, treasure): four patterns, four keys."""
    page = open_page("procon2020/treasure_first_move_only", turn=2)
    keys = page.locator("[data-chart-legend] .chart-key")
    assert [key.strip() for key in keys.all_inner_texts()] == ["total", "tile", "area", "treasure"]
    dashes = "lines => lines.map((line) => line.getAttribute('stroke-dasharray'))"
    drawn = page.eval_on_selector_all("svg.chart polyline.team-a", dashes)
    keyed = page.eval_on_selector_all("[data-chart-legend] line", dashes)
    assert len(drawn) == 4 and len(set(drawn)) == 4 and drawn == keyed


def test_the_list_of_turns_words_each_games_moves(open_page):
    page = open_page("chaser/items_decide", turn=1)
    line = page.inner_text('[data-line-turn="1"]')
    assert "wr · walk right" in line and "wl · walk left" in line
    page = open_page("blokus-duo/random_s7_00", turn=1)
    assert "66t0 · piece t, 5 squares" in page.inner_text('[data-line-turn="1"]')
    page.click('[data-line-turn="3"]')
    at_turn(page, 3)


def test_a_negative_score_is_written_with_a_minus_sign_on_the_replay_and_the_embed(open_page):
    """The replay's cards wrote "-21" with a hyphen, the venue "−21"."""
    final = vector_states("kakomimasu/random_s7_00")[1]["scores"]
    assert final[0]["total"] == -21
    page = open_page("kakomimasu/random_s7_00", turn=1)
    at_turn(page, 1)
    assert page.inner_text('[data-team="0"] .total') == "\u221221"
    embed = open_page("kakomimasu/random_s7_00", path="embed", turn=1)
    assert embed.inner_text('[data-team="0"] .total') == "\u221221"


BAR = "parseFloat(document.querySelector('.share-a').style.width) / 100"


def leading(page, team):
    return "leader" in page.get_attribute(f'[data-team="{team}"]', "class").split()


@pytest.mark.parametrize(("vector", "turn"), [("kakomimasu/random_s7_03", 1),
                                              ("blokus-duo/random_s7_00", 20)])
def test_the_screens_draw_the_servers_lead_and_bar(open_page, published, pages,
                                                   live_server_process, vector, turn):
    """One formula (the rules' `lead`): Blokus Duo's squares left and Kakomimasu's totals
    below zero gave the replay another bar than the venue (57.4 % against 54.5 %; 50 %
    against 7 %)."""
    from matches.rules import rules_for

    states = vector_states(vector)
    rules = rules_for(vector.split("/")[0])
    said = rules.lead(states[turn]["scores"])
    replay = open_page(vector, turn=turn)
    at_turn(replay, turn)
    assert replay.evaluate(BAR) == pytest.approx(said["share"], abs=1e-4)
    assert leading(replay, said["team"]) and not leading(replay, 1 - said["team"])
    embed = pages.open(f"{live_server_process}/matches/{published[vector]}/embed?turn={turn}")
    embed.wait_for_selector(".board .cell")
    assert leading(embed, said["team"]) and not leading(embed, 1 - said["team"])
    # the end: the venue and the replay's last turn draw the same bar
    last = len(states) - 1
    venue, replay = open_page(vector, path=""), open_page(vector, turn=last)
    at_turn(venue, last)
    at_turn(replay, last)
    assert venue.evaluate(BAR) == pytest.approx(replay.evaluate(BAR), abs=1e-4)


SWING_MARKS = """() => [...document.querySelectorAll("[data-marks] .mark.swing")].map((mark) => [
  Number(mark.dataset.markTurn), mark.classList.contains("team-a") ? 0 : 1, mark.title])"""


@pytest.mark.parametrize("vector", ["kakomimasu/random_s7_00",
                                    "procon2020/treasure_first_move_only"])
def test_the_replay_marks_the_servers_swings(open_page, vector):
    """A turn's swing is the rules' `swing` (the TV's biggest swing is one of them): the
    timeline marks each one big by the server's measure, for the team it names, by its
    points."""
    from matches.rules import rules_for

    states = vector_states(vector)
    page = open_page(vector, turn=1)
    data = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent)")
    names, threshold = [team["name"] for team in data["teams"]], data["marks"]["swing"]
    swings = rules_for(vector.split("/")[0]).swings([state["scores"] for state in states])
    wanted = [(turn, swing["team"], f"Turn {turn}: big swing, +{swing['points']} for "
               f"{names[swing['team']]}") for turn, swing in enumerate(swings)
              if swing and swing["points"] >= threshold]
    assert wanted and [tuple(mark) for mark in page.evaluate(SWING_MARKS)] == wanted


@pytest.fixture
def start_cells(transactional_db):
    """A Procon 2020 match with treasures on two start cells (tests/rules/
    test_treasures_taken.py), published before the browser starts."""
    import json

    from matches.rules.records import parse_record
    from matches.services.archive import match_import
    from tests.rules.test_treasures_taken import START_CELLS

    return match_import(parse_record(json.dumps(START_CELLS).encode()), published=True).pk


def test_a_treasure_is_gone_where_the_server_says_it_was_taken(start_cells, live_server_process,
                                                               pages):
    """(5, 5): A's agent started on it and stays, so nobody took it; (8, 8): B's agent 0
    stepped on as agent 1 stepped off, and took it (10 points). The screens had worked it
    out themselves: a late one hid both (an agent stands on each), the replay kept (8, 8)
    (an agent stood there the turn before)."""
    base = f"{live_server_process}/matches/{start_cells}"
    for path in ("replay?turn=2", "embed?turn=2", ""):
        page = pages.open(f"{base}/{path}")
        at_turn(page, 2)
        assert "treasure" in classes(page, 5, 5), path
        assert "treasure" not in classes(page, 8, 8), path
    page = pages.open(f"{base}/replay?turn=0")
    at_turn(page, 0)
    assert "treasure" in classes(page, 5, 5) and "treasure" in classes(page, 8, 8)
    page.keyboard.press("ArrowRight")
    at_turn(page, 1)
    assert "treasure" in classes(page, 5, 5) and "treasure" not in classes(page, 8, 8)
    assert "treasure 10" in page.inner_text('[data-team="1"] .details')
