"""A sample hosted program for Kakomimasu (docs/programs.md): what a team hands in to
play through the answer API from the server's own sandbox. It reads its match from the
address, token and match id its environment gives it, answers each open strategy step
once (its agents onto good free cells, then a step each towards the best free cell
near it), and says what it did on standard error: its debug output, shown beside the
replay. Python 3's standard library only."""

import json
import os
import random
import sys
import time
import urllib.error
import urllib.request

BASE = os.environ["SPECTATOR_URL"]
TOKEN = os.environ["SPECTATOR_TOKEN"]
MATCH = os.environ["SPECTATOR_MATCH"]
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def call(method, path, body=None):
    request = urllib.request.Request(
        BASE + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def choose(match):
    me, board, state = match["you"], match["board"], match["state"]
    width, height, points = board["width"], board["height"], board["points"]
    taken = {tuple(cell) for team in state["agents"] for cell in team if cell}
    free = sorted(((points[y][x], x, y) for y in range(height) for x in range(width)
                   if state["cells"][y][x] == "." and (x, y) not in taken), reverse=True)
    best = free[:3 * len(state["agents"][me])]
    random.shuffle(best)
    actions = []
    for agent, cell in enumerate(state["agents"][me]):
        if cell is None:
            if best:
                _, x, y = best.pop()
                actions.append({"agent": agent, "type": "put", "x": x, "y": y})
            continue
        around = [(points[y][x], x, y) for x, y in ((cell[0] + dx, cell[1] + dy)
                                                     for dx, dy in STEPS)
                  if 0 <= x < width and 0 <= y < height and state["cells"][y][x] == "."
                  and (x, y) not in taken]
        if around:
            _, x, y = max(around)
            taken.add((x, y))
            actions.append({"agent": agent, "type": "move", "x": x, "y": y})
    return actions


def main():
    answered = None
    while True:
        status, match = call("GET", f"/api/matches/{MATCH}")
        if status != 200 or match["status"] == "finished":
            return
        step = match.get("strategy_turn")
        if match["status"] == "running" and step and step != answered:
            actions = choose(match)
            status, _ = call("POST", f"/api/matches/{MATCH}/actions",
                             {"turn": step, "actions": actions})
            print(f"turn {step}: {len(actions)} actions -> {status}", file=sys.stderr,
                  flush=True)
            answered = step
        wait = (match.get("deadline") or 0) - match.get("server_time", 0)
        time.sleep(min(max(wait / 1000 / 4, 0.05), 0.5))


if __name__ == "__main__":
    main()
