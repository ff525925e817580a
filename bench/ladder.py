"""The built-in players' strength, measured: python bench/ladder.py [--games 40] [--game G]
[--level 4] [--budget 1.0] [--jobs 1]

For every game with built-in bots, each level plays the level below it (2 against 1, 3
against 2, 4 against 3) --games times, in-process on the pure rules
(matches/bots/arena.py), sides alternating, over varied boards: the game's public boards
and then its random ones; a game played on one board only (Blokus Duo) starts each
match with two random moves a side instead. Prints a line per pair: the upper level's
wins, losses and draws, its score (a draw counts half; the goal is 75 % or more), and
its thinking time a move (p50 and p99). Level 4 thinks `--budget` seconds a move where
given (what a seated level gets: services/seats.py), else its quick fixed amount of work.
CHaser's levels are programs that play over TCP; here each is told what the server
would tell it, on the pure rules, over the shipped maps. Matches are shared out over
--jobs processes (the machine's cores; 1 plays them in this process). Ctrl-C stops it at
once.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL = 0.75


def boards(game: str, count: int) -> list[tuple[str, dict, int, int]]:
    """`count` boards to play on, as (name, board, agents, turns), repeating if short."""
    from matches.boards.specs import board_spec_fixed, board_spec_public, public_boards
    from matches.rules import rules_for
    from matches.rules.chaser import parse_map

    if game == "chaser":  # the shipped maps, in turn
        maps = sorted((ROOT / "matches" / "boards" / "chaser").glob("*.map"))
        records = [parse_map(path.read_text(encoding="utf-8"), path.stem) for path in maps]
        found = [(record["title"] or path.stem, rules_for(game).parse_board(record["board"]),
                  0, record["turns"]) for path, record in zip(maps, records, strict=True)]
        return [found[index % len(found)] for index in range(count)]

    fixed = board_spec_fixed(game)
    if fixed is not None:
        board, hints = fixed
        return [(hints["name"], board, hints["agents"], hints["turns"])] * count
    rules, found = rules_for(game), []
    for name in public_boards(game):
        board, hints = board_spec_public(game, name)
        found.append((name, board, hints.get("agents", 6), hints.get("turns", 30)))
    seed = 0
    while len(found) < count:
        board, hints = rules.random_board(seed)
        found.append((f"random {seed}", rules.parse_board(board), hints.get("agents", 6),
                      hints.get("turns", 30)))
        seed += 1
    return found[:count]


def one_match(job: tuple) -> tuple[str, int, float | None, list[float], int]:
    """(game, level, upper level's result: 1 won, 0 lost, 0.5 drawn; its think times; its
    actions judged invalid)."""
    from matches.boards.specs import board_spec_fixed
    from matches.bots import arena, bots_for, levels

    game, level, index, (name, board, agents, turns), budget = job
    names, side = levels(game), index % 2
    if game == "chaser":  # programs, told what a server would tell them
        from matches.bots.chaser import PLAYERS

        upper, lower = (PLAYERS[names[level - n]](f"{index}-{n}") for n in (1, 2))
        played = arena.play_chaser(board, turns, (upper, lower) if side == 0 else (lower, upper))
        winner = played.result["winner"]
        outcome = 0.5 if winner is None else float(winner == side)
        return game, level, outcome, played.think[side], played.faults[side]
    bots = bots_for(game)
    upper, lower = bots[names[level - 1]], bots[names[level - 2]]
    players = (upper, lower) if side == 0 else (lower, upper)
    opening = (2, bots[names[0]]) if board_spec_fixed(game) is not None else (0, None)
    budgets = (budget if level == 4 else None, None)  # level 4's seconds a move
    played = arena.play_match(game, board, agents, turns, players, seed=index,
                              opening=opening, budgets=budgets if side == 0 else budgets[::-1])
    winner = played.result["winner"]
    outcome = 0.5 if winner is None else float(winner == side)
    return game, level, outcome, played.think[side], played.faults[side]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="matches a pair (default 40)")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count(),
                        help="processes (1: in this one, for a shared machine)")
    parser.add_argument("--budget", type=float, default=None,
                        help="level 4's seconds a move (default: its quick fixed work)")
    parser.add_argument("--level", type=int, action="append",
                        help="only the pair of this upper level (repeatable)")
    options = parser.parse_args()
    from matches.bots import levels
    from matches.rules import GAMES

    games = [game for game in (options.game or GAMES) if len(levels(game)) >= 2]
    jobs = []
    for game in games:
        places = boards(game, (options.games + 1) // 2)
        for level in range(2, len(levels(game)) + 1):
            if options.level and level not in options.level:
                continue
            jobs += [(game, level, index, places[index // 2], options.budget)
                     for index in range(options.games)]
    results: dict[tuple[str, int], list] = {}
    if options.jobs <= 1:
        for job in jobs:
            game, level, outcome, think, faults = one_match(job)
            results.setdefault((game, level), []).append((outcome, think, faults))
    else:
        # workers ignore Ctrl-C: this process stops them (terminate) and leaves at once
        with multiprocessing.Pool(options.jobs, signal.signal,
                                  (signal.SIGINT, signal.SIG_IGN)) as pool:
            try:
                for game, level, outcome, think, faults in pool.imap_unordered(one_match, jobs):
                    results.setdefault((game, level), []).append((outcome, think, faults))
            except KeyboardInterrupt:
                pool.terminate()
                raise SystemExit(130) from None
    print(f"{'game':<12} {'pair':<16} {'won':>4} {'lost':>4} {'drawn':>5} {'score':>6}  "
          f"{'think p50':>9} {'p99':>8}  faults")
    for game in games:
        names = levels(game)
        for level in range(2, len(names) + 1):
            rows = results.get((game, level))
            if not rows:
                continue
            outcomes = [row[0] for row in rows]
            think = sorted(t for row in rows for t in row[1])
            share = sum(outcomes) / len(outcomes)
            p99 = think[min(len(think) - 1, int(len(think) * 0.99))]
            print(f"{game:<12} {f'{level} {names[level - 1]} v {level - 1}':<16} "
                  f"{outcomes.count(1.0):>4} {outcomes.count(0.0):>4} {outcomes.count(0.5):>5} "
                  f"{share:>6.0%}  {statistics.median(think) * 1000:>7.1f}ms "
                  f"{p99 * 1000:>6.1f}ms  {sum(row[2] for row in rows)}"
                  f"{'' if share >= GOAL else '  (under the 75 % goal)'}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
