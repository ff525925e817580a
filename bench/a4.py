"""Kakomimasu level 4 against the community's real sample AI a4, through our server:
python bench/a4.py --deno PATH/TO/deno --client PATH/TO/client-deno --client-js PATH/TO/client-js
[--turns 20,30,40] [--randoms 2] [--only A-] [--rounds 1] [--lanes 1]

a4 is `client_a4.ts` of the community's Deno client (kakomimasu/client-deno), run
unchanged by Deno: a few lines of ours (written to a scratch folder) import its
`client` and give it what its constructor lets a user give (the host, the game to join
and the team's token: `host`, `gameId`, `bearerToken`), then call its own `match()`,
which plays through our Kakomimasu v1 dialect (docs/dialects.md) as it would play on the
community server. Its library imports the API client from an address this machine may
not reach; with --client-js (a checkout of kakomimasu/client-js at v1.0.0-beta.15, whose
`esm/` build is that same API client) an import map points that address at the local
copy.

The bench migrates a scratch database, starts `manage.py demo --no-bots` on a free
port, and for each board (the public boards A-1, A-2, F-1, Kakom-1, Kakom-2,
island-*, then --randoms random ones) and each side makes a public match with
`creatematch`, seats our level 4 at one team (`Team.seat = "level-4"`, as a practice
match seats a level: services/seats.py drives it, with its step's time left as
budget) and starts a4 with the other team's token. Matches run one after another
(--lanes at once; the levels think in one process, so lanes share its time). Prints a
line a match and, per board kind, level 4's wins, draws, losses and mean margin (its
total less a4's). Without Deno or the checkouts it says so and exits with status 0
(nothing measured); the test suite never runs it.

Getting the pieces (outside this project): Deno's binary is in the `deno` wheel on
PyPI (`pip download --no-deps -d /tmp/denodl deno`, then unzip the wheel: the binary is
under `deno-*.data/scripts/`); the two checkouts from GitHub
(kakomimasu/client-deno, kakomimasu/client-js at tag v1.0.0-beta.15).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the API client the community library imports (client-deno's KakomimasuClient.ts)
LIBRARY_URL = "https://raw.githubusercontent.com/kakomimasu/client-js/v1.0.0-beta.15/deno/mod.ts"
PUBLIC = ("A-1", "A-2", "F-1", "Kakom-1", "Kakom-2", "island-1", "island-3", "island-4",
          "island-5")

# Ours: seat the sample's exported client at a game of our server, then let it play.
SEATER = """\
import ApiClient from "%(library)s";

const [sample, host, gameId, token] = Deno.args;
const { client } = await import(new URL(sample, "file:///").href);
client.apiClient = new ApiClient(host);
client.matchOptions = { gameId };
client.bearerToken = token;
await client.match();
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`manage.py demo --no-bots` on a scratch database: the clock, the seats, the API."""

    def __init__(self, scratch: str) -> None:
        self.env = dict(os.environ, SPECTATOR_VAR_DIR=scratch, DJANGO_DEBUG="0",
                        LOG_LEVEL="WARNING", SPECTATOR_TRUSTED_NETWORKS="127.0.0.0/8")
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.manage("migrate", "-v0")
        self.log = open(Path(scratch) / "server.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--no-bots", "--port", str(self.port)],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        self.stop()
        raise SystemExit("the server did not start (see server.log in the scratch folder)")

    def manage(self, *args: str) -> str:
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                              check=True, capture_output=True, text=True).stdout

    def create(self, board: str, turns: int, strategy: float, transition: float,
               start_in: float, seated: int) -> dict:
        """A public match; team `seated` gets level 4's seat. Its JSON (id, tokens)."""
        made = json.loads(self.manage(
            "creatematch", "--board", board, "--teams", "Level4" if seated == 0 else "a4",
            "a4" if seated == 0 else "Level4", "--public", "--turns", str(turns),
            "--strategy-seconds", str(strategy), "--transition-seconds", str(transition),
            "--start-in", f"{start_in:.1f}", "--json"))
        self.manage("shell", "-c",
                    "from matches.models import Team; Team.objects.filter("
                    f"match_id={made['id']}, index={seated}).update(seat='level-4')")
        return made

    def game(self, match_id: int) -> dict:
        with urllib.request.urlopen(f"{self.base}/v1/matches/{match_id}", timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def places(randoms: int, turns: list[int]) -> list[tuple[str, str, int]]:
    """(kind, board argument, turns) of every board played."""
    found = []
    for index, name in enumerate(PUBLIC):
        kind = "island" if name.startswith("island") else name
        found.append((kind, name, turns[index % len(turns)]))
    for seed in range(randoms):
        found.append(("random", f"random:{2000 + seed}", turns[seed % len(turns)]))
    return found


def outcome_of(game: dict, ours: int) -> tuple[str, int, int]:
    """(won/draw/lost for level 4, its margin, turns in which a4 sent any action)."""
    points = [p["point"] for p in game["players"]]
    totals = [p["areaPoint"] + p["wallPoint"] for p in points]
    walls = [p["wallPoint"] for p in points]
    acted = sum(1 for turn in game.get("log") or ()
                if turn["players"][1 - ours]["actions"])
    for key in (totals, walls):
        if key[0] != key[1]:
            winner = 0 if key[0] > key[1] else 1
            return ("won" if winner == ours else "lost"), totals[ours] - totals[1 - ours], acted
    return "draw", 0, acted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deno", default=os.environ.get("A4_DENO", "deno"),
                        help="Deno's binary (or $A4_DENO)")
    parser.add_argument("--client", default=os.environ.get("A4_CLIENT_DENO"),
                        help="a checkout of kakomimasu/client-deno (or $A4_CLIENT_DENO)")
    parser.add_argument("--client-js", default=os.environ.get("A4_CLIENT_JS"),
                        help="a checkout of kakomimasu/client-js at v1.0.0-beta.15 (or "
                             "$A4_CLIENT_JS), for when its address cannot be reached")
    parser.add_argument("--turns", default="20,30,40", help="turns of the boards, in turn")
    parser.add_argument("--randoms", type=int, default=2, help="random boards")
    parser.add_argument("--only", help="only boards whose name starts so")
    parser.add_argument("--rounds", type=int, default=1, help="matches a board and side")
    parser.add_argument("--lanes", type=int, default=1, help="matches at once")
    parser.add_argument("--strategy-seconds", type=float, default=1.5)
    parser.add_argument("--transition-seconds", type=float, default=0.5)
    options = parser.parse_args()

    deno = shutil.which(options.deno) or options.deno
    sample = Path(options.client or "") / "client_a4.ts"
    missing = []
    if not Path(deno).is_file():
        missing.append(f"Deno's binary (--deno or $A4_DENO; got {options.deno!r})")
    if not options.client or not sample.is_file():
        missing.append("a checkout of kakomimasu/client-deno with client_a4.ts "
                       "(--client or $A4_CLIENT_DENO)")
    library = Path(options.client_js or "") / "esm" / "mod.js"
    if options.client_js and not library.is_file():
        missing.append(f"client-js's esm/mod.js under {options.client_js!r} (--client-js)")
    if missing:
        print("nothing measured: missing " + "; ".join(missing) + ". See the docstring: "
              "python bench/a4.py --help")
        return

    scratch = tempfile.mkdtemp(prefix="a4-bench-")
    seater = Path(scratch) / "seat.ts"
    seater.write_text(SEATER % {"library": LIBRARY_URL}, encoding="utf-8")
    command = [deno, "run", "-A", "--no-config"]
    if options.client_js:
        imports = Path(scratch) / "imports.json"
        imports.write_text(json.dumps({"imports": {LIBRARY_URL: library.resolve().as_uri()}}),
                           encoding="utf-8")
        command += ["--no-remote", f"--import-map={imports}"]
    denv = dict(os.environ, DENO_DIR=str(Path(scratch) / "deno"), NO_COLOR="1")

    turns = [int(t) for t in options.turns.split(",")]
    step = options.strategy_seconds + options.transition_seconds
    jobs = [(kind, board, count, side)
            for kind, board, count in places(options.randoms, turns)
            if not options.only or board.startswith(options.only)
            for _ in range(options.rounds) for side in (0, 1)]
    print(f"a4 {sample} under {deno}; level 4 with {options.strategy_seconds:g} s steps "
          f"(+{options.transition_seconds:g} s), {len(jobs)} matches", flush=True)

    server = Server(scratch)
    rows: dict[str, list[tuple[str, int]]] = {}
    try:
        # every match made first, on a schedule (lanes side by side): the seats read the
        # seated matches every 30 s, so the first starts after that
        made, lane_free = [], []
        start = time.time() + 10 + 2.5 * len(jobs) + 32
        lane_free = [start] * max(1, options.lanes)
        for kind, board, count, side in jobs:
            lane = min(range(len(lane_free)), key=lane_free.__getitem__)
            at = lane_free[lane]
            match = server.create(board, count, options.strategy_seconds,
                                  options.transition_seconds, at - time.time(), side)
            begins = match["start_at"] / 1000
            lane_free[lane] = begins + count * step + 4
            made.append((kind, board, count, side, match, begins))
        running: list = []
        for kind, board, count, side, match, begins in made:
            time.sleep(max(0.0, begins - 12 - time.time()))
            log = open(Path(scratch) / f"a4-{match['id']}.log", "wb")  # noqa: SIM115
            token = match["teams"][1 - side]["token"]
            program = subprocess.Popen(
                [*command, str(seater), str(sample.resolve()), server.base, str(match["id"]),
                 token], env=denv, stdout=log, stderr=subprocess.STDOUT, cwd=scratch)
            running.append((kind, board, count, side, match, begins, program, log))
            running = finish(server, running, rows, wait=len(running) >= options.lanes)
        while running:
            running = finish(server, running, rows, wait=True)
    finally:
        server.stop()
    print(f"level 4 v a4 (real, through the v1 API), {options.strategy_seconds:g} s steps")
    print(f"{'board kind':<10} {'won':>4} {'drawn':>5} {'lost':>4} {'margin':>7}")
    everything = []
    for kind, results in rows.items():
        outcomes = [r[0] for r in results]
        everything += results
        print(f"{kind:<10} {outcomes.count('won'):>4} {outcomes.count('draw'):>5} "
              f"{outcomes.count('lost'):>4} {statistics.mean(r[1] for r in results):>+7.1f}")
    if everything:
        outcomes = [r[0] for r in everything]
        print(f"{'all':<10} {outcomes.count('won'):>4} {outcomes.count('draw'):>5} "
              f"{outcomes.count('lost'):>4} {statistics.mean(r[1] for r in everything):>+7.1f}")
    print(f"(logs in {scratch})")


def finish(server: Server, running: list, rows: dict, wait: bool) -> list:
    """Reports the matches whose program has ended (the first one's, waiting for it if
    `wait`); the ones still running."""
    still = []
    for entry in running:
        kind, board, count, side, match, begins, program, log = entry
        if program.poll() is None and wait and not still:
            try:
                program.wait(timeout=max(30.0, begins + count * 2.5 * 4 - time.time()))
            except subprocess.TimeoutExpired:
                program.kill()
                program.wait()
        if program.poll() is None:
            still.append(entry)
            continue
        log.close()
        time.sleep(1.0)
        game = server.game(match["id"])
        if game["status"] != "ended":
            print(f"  {board} side {side}: match {match['id']} is {game['status']} after a4 "
                  f"left (exit {program.returncode}); not counted", flush=True)
            continue
        outcome, margin, acted = outcome_of(game, side)
        print(f"  {board} ({game['field']['width']}x{game['field']['height']}, "
              f"{game['nAgent']} agents, {count} turns) level 4 on side {side}: {outcome} by "
              f"{margin:+d} (a4 acted in {acted} of {len(game.get('log') or ())} turns)",
              flush=True)
        rows.setdefault(kind, []).append((outcome, margin))
        wait = False
    return still


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
