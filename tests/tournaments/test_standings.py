"""Tables ranked by each contest's rules (each game's `ranking`), checked against
tables worked out by hand."""

from datetime import UTC

from matches.rules import rules_for
from matches.rules.base import Ranking
from matches.tournaments.standings import FixtureResult, standings

GPCC = rules_for("blokus-duo").ranking


def table(rows):
    return [(row.rank, row.team, row.score, row.tiebreaks) for row in rows]


def test_gpcc_score_then_solkoff_then_sb():
    # 0 beats 3, 1 and 2 draw; 2 beats 0, 1 beats 3; 0 beats 1, 3 beats 2
    results = [FixtureResult((0, 3), 0), FixtureResult((2, 1), None),
               FixtureResult((2, 0), 2), FixtureResult((1, 3), 1),
               FixtureResult((0, 1), 0), FixtureResult((3, 2), 3)]
    # scores: 0: 2, 1: 1.5, 2: 1.5, 3: 1; Solkoff: 0: 1 + 1.5 + 1.5, 1: 1.5 + 1 + 2,
    # 2: 1.5 + 2 + 1, 3: 2 + 1.5 + 1.5; SB: 1 beat 3 (1), 2 beat 0 (2)
    assert table(standings(4, results, GPCC)) == [
        (1, 0, 2.0, {"solkoff": 4.0, "sb": 2.5}),
        (2, 2, 1.5, {"solkoff": 4.5, "sb": 2.0}),
        (3, 1, 1.5, {"solkoff": 4.5, "sb": 1.0}),
        (4, 3, 1.0, {"solkoff": 5.0, "sb": 1.5}),
    ]


def test_equal_teams_share_a_rank_and_a_bye_is_a_win():
    results = [FixtureResult((0, 1), None), FixtureResult((2, 3), 2)]
    rows = standings(5, results, GPCC, byes=[4])
    assert [(row.rank, row.team) for row in rows] == [(1, 2), (1, 4), (3, 0), (3, 1), (5, 3)]
    assert rows[1].wins == 1 and rows[1].played == 1 and rows[1].byes == 1


def test_kakomimasu_wins_draws_losses_then_points_wall_territory():
    def points(total, wall):
        return {"total": total, "wall": wall, "territory": total - wall}

    results = [FixtureResult((0, 1), 0, (points(40, 30), points(20, 20))),
               FixtureResult((2, 3), 2, (points(35, 25), points(30, 10))),
               FixtureResult((0, 2), None, (points(30, 20), points(30, 10))),
               FixtureResult((1, 3), None, (points(10, 10), points(10, 5)))]
    rows = standings(4, results, rules_for("kakomimasu").ranking)
    # 0 and 2: one win, one draw; 0 has 70 points against 65
    assert [row.team for row in rows] == [0, 2, 3, 1]
    assert rows[0].tiebreaks == {"points": 70, "wall": 50, "territory": 20}
    assert rows[2].tiebreaks["points"] == 40 and rows[3].tiebreaks["points"] == 30


def test_procon_wins_then_points_and_chaser_wins_games_items():
    results = [FixtureResult((0, 1), 1, ({"total": 90}, {"total": 80})),
               FixtureResult((2, 0), 0, ({"total": 50}, {"total": 60})),
               FixtureResult((1, 2), 2, ({"total": 10}, {"total": 95}))]
    # one win each: points 150, 145, 90
    rows = standings(3, results, rules_for("procon2020").ranking)
    assert [(row.team, row.tiebreaks["points"]) for row in rows] == [(0, 150), (2, 145), (1, 90)]
    chaser = [FixtureResult((0, 1), 0, ({"games": 2, "items": 9}, {"games": 1, "items": 14})),
              FixtureResult((1, 2), 1, ({"games": 2, "items": 3}, {"games": 0, "items": 8})),
              FixtureResult((2, 0), 2, ({"games": 2, "items": 7}, {"games": 1, "items": 5}))]
    rows = standings(3, chaser, rules_for("chaser").ranking)
    # a match win each; games 3, 3, 2; items 14 (0), 17 (1), 15 (2)
    assert [(row.team, row.tiebreaks) for row in rows] == [
        (1, {"games": 3, "items": 17}), (0, {"games": 3, "items": 14}),
        (2, {"games": 2, "items": 15})]


def test_a_draw_scores_half_a_win_only_where_the_ranking_says_so():
    results = [FixtureResult((0, 1), None), FixtureResult((1, 2), 1)]
    assert [row.score for row in standings(3, results, GPCC)] == [1.5, 0.5, 0.0]
    plain = Ranking(order=("score",))
    assert [(row.team, row.score) for row in standings(3, results, plain)] == [
        (1, 1), (0, 0), (2, 0)]


def test_fewer_losses_rank_higher_and_every_ranking_names_known_keys():
    # 0: a draw; 1: a draw and a loss; equal on wins and draws, 0 has fewer losses
    results = [FixtureResult((0, 1), None), FixtureResult((1, 2), 2)]
    by_losses = Ranking(order=("wins", "draws", "fewer losses"))
    assert [row.team for row in standings(3, results, by_losses)] == [2, 0, 1]
    for game in ("kakomimasu", "procon2020", "chaser", "blokus-duo"):
        ranking = rules_for(game).ranking
        names = {name for name, _ in ranking.tiebreaks}
        assert set(ranking.order) <= names | {"score", "wins", "draws", "fewer losses"}, game


def test_a_bye_counts_once_its_round_is_over_not_before():
    from datetime import datetime

    from matches.models import Fixture
    from matches.tournaments.table import results_of

    done = datetime(2026, 11, 26, tzinfo=UTC)
    round_1 = [Fixture(round=1, slot=0, team_a=0, team_b=1),
               Fixture(round=1, slot=1, team_a=2, winner=2, finished_at=done, decided_by="bye")]
    assert results_of(round_1) == ([], [])  # before the round is played: no win yet
    round_1[0].winner, round_1[0].finished_at, round_1[0].points = 0, done, []
    results, byes = results_of(round_1)
    assert [result.teams for result in results] == [(0, 1)] and byes == [2]
