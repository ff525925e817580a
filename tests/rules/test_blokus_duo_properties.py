"""Property tests on random Blokus Duo games (hypothesis), and the fast move generator
checked against a brute force over every placement."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.blokus_duo_board import (
    PIECE_LETTERS,
    PIECE_SIZES,
    canonical_code,
    code_problem,
    has_legal_move,
    legal_moves,
    new_state,
    on_board_placements,
    placement,
)
from matches.rules.blokus_duo_kifu import kifu_from_record, record_from_kifu
from matches.rules.records import first_difference, parse_record
from matches.rules.timeline import compute_timeline

RULES = BlokusDuoRules()
PLACEMENTS = [(p.piece, frozenset(p.cells()), p.code()) for p in on_board_placements()]
START = ((4, 4), (9, 9))
EDGES = ((1, 0), (-1, 0), (0, 1), (0, -1))
CORNERS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
# A game is played to its end, so even the simplest one is some 40 turns long.
LONG = [HealthCheck.large_base_example, HealthCheck.too_slow]
JUNK = st.text(alphabet="0123456789ABCDEFGabcdeuvwz-", min_size=3, max_size=5)


@dataclass
class Game:
    codes: list[str] = field(default_factory=list)  # as sent, one a turn
    results: list[str] = field(default_factory=list)
    pieces: list[tuple[int, int, frozenset]] = field(default_factory=list)  # team, piece, cells
    # at the drawn turns: (legal_moves, the brute force's moves)
    checked: list[tuple[set[str], set[str]]] = field(default_factory=list)
    states: list = field(default_factory=list)

    def record(self) -> dict:
        actions = [sent(turn % 2, code) for turn, code in enumerate(self.codes)]
        return {"format": "match-record/1", "game": "blokus-duo", "title": "",
                "board": {"width": 14, "height": 14}, "agents": 0,
                "turns": len(self.codes), "teams": [{"name": "A"}, {"name": "B"}],
                "actions": actions}


def sent(team: int, code: str) -> list[list[dict]]:
    """One turn's action lists: `team` sends the code."""
    lists: list[list[dict]] = [[], []]
    lists[team].append({"move": code})
    return lists


def synonyms(code: str) -> list[str]:
    """Every code (upper-case position, lower-case piece) with the cells of `code`."""
    target = set(placement(code).cells())
    low = min(target)
    found = []
    for o in range(8):
        shape = placement(f"11{code[2]}{o}").cells()  # reference cell at (0, 0)
        first = min(shape)
        x, y = low[0] - first[0], low[1] - first[1]
        if 0 <= x < 14 and 0 <= y < 14 and {(cx + x, cy + y) for cx, cy in shape} == target:
            found.append(f"{'123456789ABCDE'[x]}{'123456789ABCDE'[y]}{code[2]}{o}")
    return found


def spell(draw, code: str) -> str:
    code = draw(st.sampled_from(synonyms(code)))
    return "".join(c.swapcase() if draw(st.booleans()) else c for c in code)


def brute_force_moves(game: Game, team: int) -> set[str]:
    """The legal moves of `team`, from the game's placed pieces and every placement."""
    occupied = set().union(*(cells for _, _, cells in game.pieces))
    own = set().union(*(cells for t, _, cells in game.pieces if t == team))
    used = {piece for t, piece, _ in game.pieces if t == team}
    moves = set()
    for piece, cells, code in PLACEMENTS:
        if piece in used or cells & occupied:
            continue
        if not own:
            if START[team] in cells:
                moves.add(code)
            continue
        edges = {(x + dx, y + dy) for x, y in cells for dx, dy in EDGES}
        corners = {(x + dx, y + dy) for x, y in cells for dx, dy in CORNERS}
        if not edges & own and corners & own:
            moves.add(code)
    return moves


@st.composite
def games(draw, junk: bool = True, brute_force: int = 0):
    """A game whose moves are drawn from the true legal moves (spelt in any equivalent
    way), now and then any placement, a junk code or a pass, until neither player can
    move. A placement is played exactly when it is one of the legal moves."""
    game, state = Game(), new_state()
    picks = st.lists(st.integers(0, 24), min_size=min(1, brute_force), max_size=brute_force)
    checks = set(draw(picks))
    while not RULES.is_over(state, 0):
        team = state.mover
        moves = legal_moves(state)
        if len(game.codes) in checks:
            game.checked.append((set(moves), brute_force_moves(game, team)))
        roll = draw(st.integers(0, 19))  # 0, the simplest, plays a legal move
        if junk and roll == 19:
            code = draw(JUNK)
        elif junk and roll == 18 or not moves:
            code = draw(st.sampled_from(["----", "0000"]))
        elif junk and roll == 17:  # any placement, mostly illegal
            code = spell(draw, draw(st.sampled_from(PLACEMENTS))[2])
        else:
            code = spell(draw, draw(st.sampled_from(moves)))
        state, outcomes = RULES.resolve_turn(state, sent(team, code))
        if not code_problem(code) and code not in ("----", "0000"):
            where = placement(code)
            legal = where.on_board() and where.code() in moves
            assert (outcomes[team][0]["result"] == "ok") == legal
        game.codes.append(code)
        game.results.append(outcomes[team][0]["result"])
        game.states.append(state)
        if outcomes[team][0]["result"] == "ok" and code not in ("----", "0000"):
            where = placement(code)
            game.pieces.append((team, where.piece, frozenset(where.cells())))
    for _ in range(draw(st.integers(0, 2))):  # the optional final passes
        team = state.mover
        state, outcomes = RULES.resolve_turn(state, sent(team, "----"))
        assert outcomes[team][0]["result"] == "ok"
        game.codes.append("----")
        game.results.append("ok")
        game.states.append(state)
    return game


@settings(max_examples=60, deadline=None, suppress_health_check=LONG)
@given(games())
def test_no_two_pieces_overlap_and_all_lie_on_the_board(game):
    seen: set = set()
    for _, _, cells in game.pieces:
        assert not cells & seen
        assert all(0 <= x < 14 and 0 <= y < 14 for x, y in cells)
        seen |= cells


@settings(max_examples=60, deadline=None, suppress_health_check=LONG)
@given(games())
def test_pieces_touch_their_own_colour_only_at_corners(game):
    for team in (0, 1):
        mine = [cells for t, _, cells in game.pieces if t == team]
        if mine:
            assert START[team] in mine[0]
        for index, cells in enumerate(mine):
            edges = {(x + dx, y + dy) for x, y in cells for dx, dy in EDGES} - cells
            corners = {(x + dx, y + dy) for x, y in cells for dx, dy in CORNERS} - cells
            others = set().union(*(c for i, c in enumerate(mine) if i != index))
            earlier = set().union(*mine[:index])
            assert not edges & others
            if index:
                assert corners & earlier


@settings(max_examples=60, deadline=None, suppress_health_check=LONG)
@given(games())
def test_remaining_is_89_minus_placed_squares_and_cells_show_the_pieces(game):
    final = RULES.view(game.states[-1])
    for team, letter in enumerate("AB"):
        mine = [(piece, cells) for t, piece, cells in game.pieces if t == team]
        assert len({piece for piece, _ in mine}) == len(mine)  # each piece once
        placed = sum(len(cells) for _, cells in mine)
        assert placed == sum(PIECE_SIZES[piece] for piece, _ in mine)
        assert final["scores"][team] == {"remaining": 89 - placed}
        shown = {(x, y) for y, row in enumerate(final["cells"])
                 for x, c in enumerate(row) if c == letter}
        assert shown == set().union(*(cells for _, cells in mine))


@settings(max_examples=60, deadline=None, suppress_health_check=LONG)
@given(games())
def test_the_game_ends_when_both_are_stuck_and_passes_are_ok_only_then(game):
    final = game.states[-1]
    assert not has_legal_move(final, 0) and not has_legal_move(final, 1)
    assert legal_moves(final, 0) == legal_moves(final, 1) == []
    before = new_state()
    for code, result, state in zip(game.codes, game.results, game.states, strict=True):
        if code in ("----", "0000"):
            assert (result == "ok") == (not has_legal_move(before, before.mover))
        before = state
    a, b = final.remaining
    timeline = compute_timeline(parse_record(game.record()))
    winner = None if a == b else (0 if a < b else 1)
    assert timeline["result"]["winner"] == winner
    for state in game.states[:-1]:  # no result before the end
        if has_legal_move(state, 0) or has_legal_move(state, 1):
            assert not RULES.is_over(state, len(game.codes))


@settings(max_examples=25, deadline=None, suppress_health_check=LONG)
@given(games(brute_force=4))
def test_legal_moves_agree_with_a_brute_force_over_every_placement(game):
    assume(game.checked)  # (a game may end before every drawn turn)
    for legal, brute in game.checked:  # at up to four drawn turns of the game
        assert legal == brute
        assert all(canonical_code(code) == code for code in legal)


@settings(max_examples=40, deadline=None, suppress_health_check=LONG)
@given(games())
def test_has_legal_move_agrees_with_legal_moves(game):
    for state in game.states:
        for team in (0, 1):
            state.legal.clear()  # the per-state cache: answer from scratch, then cached
            has = has_legal_move(state, team)
            moves = legal_moves(state, team)
            assert has == has_legal_move(state, team) == bool(moves)
            assert len(moves) == len(set(moves))
            used = {PIECE_LETTERS.index(code[2]) for code in moves}
            assert all(state.unused[team] >> piece & 1 for piece in used)


@settings(max_examples=40, deadline=None, suppress_health_check=LONG)
@given(games(junk=False))
def test_a_game_record_round_trips(game):
    record = game.record()
    text = kifu_from_record(record)
    assert text.count("\r\n") == len(game.codes)
    imported = parse_record(record_from_kifu(text))
    assert first_difference(compute_timeline(parse_record(record)),
                            compute_timeline(imported)) is None
    assert kifu_from_record(imported) == text
