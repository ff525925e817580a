"""Full-page screenshots of every page, for looking at the screens (not a test).

    .venv/bin/python -m tests.e2e.screenshots OUT_DIR [--pages front venue wall ...]
        [--sizes 1920x1080 1280x800 390x844] [--themes dark light] [--languages en ja vi]
        [--keep]

Starts the whole system (`manage.py demo --no-bots`, which serves the pages and runs the
clock) on a free port with its own SQLite database in a fresh folder (SPECTATOR_VAR_DIR;
nothing of var/ is touched; removed at the end, kept and named when something failed),
then stores:

- two live public matches of the first live game, played through the answer API by
  the built-in bots (one team also sends an off-board move now and then, so the board
  shows walls, territory, agents and failures), and one upcoming match;
- one published match of every game, imported from `tests/conformance/<game>/`;
- a judge (`judge` / `screenshots`) to open the audit pages.

It waits for the live matches to play some turns and writes
OUT_DIR/<page>-<size>-<theme>[-<language>].png (the language where more than one is
asked for: the browser's own, as a visitor's) for each page: front, published, login,
venue, replay and play (as a visitor: the form's hints) of each match, the walls
`/screens/?matches=…` of 1 to 6 matches, audit (as the judge), tv, embed and apidocs
(pages that answer 404, such as one not built yet, are skipped and named). Pages that
update live are given a few seconds first. Chromium is Debian's headless build
(/usr/bin/chromium-headless-shell).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from matches.bots import bots_for
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM, free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["front", "published", "login", "venue", "replay", "play", "wall", "tv", "embed",
         "audit", "apidocs"]
SIZES = ["1920x1080", "1280x800", "390x844"]
THEMES = ["dark", "light"]
JUDGE = ("judge", "screenshots")
RECORD = "random_s7_00.record.json"  # one record of each game's conformance folder
LIVE_TURNS = 12  # wait until the live matches have played this many turns


def manage(env: dict, *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def api(base: str, match_id: int, token: str, method: str = "GET", body=None) -> dict:
    request = urllib.request.Request(
        f"{base}/api/matches/{match_id}{'/actions' if body is not None else ''}",
        method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read() or b"{}")


def play(base: str, match_id: int, team: int, token: str, bot: str, stop: threading.Event):
    """One team's program: the bot's actions each strategy step; team 1 sometimes adds a
    move off the board, so that the turn shows invalid actions."""
    rng, played = random.Random(f"{match_id}-{team}"), None
    while not stop.is_set():
        try:
            state = api(base, match_id, token)
        except OSError:
            time.sleep(0.3)
            continue
        if state.get("status") == "finished":
            return
        turn = state.get("strategy_turn")
        if turn and turn != played and state.get("turn") == turn - 1:
            actions = bots_for("kakomimasu")[bot](state, team, rng)
            if team == 1 and actions and rng.random() < 0.5:
                actions[0] = {"agent": actions[0]["agent"], "type": "move", "x": -1, "y": 0}
            try:
                api(base, match_id, token, "POST", {"turn": turn, "actions": actions})
            except OSError:  # the server stopping: the next reading says so
                continue
            played = turn
        time.sleep(0.1)


def setup(env: dict, base: str, stop: threading.Event) -> dict[str, list[int]]:
    """The matches and the judge; the live matches' players start in threads."""
    manage(env, "migrate", "--verbosity", "0")
    manage(dict(env, JUDGE_PASSWORD=JUDGE[1]), "createjudge", JUDGE[0])
    live, tokens = [], []
    for board, names, bots in (("Kakom-1", ("Đội Hà Nội Phương Đông", "Nara 奈良高専"),
                                ("greedy", "random")),
                               ("A-1", ("Alpha", "Beta"), ("greedy", "greedy"))):
        made = json.loads(manage(env, "creatematch", "--board", board, "--teams", *names,
                                 "--turns", "200", "--strategy-seconds", "0.8",
                                 "--transition-seconds", "0.2", "--start-in", "3",
                                 "--public", "--json"))
        live.append(made["id"])
        tokens.append(made["teams"][0]["token"])
        for team, (who, bot) in enumerate(zip(made["teams"], bots, strict=True)):
            threading.Thread(target=play, daemon=True,
                             args=(base, made["id"], team, who["token"], bot, stop)).start()
    manage(env, "creatematch", "--board", "island-1", "--teams", "Later", "Soon",
           "--start-in", "3600", "--public")
    imported = []
    for folder in sorted((ROOT / "tests" / "conformance").iterdir()):
        if (folder / RECORD).exists():
            imported.append(int(manage(env, "importrecord", str(folder / RECORD), "--publish")))
    return {"live": live, "imported": imported, "token": tokens[0]}


def wait_for_turns(base: str, match_id: int, token: str, turns: int, seconds: float = 90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and api(base, match_id, token).get("turn", 0) < turns:
        time.sleep(0.5)


def urls(pages: list[str], matches: dict[str, list[int]]) -> list[tuple[str, str, float]]:
    """(name, path, seconds to let it settle) of every wanted page."""
    every = matches["live"] + matches["imported"]
    out: list[tuple[str, str, float]] = []
    for page in pages:
        if page in ("front", "published", "login", "tv", "apidocs"):
            path = {"front": "/", "published": "/matches/", "login": "/accounts/login/",
                    "tv": "/tv/", "apidocs": "/api/docs"}[page]
            out.append((page, path, 3.0 if page in ("front", "tv") else 0.5))
        elif page in ("venue", "replay", "play", "embed", "audit"):
            tail = {"venue": "/", "replay": "/replay", "play": "/play", "embed": "/embed",
                    "audit": "/audit"}
            for match in every:
                out.append((f"{page}-{match}", f"/matches/{match}{tail[page]}",
                            2.5 if page in ("venue", "embed") else 1.0))
            if page == "embed":  # a fixed turn
                out.append((f"embed-{every[0]}-turn-5", f"/matches/{every[0]}/embed?turn=5", 1.0))
        elif page == "wall":
            for count in range(1, 7):
                shown = ",".join(str(m) for m in every[:count])
                out.append((f"wall-{count}", f"/screens/?matches={shown}", 3.0))
        else:
            raise SystemExit(f"unknown page {page!r}: one of {', '.join(PAGES)}")
    return out


def shoot(base: str, out: Path, pages, sizes: list[str], themes: list[str],
          languages: list[str]) -> list[str]:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    skipped: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        for theme, size, language in [(t, s, lang) for t in themes for s in sizes
                                      for lang in languages]:
            width, height = (int(n) for n in size.split("x"))
            context = browser.new_context(viewport={"width": width, "height": height},
                                          device_scale_factor=1, locale=language)
            page = context.new_page()
            if any(name.startswith("audit") for name, _, _ in pages):
                page.goto(f"{base}/accounts/login/")
                page.fill("input[name=username]", JUDGE[0])
                page.fill("input[name=password]", JUDGE[1])
                page.click("button[type=submit]")
                page.wait_for_load_state()
            for name, path, settle in pages:
                if name == "login":  # as a visitor sees it
                    page.context.clear_cookies()
                file = f"{name}-{size}-{theme}{f'-{language}' if len(languages) > 1 else ''}.png"
                try:
                    answer = page.goto(f"{base}{path}{'&' if '?' in path else '?'}"
                                       f"theme={theme}")
                    if answer is None or answer.status == 404:
                        skipped.append(f"{name} ({path}: 404)")
                        continue
                    page.wait_for_timeout(settle * 1000)
                    page.screenshot(path=str(out / file), full_page=True, timeout=120_000)
                except PlaywrightError as error:  # a huge page, say: the others still
                    skipped.append(f"{file} ({path}: {str(error).splitlines()[0]})")
                    continue
                print(file, flush=True)
            context.close()
        browser.close()
    return skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", nargs="+", default=PAGES, choices=PAGES)
    parser.add_argument("--sizes", nargs="+", default=SIZES)
    parser.add_argument("--themes", nargs="+", default=THEMES, choices=THEMES)
    parser.add_argument("--languages", nargs="+", default=["en"], choices=["en", "ja", "vi"])
    parser.add_argument("--keep", action="store_true",
                        help="leave the server running afterwards (Ctrl-C stops it)")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    var = tempfile.mkdtemp(prefix="spectator-shots-")
    env = dict(os.environ, SPECTATOR_VAR_DIR=var, PYTHONUNBUFFERED="1")
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    stop = threading.Event()
    manage(env, "migrate", "--verbosity", "0")
    with open(Path(var) / "server.log", "w") as log:
        server = subprocess.Popen([sys.executable, "manage.py", "demo", "--no-bots",
                                   "--port", str(port)], cwd=ROOT, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        matches = setup(env, base, stop)
        print(f"serving {base}/ from {var}: live {matches['live']}, "
              f"imported {matches['imported']}", flush=True)
        wait_for_turns(base, matches["live"][0], matches["token"], LIVE_TURNS)
        # The login page last: it logs the judge out of the audit pages before it.
        order = sorted(options.pages, key=lambda p: p == "login")
        skipped = shoot(base, options.out, urls(order, matches), options.sizes, options.themes,
                        options.languages)
        for line in skipped:  # pages not built yet (404), or that failed
            print(f"skipped {line}")
        if options.keep:
            print(f"still serving {base}/ (Ctrl-C stops it)")
            server.wait()
    except KeyboardInterrupt:
        pass
    except BaseException:
        print(f"the server's log and database stay in {var}", file=sys.stderr)
        raise
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=10)
    shutil.rmtree(var, ignore_errors=True)  # all went well: nothing to keep


if __name__ == "__main__":
    main()
