"""What the screens, pictures, lists and the audit ask of each game's rules object."""

import pytest

from matches.rules import GAMES, rules_for


def test_every_game_names_its_headline_score():
    walls = [{"wall": 3, "territory": 4, "total": 7}, {"wall": 1, "territory": 0, "total": 1}]
    assert rules_for("kakomimasu").headline(walls) == [7, 1]
    assert rules_for("procon2020").headline(
        [{"tile": 1, "area": 2, "treasure": 3, "total": 6}, {"tile": 0, "area": 0,
                                                              "treasure": 0, "total": 0}]) == [6, 0]
    assert rules_for("blokus-duo").headline([{"remaining": 80}, {"remaining": 84}]) == [80, 84]
    assert rules_for("chaser").headline([{"items": 2}, {"items": 5}]) == [2, 5]


def test_more_points_lead_and_the_margin_is_the_difference():
    scores = [{"wall": 3, "territory": 4, "total": 7}, {"wall": 9, "territory": 2, "total": 11}]
    assert rules_for("kakomimasu").leader(scores) == {"team": 1, "margin": 4}
    assert rules_for("chaser").leader([{"items": 3}, {"items": 1}]) == {"team": 0, "margin": 2}


def test_in_blokus_duo_fewer_squares_left_lead():
    rules = rules_for("blokus-duo")
    assert rules.leader([{"remaining": 70}, {"remaining": 75}]) == {"team": 0, "margin": 5}
    assert rules.leader([{"remaining": 80}, {"remaining": 74}]) == {"team": 1, "margin": 6}


def test_equal_scores_lead_nobody():
    for game, score in (("kakomimasu", {"wall": 1, "territory": 0, "total": 1}),
                        ("blokus-duo", {"remaining": 89}), ("chaser", {"items": 0})):
        assert rules_for(game).leader([score, dict(score)]) == {"team": None, "margin": 0}


def test_the_final_result_decides_who_leads():
    """Hot wins by trapping Cool although Cool took more items."""
    trapped = {"winner": 1, "decided_by": "trapped"}
    assert rules_for("chaser").leader([{"items": 4}, {"items": 1}], trapped) == {
        "team": 1, "margin": 3}
    draw = {"winner": None, "decided_by": "draw"}
    assert rules_for("blokus-duo").leader([{"remaining": 3}, {"remaining": 3}], draw) == {
        "team": None, "margin": 0}


def test_the_rest_of_a_score_in_words():
    assert rules_for("kakomimasu").score_words(
        {"wall": 3, "territory": 4, "total": 7}) == "wall 3 · territory 4"
    assert rules_for("blokus-duo").score_words({"remaining": 80}) == "remaining"
    assert rules_for("chaser").score_words({"items": 2}) == "items"


def test_a_negative_number_is_written_with_a_real_minus_sign():
    kakomimasu = rules_for("kakomimasu")
    assert kakomimasu.score_words(
        {"wall": -12, "territory": 4, "total": -8}) == "wall \u221212 · territory 4"
    assert kakomimasu.amount(-8) == "\u22128 points"
    assert kakomimasu.verdict({"winner": None, "decided_by": "draw"},
                              [{"wall": -3, "territory": 0, "total": -3}] * 2,
                              ["A", "B"]) == "A draw: \u22123 points each"


@pytest.mark.parametrize("game, outcome, words", [
    ("kakomimasu", {"y": 4, "result": "ok", "x": 3, "type": "put", "agent": 0},
     "agent 0 type put x 3 y 4"),
    ("procon2020", {"dy": 1, "dx": -1, "type": "move", "agent": 2, "result": "conflict",
                    "reason": "two agents"}, "agent 2 type move dx -1 dy 1"),
    ("chaser", {"command": "wr", "result": "ok", "ready": "1000", "reply": "1200"},
     "wr · walk right"),
    ("chaser", {"command": "xx", "result": "invalid"}, "command 'xx'"),
    ("blokus-duo", {"move": "55a0", "result": "invalid", "reason": "x"},
     "55a0 · piece a · 1 square · 55"),
    ("blokus-duo", {"move": "----", "result": "ok"}, "---- · pass"),
    ("blokus-duo", {"move": "zz", "result": "invalid"}, "move 'zz'"),
    ("kakomimasu", {"type": "stay", "agent": 1, "extra": True, "result": "ok"},
     "agent 1 type stay extra True"),
])
def test_an_outcome_says_what_the_team_sent_in_the_records_order(game, outcome, words):
    assert rules_for(game).said(outcome) == words


def test_the_replay_marks_swings_and_conflicts_only_where_agents_collide():
    marked = {game for game in GAMES if rules_for(game).replay_marks}
    assert marked == {"kakomimasu", "procon2020"}


def test_a_turns_swing_is_who_gained_by_the_games_own_measure():
    """One definition of a swing (the replay's marks, the TV's biggest swing): Blokus
    Duo's team that places a piece gains, though its number falls (the replay's own
    difference A − B had named the other team)."""
    blokus = rules_for("blokus-duo")
    assert blokus.swing([{"remaining": 89}, {"remaining": 89}],
                        [{"remaining": 84}, {"remaining": 89}]) == {"team": 0, "points": 5}
    assert blokus.swing([{"remaining": 84}, {"remaining": 89}],
                        [{"remaining": 84}, {"remaining": 85}]) == {"team": 1, "points": 4}
    totals = [{"wall": 0, "territory": 0, "total": -10}, {"wall": 0, "territory": 0, "total": 5}]
    later = [{"wall": 0, "territory": 0, "total": -30}, {"wall": 0, "territory": 0, "total": 5}]
    assert rules_for("kakomimasu").swing(totals, later) == {"team": 1, "points": 20}
    assert rules_for("kakomimasu").swing(totals, totals) is None
    assert rules_for("chaser").swings([[{"items": 0}, {"items": 0}], [{"items": 1}, {"items": 0}],
                                       [{"items": 1}, {"items": 0}]]) == [
        None, {"team": 0, "points": 1}, None]


def test_every_picture_style_uses_only_known_words():
    known = {"walls", "territory", "pieces", "blocks", "crossed", "items", "labels", "marked",
             "values", "coordinates"}
    for game in GAMES:
        assert set(rules_for(game).picture_style()) <= known, game
    assert rules_for("chaser").picture_style()["labels"] == ("C", "H")
    assert rules_for("blokus-duo").picture_style()["marked"] == [[[4, 4]], [[9, 9]]]
    assert rules_for("blokus-duo").picture_style()["coordinates"] == "123456789ABCDE"


def test_the_audit_says_scores_and_idle_teams_in_each_games_words():
    assert rules_for("kakomimasu").score_said(
        {"wall": 3, "territory": 4, "total": 7}) == "7 points (wall 3 · territory 4)"
    assert rules_for("chaser").score_said({"items": 1}) == "1 item"
    assert rules_for("blokus-duo").score_said({"remaining": 80}) == "80 squares left to place"
    assert rules_for("kakomimasu").idle_said(3, 0) == "none (its agents stayed)"
    assert rules_for("chaser").idle_said(3, 1) == "no command"
    blokus = rules_for("blokus-duo")  # A moves on odd turns
    assert blokus.idle_said(3, 1) == "not its move"
    assert blokus.idle_said(3, 0) == "no move sent (the turn passed)"
