"""Level 4 of Kakomimasu and Procon 2020 (matches/bots/search.py `anytime`): legal
actions within its budget on the largest boards, the same quick answer for the same
seed without a budget, and wins against plain programs (bench/greedy.py's opponents)
on fixed boards in short matches. Its strength over whole matches is measured by
bench/greedy.py and bench/ladder.py, not here."""

import copy
import importlib.util
import random
from collections import Counter
from pathlib import Path

import pytest

from matches.boards.specs import board_spec_public
from matches.bots import arena, kakomimasu, procon2020
from matches.rules import rules_for

ROOT = Path(__file__).resolve().parent.parent.parent


def opponents():
    """bench/greedy.py, the plain programs level 4 must beat."""
    spec = importlib.util.spec_from_file_location("bench_greedy", ROOT / "bench" / "greedy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def largest_kakomimasu() -> tuple[dict, int]:
    rng = random.Random(5)
    return {"width": 24, "height": 24,
            "points": [[rng.randint(-4, 16) for _ in range(24)] for _ in range(24)]}, 14


def largest_procon() -> tuple[dict, int]:
    rng = random.Random(9)
    half = [[rng.randint(-4, 16) for _ in range(10)] for _ in range(20)]
    starts = [(1 + 2 * i, 2 + (i % 2) * 15) for i in range(8)]
    board = {"width": 20, "height": 20, "points": [row + row[::-1] for row in half],
             "obstacles": [[9, 9], [10, 9]],
             "treasures": [{"x": 4, "y": 10, "point": 12}, {"x": 15, "y": 10, "point": 12}],
             "start": [[list(c) for c in starts], [[19 - x, y] for x, y in starts]]}
    return rules_for("procon2020").parse_board(board), 8


def midgame(game: str, board: dict, agents: int, turns: int, played: int, bot) -> dict:
    """The public state after `played` turns of `bot` against itself."""
    states = []

    def watching(public, team, rng):
        states.append(copy.deepcopy(public))  # the arena's history grows in place
        return bot(public, team, rng)

    arena.play_match(game, board, agents, turns, (watching, bot), seed=1)
    return states[played]


@pytest.mark.parametrize("game, module, largest", [
    ("kakomimasu", kakomimasu, largest_kakomimasu),
    ("procon2020", procon2020, largest_procon)])
def test_level_4_answers_legally_within_its_budget_on_the_largest_board(
        game, module, largest, ticking):
    board, agents = largest()
    public = midgame(game, board, agents, 30, 6, module.greedy_bot)
    rules = rules_for(game)
    state = module.GRID.position(public)
    for budget in (0.3, 1.0):
        clock = ticking(0.002)  # (2 ms each time the levels read it)
        actions = module.searching_bot(public, 0, random.Random(2), budget=budget)
        assert budget * 0.5 <= clock.time <= budget, (budget, clock.time)  # used, kept
        assert len({a["agent"] for a in actions}) == len(actions) == agents
        targets = Counter(module.GRID.target(state, 0, a) for a in actions)
        assert all(count == 1 for cell, count in targets.items() if cell is not None)
        _, outcomes = rules.resolve_turn(state, [actions, []])
        assert all(outcome["result"] != "invalid" for outcome in outcomes[0])


@pytest.mark.parametrize("game, module, largest", [
    ("kakomimasu", kakomimasu, largest_kakomimasu),
    ("procon2020", procon2020, largest_procon)])
def test_level_4_without_a_budget_is_the_same_for_a_seed(game, module, largest):
    board, agents = largest()
    public = midgame(game, board, agents, 30, 4, module.greedy_bot)
    first = module.searching_bot(public, 1, random.Random(3))  # (its time: bench/think.py)
    assert module.searching_bot(public, 1, random.Random(3)) == first


def short_matches(game, board, agents, turns, level4, opponent):
    """Level 4's margins (its total less the opponent's), on each side."""
    margins = []
    for side in (0, 1):
        players = (level4, opponent) if side == 0 else (opponent, level4)
        played = arena.play_match(game, board, agents, turns, players, seed=f"t{side}")
        assert played.faults[side] == 0
        totals = [score["total"] for score in played.scores]
        margins.append(totals[side] - totals[1 - side])
    return margins


@pytest.mark.parametrize("name, opponent", [("A-1", "kakomimasu_greedy"),
                                            ("A-1", "kakomimasu_a4_like"),
                                            ("Kakom-1", "kakomimasu_greedy")])
def test_kakomimasu_level_4_beats_plain_programs_on_public_boards(name, opponent):
    board, hints = board_spec_public("kakomimasu", name)
    margins = short_matches("kakomimasu", board, hints["agents"], 12,
                            kakomimasu.searching_bot, getattr(opponents(), opponent))
    assert all(margin > 0 for margin in margins), margins


@pytest.mark.parametrize("seed", [3, 7])
def test_procon_level_4_beats_the_plain_greedy_on_random_fields(seed):
    rules = rules_for("procon2020")
    board, hints = rules.random_board(seed)
    margins = short_matches("procon2020", rules.parse_board(board), hints["agents"], 15,
                            procon2020.searching_bot, opponents().procon_greedy)
    assert all(margin > 0 for margin in margins), margins
