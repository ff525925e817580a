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
    monkeypatch.setattr(blokus_duo, "RUNS", 300)  # its legality, not its strength: quicker
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


def test_chaser_has_four_levels_weakest_first_all_programs():
    from matches.bots import chaser

    assert levels("chaser") == ("wanderer", "collector", "mapper", "tracker")
    assert set(levels("chaser")) <= set(chaser.PLAYERS)


@pytest.mark.parametrize("lower", ["wanderer", "collector", "mapper"])
def test_chasers_level_4_plays_whole_games_of_valid_commands_the_same_for_a_seed(lower):
    from pathlib import Path

    from matches.bots import chaser
    from matches.rules.chaser import parse_map

    rules = rules_for("chaser")
    for path in sorted(Path("matches/boards/chaser").glob("*.map"))[:4]:
        record = parse_map(path.read_text(encoding="utf-8"), path.stem)
        board = rules.parse_board(record["board"])
        games = [arena.play_chaser(board, record["turns"],
                                   (chaser.Tracker("seed"), chaser.PLAYERS[lower]("other")))
                 for _ in range(2)]
        assert games[0].faults == [0, 0]
        assert games[0].result["decided_by"] != "buried"  # it never walks onto a block
        assert games[0].result == games[1].result and games[0].scores == games[1].scores


def test_chasers_level_4_looks_before_walking_where_the_other_may_stand_beside_it():
    from matches.bots.chaser import Tracker

    tracker = Tracker("seed")
    tracker.early = 0  # no blind start
    # floor all round, an item to the right: it wants to walk right, but who stands
    # two cells to the right would be beside it once it has walked there
    assert tracker.choose("1000003000") == "lr"
    tracker.heard("lr", "1000000000")  # nobody round that cell: now it walks
    assert tracker.choose("1000003000") == "wr"


@pytest.mark.parametrize("line, walks", [("1000000000", False), ("1000000001", True)])
def test_chasers_level_4_walks_without_a_look_while_the_other_is_known_far(line, walks):
    from matches.bots.chaser import Tracker

    tracker = Tracker("seed")
    tracker.early = 0
    tracker.choose("1000000000")
    tracker.heard("sr", line)  # a search to the right: nobody, or the other nine cells off
    tracker.other = None  # not "near": only where it may stand counts
    assert (tracker.choose("1000000000")[0] == "w") is walks


@pytest.mark.parametrize("known, command", [(True, "pu"), (False, "lr")])
def test_chasers_level_4_closes_the_last_open_side_of_a_diagonal_other(known, command):
    from matches.bots.chaser import BLOCK, Tracker

    tracker = Tracker("seed")
    tracker.seen[(1, -2)] = BLOCK  # above the other, up-right of it
    if known:
        tracker.seen[(2, -1)] = BLOCK  # and on its right: its one open side is our up
    # the other up-right (digit 3), a block on our right (digit 6), floor elsewhere
    assert tracker.choose("1001002000") == command  # else it watches it
    assert Tracker("seed").choose("1000001000") == "pr"  # beside it: a block on it wins


@pytest.mark.parametrize("name", ["Kakom-1", "Kakom-2", "island-1", "island-3", "island-5"])
def test_two_greedy_teams_on_a_symmetric_board_do_not_play_a_match_of_nothing(name):
    """The demo's cup ended 0–0 with 16 conflicts every turn: both teams' greedy players
    chose the same cells on a symmetric board, lost them both, and chose them again.
    One that lost a conflict tries elsewhere half the time, by its own dice."""
    board, hints = board_spec_public("kakomimasu", name)
    for seed in range(3):
        played = arena.play_match("kakomimasu", board, hints.get("agents", 6), 20,
                                  [kakomimasu.greedy_bot] * 2, seed=seed)
        assert any(score["total"] for score in played.scores), (name, seed)
