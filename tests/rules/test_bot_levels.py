"""The built-in players' levels (matches/bots/): four a game, each playing whole matches
of legal actions, the same for the same seed, on the position the public state shows.
Their strength is measured by bench/ladder.py, not here."""

from collections import Counter

import pytest

from matches.boards.specs import board_spec_fixed, board_spec_public
from matches.bots import arena, blokus_duo, bots_for, kakomimasu, levels, procon2020, search
from matches.rules import rules_for
from matches.rules.records import MatchRecord

GAMES = ("kakomimasu", "procon2020", "blokus-duo")


def small_match(game: str) -> tuple[dict, int, int]:
    """A board, its agents and a few turns (a whole game for Blokus Duo)."""
    if game == "kakomimasu":
        board, _ = board_spec_public(game, "A-1")
        return board, 4, 8
    if game == "procon2020":
        rules = rules_for(game)
        board, hints = rules.random_board(3)
        return rules.parse_board(board), hints["agents"], 8
    board, hints = board_spec_fixed(game)
    return board, hints["agents"], hints["turns"]


def test_every_game_with_bots_has_four_levels_weakest_first():
    for game in GAMES:
        assert len(levels(game)) == 4
        assert levels(game)[:2] == ("random", "greedy")
        assert set(levels(game)) <= set(bots_for(game))
    assert levels("chaser")[:2] == ("wanderer", "collector")  # programs, over TCP


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", [3, 4])
def test_a_level_plays_a_whole_match_of_legal_actions(game, level, monkeypatch):
    monkeypatch.setattr(blokus_duo, "SEARCH_SECONDS", 60)  # never cut short on a busy machine
    board, agents, turns = small_match(game)
    bot = bots_for(game)[levels(game)[level - 1]]
    played = arena.play_match(game, board, agents, turns, (bot, bots_for(game)["greedy"]),
                              seed=7, opening=(2 if game == "blokus-duo" else 0,
                                               bots_for(game)["random"]))
    assert played.faults == [0, 0]
    assert "winner" in played.result and played.think[0]
    if game != "blokus-duo":
        assert played.turns == turns
    again = arena.play_match(game, board, agents, turns, (bot, bots_for(game)["greedy"]),
                             seed=7, opening=(2 if game == "blokus-duo" else 0,
                                              bots_for(game)["random"]))
    assert again.actions == played.actions  # the same seed, the same match
    # and what was played is what the rules make of the record
    rules = rules_for(game)
    state = rules.initial_state(MatchRecord(game, board, agents, rules.max_turns
                                            if game == "blokus-duo" else turns,
                                            ({"name": "A"}, {"name": "B"})))
    for sent in played.actions:
        state, _ = rules.resolve_turn(state, sent)
    assert rules.view(state)["scores"] == played.scores


@pytest.mark.parametrize("game, module", [("kakomimasu", kakomimasu),
                                          ("procon2020", procon2020)])
def test_the_searching_levels_never_aim_two_agents_at_one_cell(game, module):
    board, agents, turns = small_match(game)
    seen = []

    def watched(public, team, rng):
        actions = module.searching_bot(public, team, rng)
        state = module.GRID.position(public)
        seen.append(Counter(module.GRID.target(state, team, a) for a in actions))
        return actions

    arena.play_match(game, board, agents, turns, (watched, module.tactical_bot), seed=3)
    assert len(seen) == turns
    for targets in seen:
        assert all(count == 1 for cell, count in targets.items() if cell is not None)


@pytest.mark.parametrize("game, position", [("kakomimasu", kakomimasu.position),
                                            ("procon2020", search.replayed)])
def test_the_search_starts_from_the_position_the_public_state_shows(game, position):
    rules = rules_for(game)
    board, agents, turns = small_match(game)
    shown = []

    def watching(public, team, rng):
        if team == 0:
            shown.append((public, rules.view(position(public))))
        return bots_for(game)["greedy"](public, team, rng)

    arena.play_match(game, board, agents, turns, (watching, bots_for(game)["random"]), seed=5)
    assert len(shown) == turns
    for public, view in shown:
        assert {key: view[key] for key in ("turn", "cells", "agents", "scores")} == {
            key: public["state"][key] for key in ("turn", "cells", "agents", "scores")}
