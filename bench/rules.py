"""Rules-engine speed, in-process: python bench/rules.py [--repeat N]

For each benchmark match it prints the mean and p99 time of resolving one turn,
the time to read and check its record (from the JSON file's bytes to a checked
record, as `manage.py replay` reads one) and the time to compute the whole
timeline/1 from it (each the median of the repeats): reading and checking should
cost less than computing. Then, for
Blokus Duo, the two questions a player's program and the server ask of a
mid-game position: is there any legal move, and which are they (best of runs).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from matches.rules import blokus_duo_board, rules_for  # noqa: E402
from matches.rules.files import record_from_bytes  # noqa: E402
from matches.rules.records import dump_json, parse_record  # noqa: E402
from matches.rules.timeline import compute_timeline  # noqa: E402

VECTORS = ROOT / "tests" / "conformance"
MATCHES = [
    ("kakomimasu", "random24_s42_0", "24x24, 14 agents a team, 100 turns (goal 10 ms)"),
    ("kakomimasu", "stress_nested12", "twelve nested rings built and broken (goal 30 ms)"),
    ("procon2020", "random_s7_07", "20x16, 7 agents a team, 57 turns"),
    ("procon2020", "generated", "20x20, 8 agents a team, 80 turns (goal 8 ms)"),
    ("chaser", "random_s7_00", "15x17, a whole game"),
    ("blokus-duo", "random_s7_00", "a whole game (goal 3 ms)"),
]
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def procon2020_record(seed: int = 2020, side: int = 20, agents: int = 8, turns: int = 80):
    """A Procon 2020 game on a half-turn symmetric side x side field (16 obstacles, 8
    treasures), each agent stepping to a random neighbour every turn and removing it
    instead when it is an opponent tile; the actions are chosen on the true position."""
    rng = random.Random(seed)
    points = [[0] * side for _ in range(side)]
    for y in range(side):
        for x in range(side):
            value = rng.randint(-16, 16) if rng.random() < 0.2 else rng.randint(0, 16)
            points[y][x] = points[side - 1 - y][side - 1 - x] = value
    half = [(x, y) for y in range(side) for x in range(side // 2)]
    rng.shuffle(half)

    def mirrored(cells):
        return [[x, y] for x, y in cells] + [[side - 1 - x, side - 1 - y] for x, y in cells]

    board = {"width": side, "height": side, "points": points,
             "obstacles": mirrored(half[:8]),
             "treasures": [{"x": x, "y": y, "point": 12} for x, y in mirrored(half[8:12])],
             "start": [mirrored(half[12:12 + agents])[:agents],
                       mirrored(half[12:12 + agents])[agents:]]}
    record = {"format": "match-record/1", "game": "procon2020", "board": board,
              "agents": agents, "turns": turns, "teams": [{"name": "A"}, {"name": "B"}]}
    rules = rules_for("procon2020")
    state = rules.initial_state(parse_record(record))
    actions = []
    for _ in range(turns):
        view, turn = rules.view(state), []
        for team in (0, 1):
            orders = []
            for agent, (x, y) in enumerate(view["agents"][team]):
                dx, dy = rng.choice(STEPS)
                inside = 0 <= x + dx < side and 0 <= y + dy < side
                hostile = inside and view["cells"][y + dy][x + dx] == "AB"[1 - team]
                kind = "stay" if rng.random() < 0.05 else "remove" if hostile else "move"
                orders.append({"agent": agent, "type": kind, "dx": dx, "dy": dy})
            turn.append(orders)
        state, _ = rules.resolve_turn(state, turn)
        actions.append(turn)
    return parse_record(record | {"actions": actions})


def record_bytes(game: str, name: str) -> bytes:
    """The match's record file as read from disk (the generated one as written out)."""
    if name == "generated":
        return dump_json(procon2020_record().to_json()).encode()
    return (VECTORS / game / f"{name}.record.json").read_bytes()


def read_time(raw: bytes) -> float:
    start = time.perf_counter()
    record_from_bytes(raw, "record.json")
    return time.perf_counter() - start


def turn_times(record) -> list[float]:
    rules = rules_for(record.game)
    state = rules.initial_state(record)
    times = []
    for actions in record.actions:
        start = time.perf_counter()
        state, _ = rules.resolve_turn(state, actions)
        times.append(time.perf_counter() - start)
    return times


def timeline_time(record) -> float:
    start = time.perf_counter()
    compute_timeline(record)
    return time.perf_counter() - start


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat
    print(f"{'match':<28} {'turns':>5} {'turn mean':>10} {'turn p99':>10}"
          f" {'read+check':>10} {'timeline':>10}")
    for game, name, about in MATCHES:
        raw = record_bytes(game, name)
        record = record_from_bytes(raw, "record.json")
        timeline_time(record)  # warm up imports and caches
        turns = [t for _ in range(repeat) for t in turn_times(record)]
        read = statistics.median(read_time(raw) for _ in range(repeat))
        whole = statistics.median(timeline_time(record) for _ in range(repeat))
        print(
            f"{game + '/' + name:<28} {len(record.actions):>5}"
            f" {statistics.mean(turns) * 1e3:>8.3f}ms"
            f" {percentile(turns, 0.99) * 1e3:>8.3f}ms"
            f" {read * 1e3:>8.2f}ms {whole * 1e3:>8.2f}ms   {about}"
        )

    blokus_positions()


def blokus_positions() -> None:
    """Mid-game positions of the random games: the cache of legal moves is cleared
    before every call, so each one computes from scratch."""
    print("\nBlokus Duo, the mover's position after N turns (mean over the 10 random games,"
          " best of 7 runs each):")
    print(f"{'after':>7} {'moves':>6} {'any legal move':>15} {'all legal moves':>16}")
    rules = rules_for("blokus-duo")
    for after in (4, 8, 12, 16):
        anys, alls, counts = [], [], []
        for path in sorted((VECTORS / "blokus-duo").glob("random_s7_*.record.json")):
            record = parse_record(path.read_text())
            state = rules.initial_state(record)
            for actions in record.actions[:after]:
                state, _ = rules.resolve_turn(state, actions)

            def any_move(state=state):
                state.legal.clear()
                return blokus_duo_board.has_legal_move(state, state.mover)

            def all_moves(state=state):
                state.legal.clear()
                return blokus_duo_board.legal_moves(state)

            anys.append(min(timeit.repeat(any_move, number=2000, repeat=7)) / 2000)
            alls.append(min(timeit.repeat(all_moves, number=200, repeat=7)) / 200)
            counts.append(len(all_moves()))
        print(f"{after:>7} {statistics.mean(counts):>6.0f} {statistics.mean(anys) * 1e6:>12.1f} µs"
              f" {statistics.mean(alls) * 1e6:>13.1f} µs")
    print("goals: any legal move under 20 µs, all legal moves under 150 µs")


if __name__ == "__main__":
    main()
