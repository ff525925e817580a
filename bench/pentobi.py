"""Our Blokus Duo levels against Pentobi, the strongest public Blokus program:
python bench/pentobi.py PATH/TO/pentobi-gtp [--pair 4:3 --pair 3:1] [--games 8] [--budget 1]

Each pairing "ours:theirs" (our level 1-4 against Pentobi's level 1-9) plays --games
games in-process on our pure rules (matches/bots/arena.py), our side alternating
between Blue (team 0, moves first, starts at 55) and Orange (team 1). Our bot is given
--budget seconds a move (one second: the goal's condition); Pentobi runs single-threaded
as a GTP engine (`pentobi-gtp --game duo --level N --noresign`), told each of our moves
and asked for its own, which are translated both ways (see below). Prints per pairing
and per colour our wins, draws and losses, the mean margin (their squares left minus
ours: above 0 is good for us) and our thinking time a move (p50 and p99).

Building pentobi-gtp (GPL, github.com/enz/pentobi; outside this project), e.g.:

    git clone https://github.com/enz/pentobi /tmp/pentobi-src
    mkdir -p /tmp/pentobi-build && cd /tmp/pentobi-build
    cmake -DPENTOBI_BUILD_GUI=OFF -DPENTOBI_BUILD_GTP=ON -DCMAKE_BUILD_TYPE=Release \\
        /tmp/pentobi-src
    nice -n 10 make -j1 pentobi-gtp     # gives /tmp/pentobi-build/pentobi_gtp/pentobi-gtp

Pentobi plays its first moves from its opening book as its GUI does (--book, by
default /tmp/pentobi-src/opening_books/book_duo.blksgf when it is there).

Without the program the bench says so and exits with status 0 (nothing measured).

Coordinates. Pentobi names a move by its cells, "e8,d9,e9": a column letter a-n left to
right and a row 1-14 from the bottom. Our cell (x, y), y pointing down, is column
x and row 14 - y; so our 55 (Blue's start) is Pentobi's e10 and our AA is j5, the two
programs' start points alike. Pentobi's Blue ("b") is our team 0, its Green/Orange
("w") our team 1.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COLOURS = ("b", "w")
# where the opening book usually is, when the program was built as the docstring says
BOOKS = (Path("/tmp/pentobi-src/opening_books/book_duo.blksgf"),)
SIZE = 14


def to_pentobi(code: str) -> str:
    """Our move code as Pentobi's list of cells."""
    from matches.rules.blokus_duo_board import placement

    return ",".join(f"{'abcdefghijklmn'[x]}{SIZE - y}"
                    for x, y in sorted(placement(code).cells(), key=lambda c: (-c[1], c[0])))


def from_pentobi(text: str, state, team: int) -> str:
    """Pentobi's move (cells) as one of our legal codes for `team`; ValueError if none."""
    from matches.rules.blokus_duo_board import legal_moves, placement

    wanted = set()
    for cell in text.strip().lower().split(","):
        wanted.add(("abcdefghijklmn".index(cell[0]), SIZE - int(cell[1:])))
    for code in legal_moves(state, team):
        if set(placement(code).cells()) == wanted:
            return code
    raise ValueError(f"Pentobi's move {text!r} is not legal for team {team} here")


class Pentobi:
    """One pentobi-gtp process, kept in step with a game of ours."""

    def __init__(self, program: str, level: int, seed: int, book: str | None):
        self.process = subprocess.Popen(
            [program, "--game", "duo", "--level", str(level), "--noresign", "--quiet",
             "--threads", "1", "--seed", str(seed),
             *(["--book", book] if book else ["--nobook"])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1)
        self.told = 0  # how many of the game's turns it has been told

    def ask(self, command: str) -> str:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"pentobi-gtp stopped after {command!r}")
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.strip())
        answer = "\n".join(lines)
        if not answer.startswith("="):
            raise RuntimeError(f"pentobi-gtp: {command!r} -> {answer!r}")
        return answer[1:].strip()

    def new_game(self) -> None:
        self.ask("clear_board")
        self.told = 0

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.ask("quit")
        self.process.wait(timeout=10)

    def bot(self, public, team, rng):
        """A player for arena.play_match: tells Pentobi the moves it has not seen, then
        asks for its own."""
        from matches.bots.blokus_duo import position

        for turn in public["actions"][self.told:]:
            for side, outcomes in enumerate(turn["outcomes"]):
                for outcome in outcomes:
                    code = outcome.get("move")
                    if (side != team and outcome.get("result") == "ok"
                            and code not in ("----", "0000")):
                        self.ask(f"play {COLOURS[side]} {to_pentobi(code)}")
        self.told = len(public["actions"])
        answer = self.ask(f"genmove {COLOURS[team]}")
        if answer == "pass":
            return [{"move": "----"}]
        return [{"move": from_pentobi(answer, position(public), team)}]


def play_pairing(program: str, ours: int, theirs: int, games: int, budget: float,
                 seed: int, book: str | None,
                 sides: tuple[int, ...] = (0, 1)) -> list[tuple[int, float, int, list[float]]]:
    """(our team, result for us: 1 won, 0.5 drawn, 0 lost, margin, our think times) a
    game; our colour (team) in turn from `sides`."""
    from matches.boards.specs import board_spec_fixed
    from matches.bots import arena
    from matches.bots.blokus_duo import BOTS, LEVELS

    board, hints = board_spec_fixed("blokus-duo")
    mine = BOTS[LEVELS[ours - 1]]
    engine = Pentobi(program, theirs, seed, book)
    rows = []
    try:
        for index in range(games):
            team = sides[index % len(sides)]
            engine.new_game()
            engine.ask(f"set_random_seed {seed + index}")
            players = (mine, engine.bot) if team == 0 else (engine.bot, mine)
            budgets = (budget, None) if team == 0 else (None, budget)
            played = arena.play_match("blokus-duo", board, hints["agents"], hints["turns"],
                                      players, seed=f"pentobi-{seed}-{index}",
                                      budgets=budgets)
            if any(played.faults):
                raise RuntimeError(f"illegal moves in game {index}: {played.faults}")
            winner = played.result["winner"]
            outcome = 0.5 if winner is None else float(winner == team)
            margin = (played.scores[1 - team]["remaining"]
                      - played.scores[team]["remaining"])
            rows.append((team, outcome, margin, played.think[team]))
            print(f"  {ours} v pentobi {theirs} game {index + 1}: we are "
                  f"{'Blue' if team == 0 else 'Orange'}, "
                  f"{ {1.0: 'won', 0.5: 'drew', 0.0: 'lost'}[outcome]} by {margin:+d}",
                  flush=True)
    finally:
        engine.close()
    return rows


def report(ours: int, theirs: int, rows) -> None:
    for label, picked in (("Blue", [r for r in rows if r[0] == 0]),
                          ("Orange", [r for r in rows if r[0] == 1]), ("both", rows)):
        if not picked:
            continue
        outcomes = [r[1] for r in picked]
        think = sorted(t for r in picked for t in r[3])
        p99 = think[min(len(think) - 1, int(len(think) * 0.99))] if think else 0.0
        share = sum(outcomes) / len(outcomes)
        print(f"ours {ours} v pentobi {theirs}  {label:<6} games {len(picked):>2}  "
              f"won {outcomes.count(1.0):>2} drawn {outcomes.count(0.5):>2} "
              f"lost {outcomes.count(0.0):>2}  score {share:>4.0%}  "
              f"margin {statistics.mean(r[2] for r in picked):+6.1f}  "
              f"think p50 {statistics.median(think) * 1000 if think else 0:6.0f}ms "
              f"p99 {p99 * 1000:6.0f}ms", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", help="path of pentobi-gtp")
    parser.add_argument("--pair", action="append",
                        help="OURS:THEIRS levels, e.g. 4:3 (repeatable; default 3:1 and 4:3)")
    parser.add_argument("--games", type=int, default=8, help="games a pairing (default 8)")
    parser.add_argument("--budget", type=float, default=1.0,
                        help="our seconds a move (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--colour", choices=("both", "blue", "orange"), default="both",
                        help="our colour (default both, in turn)")
    parser.add_argument("--book", help="Pentobi's Duo opening book (its source's "
                        "opening_books/book_duo.blksgf; default: the one beside the "
                        "program's source if found, else none: --nobook)")
    options = parser.parse_args()
    program = shutil.which(options.program) or options.program
    if not Path(program).is_file():
        print(f"pentobi-gtp not found at {options.program!r}: nothing measured. "
              "Build it as this script's docstring says (python bench/pentobi.py --help).")
        return
    if options.book is None:
        options.book = next((str(path) for path in BOOKS if path.is_file()), None)
    print(f"pentobi-gtp {program}, book {options.book or 'none (--nobook)'}, "
          f"our budget {options.budget:g} s a move", flush=True)
    random.seed(options.seed)
    for pair in options.pair or ["3:1", "4:3"]:
        ours, theirs = (int(part) for part in pair.split(":"))
        rows = play_pairing(program, ours, theirs, options.games, options.budget,
                            options.seed, options.book,
                            {"both": (0, 1), "blue": (0,), "orange": (1,)}[options.colour])
        report(ours, theirs, rows)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
