"""Kakomimasu transition step: invalid actions, both kinds of conflict, put/move/remove."""

from tests.factories import board, move, play, position, put, remove, results, stay

EMPTY5 = ["....."] * 5


# --- step 1: invalid actions -------------------------------------------------------


def test_unknown_agents_are_invalid_and_named():
    state = position(EMPTY5, agents=2)
    _, a, _ = play(state, a=[put(2, 0, 0), put(-1, 1, 1), {"type": "put", "x": 2, "y": 2}])
    assert results(a) == ["invalid"] * 3
    assert a[0]["reason"] == "there is no agent 2"
    assert a[1]["reason"] == "there is no agent -1"
    assert a[2]["reason"] == "there is no agent null"


def test_two_actions_for_one_agent_make_both_invalid():
    state = position(EMPTY5, agents=2)
    after, a, _ = play(state, a=[put(0, 0, 0), put(0, 4, 4), put(1, 2, 2)])
    assert results(a) == ["invalid", "invalid", "ok"]
    assert a[0]["reason"] == "agent 0 has 2 actions this turn"
    assert board(after) == [".....", ".....", "..A..", ".....", "....."]


def test_put_by_an_agent_on_the_board_is_invalid():
    state = position(["A....", "....."], a=[(0, 0)])
    _, a, _ = play(state, a=[put(0, 3, 1)])
    reason = "the agent is already on the board"
    assert a == [put(0, 3, 1) | {"result": "invalid", "reason": reason}]


def test_put_off_the_board_and_onto_an_opponent_wall_are_invalid():
    state = position(["....B", "....."], b=[(4, 0)], agents=2)
    after, a, _ = play(state, a=[put(0, 5, 0), put(1, 4, 0)])
    assert [o["reason"] for o in a] == ["target is off the board", "target is an opponent wall"]
    assert board(after) == ["....B", "....."]


def test_put_onto_territory_of_either_team_is_allowed():
    state = position(["ab..."], agents=2)
    after, a, _ = play(state, a=[put(0, 0, 0), put(1, 1, 0)])
    assert results(a) == ["ok", "ok"]
    assert board(after) == ["AA..."]


def test_move_and_remove_by_an_agent_not_on_the_board_are_invalid():
    state = position(["A...."], a=[(0, 0)], agents=2)
    for action in (move(1, 1, 0), remove(1, 0, 0)):
        _, a, _ = play(state, a=[action])
        assert a[0]["reason"] == "the agent is not on the board"


def test_move_must_be_to_one_of_the_eight_neighbours():
    state = position(EMPTY5[:2] + ["..A.."] + EMPTY5[:2], a=[(2, 2)])
    for target, expected in [((2, 2), "invalid"), ((4, 2), "invalid"), ((0, 0), "invalid"),
                             ((3, 3), "ok"), ((1, 1), "ok"), ((2, 1), "ok")]:
        _, a, _ = play(state, a=[move(0, *target)])
        assert results(a) == [expected], target


def test_own_cell_is_not_a_neighbour_for_remove_either():
    state = position(["A...."], a=[(0, 0)])
    _, a, _ = play(state, a=[remove(0, 0, 0)])
    assert a[0]["reason"] == "target is not next to the agent at (0, 0)"


def test_move_off_the_board_is_invalid():
    state = position(["A...."], a=[(0, 0)])
    _, a, _ = play(state, a=[move(0, -1, 0)])
    assert a[0]["reason"] == "target is off the board"


def test_move_onto_an_opponent_wall_is_invalid():
    state = position(["AB..."], a=[(0, 0)], b=[(1, 0)])
    after, a, _ = play(state, a=[move(0, 1, 0)])
    assert a[0]["reason"] == "target is an opponent wall"
    assert board(after) == ["AB..."]


def test_remove_of_a_cell_that_is_not_a_wall_is_invalid():
    state = position(["Aab.."], a=[(0, 0)])
    for x in (1,):
        _, a, _ = play(state, a=[remove(0, x, 0)])
        assert a[0]["reason"] == "target is not a wall"
    state = position(["A....", ".b..."], a=[(0, 0)])
    _, a, _ = play(state, a=[remove(0, 1, 1)])
    assert a[0]["reason"] == "target is not a wall"


def test_unknown_type_and_missing_coordinates_are_invalid():
    state = position(EMPTY5, agents=3)
    _, a, _ = play(state, a=[{"agent": 0, "type": "jump", "x": 1, "y": 1},
                             {"agent": 1, "type": "put"},
                             {"agent": 2, "type": "put", "x": "1", "y": 1}])
    assert results(a) == ["invalid"] * 3
    assert a[0]["reason"].startswith('unknown action type "jump"')
    assert a[1]["reason"] == a[2]["reason"] == "a put needs whole-number x and y"


def test_unknown_keys_are_ignored_and_not_echoed():
    state = position(EMPTY5)
    _, a, _ = play(state, a=[put(0, 1, 1) | {"comment": "hi"}])
    assert a == [put(0, 1, 1) | {"result": "ok"}]


def test_invalid_actions_take_part_in_no_conflict():
    state = position(["A....", "....."], a=[(0, 0)], agents=2)
    # agent 0 of A puts although placed (invalid); B's put on the same cell succeeds
    after, a, b = play(state, a=[put(0, 2, 1)], b=[put(0, 2, 1)])
    assert results(a) == ["invalid"] and results(b) == ["ok"]
    assert board(after) == ["A....", "..B.."]


def test_stay_and_silence_leave_everything_as_it_was():
    state = position(["A...B"], a=[(0, 0)], b=[(4, 0)])
    after, a, b = play(state, a=[stay(0)])
    assert results(a) == ["ok"] and b == []
    assert board(after) == ["A...B"] and after.agents == state.agents
    assert after.turn == 1


# --- step 2: the same target -------------------------------------------------------


def test_puts_of_both_teams_on_one_cell_all_fail():
    state = position(EMPTY5)
    after, a, b = play(state, a=[put(0, 2, 2)], b=[put(0, 2, 2)])
    assert results(a) == results(b) == ["conflict"]
    assert a[0]["reason"] == "agent 0 of team 1 (B) also targets (2, 2)"
    assert board(after) == EMPTY5 and after.agents == ((None,), (None,))


def test_team_mates_targeting_one_cell_both_fail():
    state = position(["A.A.."], a=[(0, 0), (2, 0)])
    _, a, _ = play(state, a=[move(0, 1, 0), move(1, 1, 0)])
    assert results(a) == ["conflict", "conflict"]


def test_a_move_and_a_remove_on_one_cell_both_fail():
    state = position(["A.B..", ".A..."], a=[(0, 0)], b=[(2, 0)])
    after, a, b = play(state, a=[move(0, 1, 1)], b=[remove(0, 1, 1)])
    assert results(a) == results(b) == ["conflict"]
    assert board(after) == ["A.B..", ".A..."]


def test_two_removes_on_one_cell_both_fail():
    state = position(["A.B..", ".B..."], a=[(0, 0)], b=[(2, 0)])
    after, a, b = play(state, a=[remove(0, 1, 1)], b=[remove(0, 1, 1)])
    assert results(a) == results(b) == ["conflict"]
    assert board(after)[1] == ".B..."


# --- step 3: the agent at the target stays -------------------------------------------


def test_moving_into_a_staying_agent_fails():
    state = position(["AA..."], a=[(0, 0), (1, 0)])
    after, a, _ = play(state, a=[move(0, 1, 0)])
    assert results(a) == ["conflict"]
    assert a[0]["reason"] == "the agent at the target stays (agent 1 of team 0 (A))"
    assert after.agents[0] == ((0, 0), (1, 0))


def test_putting_onto_a_standing_agent_fails():
    state = position(["A...."], a=[(0, 0)], agents=2)
    after, a, _ = play(state, a=[put(1, 0, 0)])
    assert results(a) == ["conflict"] and after.agents[0] == ((0, 0), None)


def test_a_chain_into_a_staying_agent_fails_together():
    state = position(["AAA.."], a=[(0, 0), (1, 0), (2, 0)])
    # 0 -> 1's cell, 1 -> 2's cell, 2 stays (sent a remove of nothing useful -> invalid)
    after, a, _ = play(state, a=[move(0, 1, 0), move(1, 2, 0), remove(2, 3, 0)])
    assert results(a) == ["conflict", "conflict", "invalid"]
    assert after.agents[0] == ((0, 0), (1, 0), (2, 0))


def test_a_chain_behind_a_moving_leader_succeeds():
    state = position(["AAA.."], a=[(0, 0), (1, 0), (2, 0)])
    after, a, _ = play(state, a=[move(0, 1, 0), move(1, 2, 0), move(2, 3, 0)])
    assert results(a) == ["ok", "ok", "ok"]
    assert after.agents[0] == ((1, 0), (2, 0), (3, 0))
    assert board(after) == ["AAAA."]


def test_a_chain_into_a_conflicted_agent_fails_together():
    state = position(["AA...", "..B.."], a=[(0, 0), (1, 0)], b=[(2, 1)])
    # A1 and B0 both target (2, 0): both fail (step 2); A0 follows A1 and so fails (step 3)
    after, a, b = play(state, a=[move(0, 1, 0), move(1, 2, 0)], b=[move(0, 2, 0)])
    assert results(a) == ["conflict", "conflict"] and results(b) == ["conflict"]
    assert after.agents == (((0, 0), (1, 0)), ((2, 1), None))


def test_team_mates_may_swap():
    state = position(["AA..."], a=[(0, 0), (1, 0)])
    after, a, _ = play(state, a=[move(0, 1, 0), move(1, 0, 0)])
    assert results(a) == ["ok", "ok"]
    assert after.agents[0] == ((1, 0), (0, 0))


def test_a_cycle_of_three_team_mates_succeeds():
    state = position(["AA...", "A...."], a=[(0, 0), (1, 0), (0, 1)])
    after, a, _ = play(state, a=[move(0, 1, 0), move(1, 0, 1), move(2, 0, 0)])
    assert results(a) == ["ok"] * 3
    assert after.agents[0] == ((1, 0), (0, 1), (0, 0))


# --- steps 4 and 5: apply ----------------------------------------------------------


def test_move_walls_the_target_and_the_left_cell_stays_a_wall():
    state = position(["A....", ".b..."], a=[(0, 0)])
    after, _, _ = play(state, a=[move(0, 1, 1)])
    assert board(after) == ["A....", ".A..."]
    assert after.agents[0] == ((1, 1),)


def test_a_team_may_remove_its_own_wall_and_the_opponents():
    state = position(["A.B..", "AB..."], a=[(0, 0)], b=[(2, 0)])
    after, a, b = play(state, a=[remove(0, 0, 1)], b=[remove(0, 1, 1)])
    assert results(a) == results(b) == ["ok"]
    assert board(after) == ["A.B..", "....."]


def test_remove_under_a_staying_agent_fails():
    state = position(["AB..."], a=[(0, 0)], b=[(1, 0)])
    after, a, _ = play(state, a=[remove(0, 1, 0)])
    assert results(a) == ["conflict"]
    assert a[0]["reason"] == "the agent at the target stays (agent 0 of team 1 (B))"
    assert board(after) == ["AB..."]


def test_remove_under_an_agent_whose_move_failed_fails():
    state = position(["ABB.."], a=[(0, 0)], b=[(1, 0), (2, 0)])
    # B0 tries to move onto B1, who stays: B0 fails and stays, so A's remove fails too
    after, a, b = play(state, a=[remove(0, 1, 0)], b=[move(0, 2, 0)])
    assert results(b) == ["conflict"] and results(a) == ["conflict"]
    assert board(after) == ["ABB.."]


def test_remove_of_a_wall_its_agent_leaves_succeeds():
    state = position(["AB..."], a=[(0, 0)], b=[(1, 0)])
    after, a, b = play(state, a=[remove(0, 1, 0)], b=[move(0, 2, 0)])
    assert results(a) == results(b) == ["ok"]
    assert board(after) == ["A.B.."] and after.agents[1] == ((2, 0),)
