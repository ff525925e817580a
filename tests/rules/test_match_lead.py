"""The last game of a match decided by its games' sums (Procon 2020's two): the ▲ and the
bar follow this game's numbers, as its cards show them, while it is played; once the
match's result is in, its winner has the ▲ and, where this game's numbers favour the
other team, the whole bar, so the two never point at different teams."""

from matches.rules import rules_for

RULES = rules_for("procon2020")


def procon(a: int, b: int) -> list[dict[str, int]]:
    return [{"tile": a, "area": 0, "treasure": 0, "total": a},
            {"tile": b, "area": 0, "treasure": 0, "total": b}]


def test_while_the_second_game_is_played_the_mark_and_the_bar_follow_its_numbers():
    lead = RULES.lead(procon(100, 300))
    assert lead["team"] == 1 and lead["share"] == 0.25


def test_the_matchs_winner_behind_in_the_last_game_has_the_mark_and_the_whole_bar():
    result = RULES.match_result([(procon(900, 100), {}), (procon(100, 300), {})], 2)
    assert result["winner"] == 0 and result["decided_by"] == "total"
    lead = RULES.lead(procon(100, 300), result)
    assert lead["team"] == 0
    assert lead["share"] == 1.0  # the bar agrees with the ▲, not with this game's lead


def test_the_matchs_winner_ahead_in_the_last_game_keeps_its_bar():
    result = RULES.match_result([(procon(900, 100), {}), (procon(300, 100), {})], 2)
    assert RULES.lead(procon(300, 100), result) == {"team": 0, "margin": 200, "share": 0.75}


def test_a_tie_break_on_level_numbers_keeps_the_even_bar():
    scores = [{"wall": 60, "territory": 60, "total": 120},
              {"wall": 55, "territory": 65, "total": 120}]
    lead = rules_for("kakomimasu").lead(scores, {"winner": 0, "decided_by": "wall"})
    assert lead == {"team": 0, "margin": 0, "share": 0.5}
