"""Who meets whom in a tournament: pure functions over team numbers (0..n-1), no Django.

- `round_robin`: every pair once (or twice, sides swapped), n - 1 rounds for n even
  (a bye each round for n odd), each team moving first in about half its fixtures.
- `knockout_first_round` and `knockout_next`: a seeded bracket, the top seeds given the
  byes up to the next power of two; the winners meet in bracket order.
- `swiss_round`: teams paired within their score groups, best first, never twice; an
  odd team out (the lowest ranked that has had none) gets the bye; the team that has
  moved first less often moves first.

A pair is (first, second): the first plays first (Cool, the first player, team A).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Pair = tuple[int, int]


def round_robin(teams: int, double: bool = False) -> list[list[Pair]]:
    """The rounds of a round robin by the circle method; with `double`, a second cycle
    of the same rounds with sides swapped. A team left without a partner in a round (n
    odd) has its bye then and appears in no pair."""
    order: list[int | None] = list(range(teams)) + ([None] if teams % 2 else [])
    size = len(order)
    rounds = []
    for number in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = order[i], order[size - 1 - i]
            if a is None or b is None:
                continue
            # the fixed team alternates sides by round; the others by their place
            swap = number % 2 == 1 if i == 0 else i % 2 == 1
            pairs.append((b, a) if swap else (a, b))
        rounds.append(pairs)
        order = [order[0], order[-1], *order[1:-1]]  # turn the circle by one
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def bracket_order(size: int) -> list[int]:
    """Seeds (0 the best) in bracket order for a bracket of `size` (a power of two), so
    that the best two can meet only in the final: 0 3 1 2 for four."""
    order = [0]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for each in order for seed in (each, width - 1 - each)]
    return order


def knockout_first_round(teams: int) -> list[tuple[int, int | None]]:
    """The first round's pairs in bracket order, by seed (0 the best); a pair with None
    is a bye, given to the best seeds."""
    size = 1
    while size < teams:
        size *= 2
    seeds = bracket_order(size)
    pairs = []
    for i in range(0, size, 2):
        a, b = seeds[i], seeds[i + 1]
        pairs.append((a, b if b < teams else None) if a < teams else (b, None))
    return pairs


def knockout_next(winners: Sequence[int]) -> list[Pair]:
    """The next round: the winners of pairs 1 and 2 meet, of 3 and 4, and so on."""
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners) - 1, 2)]


def swiss_round(ranking: Sequence[int], played: Iterable[Iterable[int]],
                byes: Iterable[int] = (), firsts: Mapping[int, int] | None = None,
                ) -> tuple[list[Pair], int | None]:
    """A Swiss round: `ranking` the teams best first (by score, then the tie-breaks),
    `played` the pairs that have met, `byes` the teams that have had a bye, `firsts`
    how often each has moved first. Returns the pairs and the team with the bye (None
    for an even number). ValueError when no pairing without a rematch exists."""
    met = {frozenset(pair) for pair in played}
    firsts = firsts or {}
    order = list(ranking)
    bye = None
    if len(order) % 2:
        had = set(byes)
        bye = next((team for team in reversed(order) if team not in had), order[-1])
        order.remove(bye)
    pairs = _pair(order, met)
    if pairs is None:
        raise ValueError("no pairing of this round avoids a rematch")
    sided = []
    for a, b in pairs:  # `a` is the higher ranked
        sided.append((b, a) if firsts.get(b, 0) < firsts.get(a, 0) else (a, b))
    return sided, bye


def _pair(order: list[int], met: set[frozenset]) -> list[Pair] | None:
    """Top down: the best unpaired team with the best it has not met; when the teams
    below cannot all be paired so, its next choice (depth-first, so the pairs stay as
    close to the ranking as the rematches allow)."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for index, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        below = _pair(rest[:index] + rest[index + 1:], met)
        if below is not None:
            return [(first, other), *below]
    return None
