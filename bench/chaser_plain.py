"""CHaser's level 4 against plain programs: python bench/chaser_plain.py [--games 4]

The opponents are the strategies the public sample clients and a first program of a
U-16 team play (their behaviour, written here in our own words):
- `random`: the sample client's walk: a random open neighbour, never onto a block (the
  project's level 1, `wanderer`);
- `collector`: steps onto an item next to it, else walks on, searching now and then
  (the demo's program);
- `hunter`: puts a block on the other player when it is beside it, closes a side of it
  when it is diagonal, walks towards where its searches last saw it (the demo's);
- `right_hand`: keeps its right hand on the wall: turns right where it can, else goes
  straight, else left, else back; takes an item beside it first and blocks the other
  player when it is beside it.

On every shipped map (matches/boards/chaser/), level 4 (`tracker`) plays each opponent
`--games` times, as Cool and as Hot in turn, in-process on the pure rules, each program
told what the server would tell it (matches/bots/arena.py `play_chaser`). Prints per
opponent and map: won, drawn, lost, and level 4's items less the opponent's on average;
then each opponent's total and level 4's think time a step (p50, p99). Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def right_hand_player(seed: str):
    """The wall-follower, as a `Player` of matches/bots/chaser.py."""
    from matches.bots.chaser import BACK, FLOOR, ITEM, WAYS, Player

    right_of = {"u": "r", "r": "d", "d": "l", "l": "u"}
    left_of = dict(zip(right_of.values(), right_of, strict=True))

    class RightHand(Player):
        name = "Right"

        def decide(self, cells: str, at: dict[str, str]) -> str:
            for way in WAYS:
                if at[way] == ITEM:
                    self.heading = way
                    return "w" + way
            for way in (right_of[self.heading], self.heading, left_of[self.heading],
                        BACK[self.heading]):
                if at[way] in (FLOOR, ITEM):
                    self.heading = way
                    return "w" + way
            return "p" + self.heading

    return RightHand(seed)


def maps() -> list[tuple[str, dict, int]]:
    from matches.rules import rules_for
    from matches.rules.chaser import parse_map

    found = []
    for path in sorted((ROOT / "matches" / "boards" / "chaser").glob("*.map")):
        record = parse_map(path.read_text(encoding="utf-8"), path.stem)
        found.append((path.stem, rules_for("chaser").parse_board(record["board"]),
                      record["turns"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games a map and opponent")
    options = parser.parse_args()
    import django  # noqa: F401  (the rules' words need no settings; nothing else is read)

    from matches.bots import arena
    from matches.bots.chaser import PLAYERS

    opponents = {"random": PLAYERS["wanderer"], "collector": PLAYERS["collector"],
                 "hunter": PLAYERS["hunter"], "right_hand": right_hand_player}
    think: list[float] = []
    totals = {}
    print(f"{'opponent':<11} {'map':<16} {'won':>4} {'drawn':>5} {'lost':>4} {'margin':>7}")
    try:
        for name, opponent in opponents.items():
            totals[name] = [0, 0, 0]
            for map_name, board, turns in maps():
                won = drawn = lost = 0
                margins = []
                for game in range(options.games):
                    side = game % 2
                    level4 = PLAYERS["tracker"](f"{map_name}-{game}")
                    other = opponent(f"{map_name}-{game}-o")
                    players = (level4, other) if side == 0 else (other, level4)
                    played = arena.play_chaser(board, turns, players)
                    think += played.think[side]
                    winner = played.result["winner"]
                    won += winner == side
                    lost += winner == 1 - side
                    drawn += winner is None
                    items = [score["items"] for score in played.scores]
                    margins.append(items[side] - items[1 - side])
                print(f"{name:<11} {map_name:<16} {won:>4} {drawn:>5} {lost:>4} "
                      f"{statistics.mean(margins):>+7.1f}", flush=True)
                for index, count in enumerate((won, drawn, lost)):
                    totals[name][index] += count
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    print()
    for name, (won, drawn, lost) in totals.items():
        games = won + drawn + lost
        print(f"level 4 against {name:<11} won {won}, drawn {drawn}, lost {lost} of {games} "
              f"({(won + drawn / 2) / games:.0%})")
    think.sort()
    print(f"level 4's think a step: p50 {1000 * think[len(think) // 2]:.2f} ms, "
          f"p99 {1000 * think[int(len(think) * 0.99)]:.2f} ms")


if __name__ == "__main__":
    main()
