"""Who meets whom: round robins, seeded knockout brackets and Swiss rounds."""

import itertools
import random
from collections import Counter

import pytest

from matches.tournaments.pairing import (
    bracket_order,
    knockout_first_round,
    knockout_next,
    round_robin,
    swiss_round,
)


@pytest.mark.parametrize("teams", [2, 3, 4, 5, 8, 9, 16])
def test_a_round_robin_meets_every_pair_once_each_team_once_a_round(teams):
    rounds = round_robin(teams)
    assert len(rounds) == (teams - 1 if teams % 2 == 0 else teams)
    met = [frozenset(pair) for pairs in rounds for pair in pairs]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(p) for p in itertools.combinations(range(teams), 2)), key=sorted)
    for pairs in rounds:
        seen = [team for pair in pairs for team in pair]
        assert len(seen) == len(set(seen)) >= teams - 1
    firsts = Counter(a for pairs in rounds for a, _ in pairs)
    games = Counter(team for pairs in rounds for pair in pairs for team in pair)
    for team in range(teams):  # about half its fixtures first
        assert abs(2 * firsts[team] - games[team]) <= 1 + (teams > 2), (team, firsts, games)


def test_a_double_round_robin_swaps_sides_in_its_second_cycle():
    rounds = round_robin(6, double=True)
    assert len(rounds) == 10
    assert rounds[5:] == [[(b, a) for a, b in pairs] for pairs in rounds[:5]]
    firsts = Counter(a for pairs in rounds for a, _ in pairs)
    assert set(firsts.values()) == {5}


def test_a_bracket_keeps_the_best_seeds_apart_and_gives_them_the_byes():
    assert bracket_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert knockout_first_round(6) == [(0, None), (3, 4), (1, None), (2, 5)]
    assert knockout_first_round(4) == [(0, 3), (1, 2)]
    assert knockout_next([0, 4, 1, 2]) == [(0, 4), (1, 2)]
    first = knockout_first_round(13)
    assert sum(b is None for _, b in first) == 3 and {a for a, b in first if b is None} == {0, 1, 2}


def test_a_swiss_round_steps_aside_from_a_rematch():
    pairs, bye = swiss_round([0, 1, 2, 3], played=[(0, 1), (2, 3), (1, 3)])
    assert bye is None and sorted(map(sorted, pairs)) == [[0, 3], [1, 2]]
    with pytest.raises(ValueError):
        swiss_round([0, 1], played=[(0, 1)])


def test_the_bye_goes_to_the_lowest_ranked_without_one_and_sides_even_out():
    pairs, bye = swiss_round([0, 1, 2, 3, 4], played=[], byes=[4])
    assert bye == 3 and sorted(map(sorted, pairs)) == [[0, 1], [2, 4]]
    pairs, _ = swiss_round([0, 1, 2, 3], played=[], firsts={0: 2, 1: 1, 2: 0, 3: 1})
    assert pairs == [(1, 0), (2, 3)]


def test_nine_swiss_rounds_of_33_teams_never_pair_twice_and_give_one_bye_each():
    rng = random.Random(4)
    scores, played, byes, firsts = Counter(), [], [], Counter()
    for _ in range(9):
        ranking = sorted(range(33), key=lambda t: (-scores[t], t))
        pairs, bye = swiss_round(ranking, played, byes, firsts)
        byes.append(bye)
        scores[bye] += 1
        for a, b in pairs:
            played.append((a, b))
            firsts[a] += 1
            scores[rng.choice((a, b))] += 1
    assert len({frozenset(p) for p in played}) == len(played) == 9 * 16
    assert len(set(byes)) == 9
    assert max(firsts.values()) - min(firsts[t] for t in range(33)) <= 3


def test_pairing_and_standings_load_no_django():
    import subprocess
    import sys
    from pathlib import Path

    program = ("import sys; import matches.tournaments.pairing, matches.tournaments.standings; "
               "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], check=True)
    assert done.stdout.strip() == "[]"
