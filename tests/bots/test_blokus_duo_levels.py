"""Blokus Duo's levels 3 and 4 (matches/bots/blokus_duo.py, blokus_duo_search.py): legal
moves within the budget from the opening to the end (and a pass when there is none),
level 4 thinking longer when given more time, repeatable without a budget, and beating
level 3 in short matches. Their strength against Pentobi: bench/pentobi.py."""

import dataclasses
import importlib.util
import random
from pathlib import Path

import pytest

from matches.boards.specs import board_spec_fixed
from matches.bots import arena, blokus_duo
from matches.bots import blokus_duo_search as search
from matches.rules import rules_for
from matches.rules.blokus_duo_board import has_legal_move, judge, legal_moves, new_state
from matches.rules.records import MatchRecord

GAME = "blokus-duo"
RULES = rules_for(GAME)


def publics_of_a_game(seed: int = 5):
    """Every position of a whole greedy-against-random game, as (public state, the
    rules' state, the team to move)."""
    board, hints = board_spec_fixed(GAME)
    state = RULES.initial_state(MatchRecord(GAME, board, hints["agents"], RULES.max_turns,
                                            ({"name": "A"}, {"name": "B"})))
    history, found = [], []
    players = (blokus_duo.greedy_bot, blokus_duo.random_bot)
    rngs = (random.Random(seed), random.Random(seed + 1))
    while not RULES.is_over(state, RULES.max_turns):
        view = RULES.view(state)
        public = arena.public_state(RULES, board, hints["agents"], RULES.max_turns, view,
                                    list(history))
        team = public["to_move"]
        found.append((public, state, team))
        sent = [[], []]
        sent[team] = (RULES.pass_move() if RULES.must_pass(state)
                      else players[team](public, team, rngs[team]))
        state, outcomes = RULES.resolve_turn(state, sent)
        history.append({"turn": view["turn"] + 1, "outcomes": outcomes})
    return found


@pytest.fixture(scope="module")
def game():
    return publics_of_a_game()


def picked(game):
    """The opening, a middle position, one near the end, and one where the mover must
    pass (the other still moving)."""
    moving = [item for item in game if has_legal_move(item[1], item[2])]
    passing = [item for item in game if not has_legal_move(item[1], item[2])
               and has_legal_move(item[1], 1 - item[2])]
    assert passing, "the game should have a turn where one team must pass"
    return {"opening": moving[0], "middle": moving[len(moving) // 2],
            "end": moving[-1], "pass": passing[0]}


@pytest.mark.parametrize("where", ["opening", "middle", "end", "pass"])
def test_level_4_moves_legally_within_its_budget(game, ticking, where):
    """Within the budget by the level's own clock (a tick each read), so the machine's
    load cannot fail it; bench/think.py prints the wall-clock figures."""
    public, state, team = picked(game)[where]
    for budget in (0.25, None):
        clock = ticking(0.0005)
        actions = blokus_duo.searching_bot(public, team, random.Random(3), budget=budget)
        assert len(actions) == 1
        if where == "pass":
            assert actions == [{"move": "----"}]
        else:
            assert actions[0]["move"] in legal_moves(state, team)
        assert judge(state, actions[0]["move"]) == (judge(state, actions[0]["move"])[0], "")
        if budget is not None:
            assert clock.time < budget, f"{where}: {clock.time:.3f} s for {budget} s"


def test_level_3_moves_legally_and_passes(game):
    for public, state, team in picked(game).values():
        move = blokus_duo.tactical_bot(public, team, random.Random(2))[0]["move"]
        assert judge(state, move)[1] == ""
        assert (move == "----") == (not has_legal_move(state, team))


def test_level_4_uses_the_time_it_is_given_and_keeps_its_deadline(game, ticking):
    public, state, team = picked(game)["middle"]
    runs = []
    for budget in (0.1, 0.5):
        clock = ticking(0.0005)  # (half a millisecond each time it is read)
        blokus_duo.searching_bot(public, team, random.Random(4), budget=budget)
        runs.append(search.LAST["nodes"])
        assert budget * 0.5 < clock.time < budget
    assert runs[1] > 2 * runs[0]


def test_level_4_without_a_budget_does_a_fixed_work_and_is_repeatable(game):
    public, state, team = picked(game)["middle"]
    first = blokus_duo.searching_bot(public, team, random.Random(9))
    assert search.LAST["nodes"] == blokus_duo.RUNS  # (its time: bench/think.py)
    assert blokus_duo.searching_bot(public, team, random.Random(9)) == first


@pytest.mark.parametrize("side", [0, 1])
def test_level_4_beats_level_3(side):
    board, hints = board_spec_fixed(GAME)
    players = [blokus_duo.tactical_bot, blokus_duo.tactical_bot]
    players[side] = blokus_duo.searching_bot
    played = arena.play_match(GAME, board, hints["agents"], hints["turns"], players,
                              seed=11, opening=(2, blokus_duo.random_bot))
    assert played.faults == [0, 0]
    assert played.result["winner"] == side, played.scores


def test_a_playout_ends_the_game_with_a_margin():
    state = new_state()
    margins = {search.playout(state, 0, random.Random(seed)) for seed in range(5)}
    assert all(-89 <= margin <= 89 for margin in margins) and len(margins) > 1


def test_a_playout_plays_on_for_the_team_that_can_still_move():
    shut_in = dataclasses.replace(new_state(), corners=(new_state().corners[0], 0))
    for seed in range(3):  # team 1 (to move first) cannot move: team 0 places on
        assert search.playout(shut_in, 1, random.Random(seed)) > 40


def _bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "pentobi.py"
    spec = importlib.util.spec_from_file_location("bench_pentobi", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pentobi_bench_translates_moves_both_ways():
    bench = _bench()
    state = new_state()
    assert "e10" in bench.to_pentobi("55a0").split(",")  # Blue's start is Pentobi's e10
    for code in legal_moves(state, 0)[:200:7]:
        assert bench.from_pentobi(bench.to_pentobi(code), state, 0) == code
    with pytest.raises(ValueError):
        bench.from_pentobi("a1", state, 0)
