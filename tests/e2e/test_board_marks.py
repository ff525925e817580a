"""A real Chromium draws the board's marks from the turn shown: coordinates in the API's
convention, agents as ring and numbered badge with the cell's value still there, the
last turn's moves as arrows and the cells it acted on, CHaser's look and search cells,
Blokus Duo's piece just placed."""


import pytest

from tests.e2e.conftest import published_vectors, vector_states

pytestmark = pytest.mark.e2e
SHOWN = ["kakomimasu/random_s7_04", "chaser/random_s7_00", "blokus-duo/random_s7_00",
         "chaser/walk_onto_other_stays", "procon2020/random_s7_00"]
WHERE = "cells => cells.map((cell) => [Number(cell.dataset.x), Number(cell.dataset.y)])"


@pytest.fixture
def published(transactional_db):
    return published_vectors(SHOWN)


@pytest.fixture
def replay_at(published, live_server_process, pages):
    def open_at(vector, turn):
        page = pages.open(f"{live_server_process}/matches/{published[vector]}/replay?turn={turn}")
        page.wait_for_function(
            f"document.querySelector('.board').dataset.shownTurn === '{turn}'")
        return page

    return open_at


def count(page, selector):
    return page.locator(selector).count()


def test_kakomimasu_coordinates_agents_and_the_last_moves(replay_at):
    vector = "kakomimasu/random_s7_04"
    played = vector_states(vector)
    turn = len(played) - 1
    page = replay_at(vector, turn)
    width, height = len(played[0]["cells"][0]), len(played[0]["cells"])
    assert page.locator(".board .coord.x").all_inner_texts() == [str(x) for x in range(width)]
    assert page.locator(".board .coord.y").all_inner_texts() == [str(y) for y in range(height)]
    # every agent a badge with its number, on a cell that still shows its value
    x, y = played[-1]["agents"][1][3]
    cell = page.locator(f'.board .cell[data-x="{x}"][data-y="{y}"]')
    assert cell.locator(".agent.team-b .agent-no").inner_text() == "3"
    assert cell.locator(".points").is_visible()
    # the turn's moves, one arrow each, and the walls put or removed, framed
    outcomes = [(team, o) for team, listed in enumerate(played[-1]["outcomes"]) for o in listed
                if o["result"] == "ok"]
    moves = sum(o["type"] == "move" for _, o in outcomes)
    arrows = count(page, "svg.moves g.team-a") + count(page, "svg.moves g.team-b")
    assert moves and arrows == moves
    for team, outcome in outcomes:
        if outcome["type"] in ("put", "remove"):
            where = f'.board .cell[data-x="{outcome["x"]}"][data-y="{outcome["y"]}"]'
            assert count(page, f"{where} .trace.acted.team-{'ab'[team]}") == 1
    page.keyboard.press("Home")  # turn 0: nothing was done yet
    page.wait_for_function("document.querySelector('.board').dataset.shownTurn === '0'")
    assert count(page, "svg.moves") == 0 and count(page, ".board .trace") == 0


def test_chaser_search_tints_the_cells_it_read(replay_at):
    page = replay_at("chaser/random_s7_00", 9)  # Cool at (7, 7) searches left: sl
    read = page.eval_on_selector_all(".board .cell:has(.trace.read.team-a)", WHERE)
    assert sorted(read) == [[x, 7] for x in range(7)]
    assert count(page, "svg.moves g.team-b") == 1  # Hot walked up


def test_blokus_duo_marks_the_piece_just_placed_and_names_columns_as_codes_do(replay_at):
    vector = "blokus-duo/random_s7_00"
    page = replay_at(vector, 1)  # 66t0: A's piece t, five squares
    assert page.locator(".board .coord.x").all_inner_texts() == list("123456789ABCDE")
    assert count(page, ".board .cell.piece-a .trace.placed.team-a") == 5
    played = vector_states(vector)
    passed = next(turn for turn, state in enumerate(played) if turn and all(
        o["move"] in ("----", "0000") for team in state["outcomes"] for o in team))
    page = replay_at(vector, passed)  # a pass: the piece the turn before placed stays marked
    before = {(x, y) for y, row in enumerate(played[passed - 2]["cells"])
              for x, char in enumerate(row) if char != "."}
    fresh = page.eval_on_selector_all(".board .cell:has(.trace.placed)", WHERE)
    assert fresh and not {tuple(cell) for cell in fresh} & before


DRAWN = """() => ({
  marks: [...document.querySelectorAll(".board .cell .trace")].map((trace) => {
    const cell = trace.closest(".cell");
    const [kind, team] = [...trace.classList].filter((name) => name !== "trace");
    return [Number(cell.dataset.x), Number(cell.dataset.y), kind, "ab".indexOf(team.at(-1))];
  }),
  moves: [...document.querySelectorAll(".board svg.moves g:not(.casing)")].map(
    (group) => "ab".indexOf(group.getAttribute("class").at(-1))),
})"""


def drawn(page):
    shown = page.evaluate(DRAWN)
    return sorted(map(tuple, shown["marks"])), sorted(shown["moves"])


def said(vector, turn):
    """The server's marks for the vector's turn (the rules' `last_turn`), as drawn."""
    from matches.rules import rules_for

    states = vector_states(vector)
    last = rules_for(vector.split("/")[0]).last_turn(states[turn], states[turn - 1])
    return sorted(map(tuple, last["marks"])), sorted(team for _, _, team in last["moves"])


@pytest.mark.parametrize(("vector", "turn"), [
    ("chaser/walk_onto_other_stays", 1),  # both walk into each other and stay
    ("kakomimasu/random_s7_04", None),
    ("blokus-duo/random_s7_00", 20),  # B places a 3-square piece
    ("procon2020/random_s7_00", None),
    ("chaser/random_s7_00", 9),
])
def test_the_screens_draw_the_servers_marks_of_the_last_turn(published, live_server_process,
                                                              pages, replay_at, vector, turn):
    """One place (the rules' `last_turn`): the replay, the embed and the venue draw the
    marks the server sends. A CHaser walk into the other player moved nobody, yet each
    game's own JavaScript drew a move there (a dot on each player)."""
    turn = turn or len(vector_states(vector)) - 1
    wanted = said(vector, turn)
    assert drawn(replay_at(vector, turn)) == wanted
    base = f"{live_server_process}/matches/{published[vector]}"
    embed = pages.open(f"{base}/embed?turn={turn}")
    embed.wait_for_function(f"document.querySelector('.board').dataset.shownTurn === '{turn}'")
    assert drawn(embed) == wanted
    if turn == len(vector_states(vector)) - 1:  # the venue joins at the end
        venue = pages.open(f"{base}/")
        venue.wait_for_function(
            f"document.querySelector('.board').dataset.shownTurn === '{turn}'")
        assert drawn(venue) == wanted
