"""The play page's legal placements, in a real Chromium: python bench/play_legal.py
[--games N] [--repeat N]

The play page works out, each time a turn is played, every legal placement of the
player's pieces (static/matches/games/blokus-duo.js: `play.view` then `play.legal`); as
the pointer moves it asks one placement's problem (`play.problem`). This plays N games
between the built-in bots (random and greedy, in turns), keeps every position, times
the page's computation once on each in Chromium to find the slowest, then prints the
median and the maximum of --repeat runs on that worst position, and the same for one
pointer move (one placement checked). Goal: under 2 ms for the worst position.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import random
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from matches.rules.blokus_duo_board import (  # noqa: E402
    PIECE_LETTERS,
    legal_moves,
    new_state,
    placement,
    play,
)

CHROMIUM = "/usr/bin/chromium-headless-shell"  # as the browser tests' (make test installs it)
TIMING = """async ([positions, repeat]) => {
  const { default: rules } = await import("/matches/games/blokus-duo.js");
  const { view, legal, problem } = rules.play;
  const work = ({ cells, team, left }) => legal(view(cells, team), left).length;
  for (const position of positions) work(position);  // warm up
  const once = positions.map((position) => {
    const start = performance.now();
    for (let i = 0; i < 20; i += 1) work(position);
    return (performance.now() - start) / 20;
  });
  const worst = once.indexOf(Math.max(...once));
  const position = positions[worst];
  const times = [];
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    work(position);
    times.push(performance.now() - start);
  }
  const seen = view(position.cells, position.team);
  const pointer = [];
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    for (let x = 0; x < 14; x += 1) problem(seen, position.left[0], i % 8, x, i % 14);
    pointer.push((performance.now() - start) / 14);
  }
  const sorted = (list) => [...list].sort((a, b) => a - b);
  return { worst, moves: work(position), position, times: sorted(times),
           pointer: sorted(pointer) };
}"""


def positions(games: int, seed: int = 1) -> list[dict]:
    """Every position of `games` bot games, as the page sees it: the board's rows, the
    team to move and its pieces left."""
    rng, found = random.Random(seed), []
    for game in range(games):
        state, team, passes = new_state(), 0, 0
        while passes < 2:
            moves = legal_moves(state, team)
            left = [p for i, p in enumerate(PIECE_LETTERS) if (state.unused[team] >> i) & 1]
            if moves:
                text = state.cells.decode()
                found.append({"cells": [text[i:i + 14] for i in range(0, 196, 14)],
                              "team": team, "left": left})
                greedy = game % 2 == 0 and team == 0
                chosen = max(moves, key=lambda c: len(placement(c).cells())) if greedy else (
                    rng.choice(moves))
                state, passes = play(state, team, placement(chosen)), 0
            else:
                passes += 1
            team = 1 - team
    return found


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    found = positions(args.games)
    handler = functools.partial(Quiet, directory=str(ROOT / "static"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                 args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/matches/board.js")
            result = page.evaluate(TIMING, [found, args.repeat])
            browser.close()
    finally:
        server.shutdown()
    times, pointer = result["times"], result["pointer"]
    worst = result["position"]
    print(f"{len(found)} positions of {args.games} games; the slowest: team {worst['team']}, "
          f"{len(worst['left'])} pieces left, {result['moves']} legal placements")
    print("\n".join(f"  {row}" for row in worst["cells"]))
    print(f"all legal placements (view + legal), {args.repeat} runs: "
          f"median {times[len(times) // 2]:.3f} ms, p99 {times[len(times) * 99 // 100]:.3f} ms, "
          f"max {times[-1]:.3f} ms (goal < 2 ms)")
    print(f"one pointer move (one placement's problem): "
          f"median {pointer[len(pointer) // 2] * 1000:.2f} µs, max {pointer[-1] * 1000:.2f} µs")


if __name__ == "__main__":
    main()
