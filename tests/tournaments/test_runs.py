"""Tournaments of three formats and three games run end to end with the built-in bots,
on a held clock, through the same runner and services as `runclock`."""

from collections import Counter

import pytest

from matches.models import Fixture, Match, Submission, Team
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from matches.tournaments.table import tournament_data
from tests.tournaments.conftest import run_until

# the seated levels answer from a thread of their own
pytestmark = pytest.mark.django_db(transaction=True)


def teams(*names):
    return [EntrantSpec(name) for name in names]


def hand_gpcc(data):
    """GPCC's table computed here from the fixtures alone: score = wins + draws / 2 (a
    bye a win), Solkoff = the opponents' scores, SB = the beaten opponents' scores."""
    score = Counter()
    opponents, beaten = {}, {}
    for number in data["rounds"]:
        for f in number["fixtures"]:
            a, b = f["teams"]
            if b is None:
                score[a] += 1
                continue
            opponents.setdefault(a, []).append(b)
            opponents.setdefault(b, []).append(a)
            if f["winner"] is None:
                score[a] += 0.5
                score[b] += 0.5
            else:
                score[f["winner"]] += 1
                beaten.setdefault(f["winner"], []).append(b if f["winner"] == a else a)
    return {team["index"]: (score[team["index"]],
                            sum(score[o] for o in opponents.get(team["index"], [])),
                            sum(score[o] for o in beaten.get(team["index"], [])))
            for team in data["teams"]}


def test_a_swiss_tournament_of_blokus_duo_runs_to_its_end(clock):
    tournament = tournament_create(Plan(
        name="GPCC rehearsal", game="blokus-duo", format="swiss",
        teams=teams("Alpha", "Beta", "Gamma", "Delta", "Epsilon"), start_at=clock.now(),
        bots=True, gap_seconds=2, public=True)).tournament
    run_until(tournament, clock)
    data = tournament_data(tournament, clock.now())
    assert data["status"] == "finished"
    assert [r["round"] for r in data["rounds"]] == [1, 2, 3]  # log2(5) rounded up
    pairs, byes = [], []
    for number in data["rounds"]:
        for f in number["fixtures"]:
            if f["teams"][1] is None:
                byes.append(f["teams"][0])
            else:
                pairs.append(frozenset(f["teams"]))
                assert f["finished"] and len(f["matches"]) == 1
    assert len(byes) == 3 and len(set(byes)) == 3  # one a round, never twice
    assert len(pairs) == len(set(pairs))  # no rematch
    assert byes[0] == 4  # the lowest seed before any game
    table = hand_gpcc(data)
    for row in data["standings"]:
        score, solkoff, sb = table[row["team"]]
        assert (row["score"], row["tiebreaks"]["solkoff"], row["tiebreaks"]["sb"]) == \
            (score, solkoff, sb)
    keys = [(r["score"], r["tiebreaks"]["solkoff"], r["tiebreaks"]["sb"])
            for r in data["standings"]]
    assert keys == sorted(keys, reverse=True)
    # the bots played through the answer service, every move stored as a bot's
    moves = Submission.objects.filter(match__fixture__tournament=tournament, entered_by="")
    # (levels 1 to 4 in turn, seated at their teams as a practice match's level is)
    assert set(moves.values_list("dialect", flat=True)) == {
        "bot:level-1", "bot:level-2", "bot:level-3", "bot:level-4"}
    # a public tournament's matches are published as each ends: their records for all
    played = Match.objects.filter(fixture__tournament=tournament)
    assert played.count() == len(pairs) and all(match.published for match in played)


def test_a_knockout_of_kakomimasu_plays_its_bracket_with_byes_and_a_third_place(clock):
    tournament = tournament_create(Plan(
        name="Kakomimasu cup", game="kakomimasu", format="knockout",
        teams=teams("S1", "S2", "S3", "S4", "S5", "S6"), start_at=clock.now(), bots=True,
        boards=["A-1", "F-1"], turns=6, strategy_seconds=1, transition_seconds=0.5,
        gap_seconds=1)).tournament
    run_until(tournament, clock)
    assert not Match.objects.filter(fixture__tournament=tournament, published=True).exists()
    fixtures = list(Fixture.objects.filter(tournament=tournament).order_by("round", "slot"))
    first = [f for f in fixtures if f.round == 1]
    # a bracket of 8: the two best seeds get the byes and can meet in the final only
    assert [(f.team_a, f.team_b) for f in first] == [(0, None), (3, 4), (1, None), (2, 5)]
    assert [f.winner for f in first if f.bye] == [0, 1]
    semis = [f for f in fixtures if f.round == 2]
    assert [(f.team_a, f.team_b) for f in semis] == [(0, first[1].winner), (1, first[3].winner)]
    final, third = (next(f for f in fixtures if f.round == 3 and f.stage == stage)
                    for stage in (Fixture.KNOCKOUT, Fixture.THIRD))
    assert {final.team_a, final.team_b} == {s.winner for s in semis}
    assert {third.team_a, third.team_b} == {s.team_a if s.winner == s.team_b else s.team_b
                                            for s in semis}
    # the third-place fixture is played before the final
    third_ends = max(m.start_at for m in Match.objects.filter(fixture=third))
    final_starts = min(m.start_at for m in Match.objects.filter(fixture=final))
    assert third.finished_at <= final_starts and third_ends < final_starts
    # a drawn fixture was replayed until it had a winner (or none was drawn)
    for f in fixtures:
        if not f.bye:
            assert f.winner in f.teams and len(Match.objects.filter(fixture=f)) == f.planned
    # the table of a knockout: the champion, the runner-up, third, fourth, then the two
    # teams out in the first round sharing fifth place
    rows = tournament_data(tournament, clock.now())["standings"]
    loser = final.team_b if final.winner == final.team_a else final.team_a
    third_loser = third.team_b if third.winner == third.team_a else third.team_a
    assert [(r["rank"], r["team"]) for r in rows[:4]] == [
        (1, final.winner), (2, loser), (3, third.winner), (4, third_loser)]
    assert [r["rank"] for r in rows[4:]] == [5, 5]
    # the boards were used in turn
    boards = list(Match.objects.filter(fixture__tournament=tournament).order_by("pk")
                  .values_list("board__name", flat=True))
    assert boards[:2] == ["A-1", "F-1"]


def test_a_round_robin_of_procon_2020_plays_every_pair_over_two_games(clock):
    tournament = tournament_create(Plan(
        name="Procon league", game="procon2020", format="round-robin",
        teams=teams("Hà Nội", "Đà Nẵng", "Huế"), start_at=clock.now(), bots=True,
        turns=3, strategy_seconds=1, transition_seconds=0.5, gap_seconds=1,
        extra={"between_seconds": 2})).tournament
    run_until(tournament, clock)
    data = tournament_data(tournament, clock.now())
    fixtures = [f for r in data["rounds"] for f in r["fixtures"]]
    assert sorted(sorted(f["teams"]) for f in fixtures) == [[0, 1], [0, 2], [1, 2]]
    assert [len(r["fixtures"]) for r in data["rounds"]] == [1, 1, 1]  # one team rests
    for f in fixtures:
        (match,) = [Match.objects.get(pk=pk) for pk in f["matches"]]
        games = [match, *match.later_games.all()]
        assert len(games) == 2 and all(g.over for g in games)
        # the match's result (the totals of both games) is the fixture's
        decided = games[1].result["winner"]
        seeds = dict(Team.objects.filter(match=games[1]).values_list("index", "entrant__index"))
        assert f["winner"] == (None if decided is None else seeds[decided])
        assert f["points"][0]["total"] + f["points"][1]["total"] == sum(
            s["total"] for g in games for s in g.turn_rows.order_by("-number")[0].scores)
    # Procon: wins, then total points
    rows = data["standings"]
    keys = [(r["wins"], r["tiebreaks"]["points"]) for r in rows]
    assert keys == sorted(keys, reverse=True)
