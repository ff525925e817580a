"""python manage.py demo: a live match between the built-in bots, served at :8000.

One process, nothing else to start: daphne serves the pages, the API and the
websockets; the turn clock runs on the same event loop (the embedded default);
two bots play every match through the real HTTP API. When a match ends the next
one starts, on the next public board. The clock also resolves matches created
with `creatematch` from another terminal.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from datetime import timedelta

from channels.routing import get_default_application
from daphne.server import Server
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import SuspiciousOperation
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.http import Http404
from django.utils import timezone

from matches.boards.specs import board_spec_public, public_boards
from matches.bots import BOTS
from matches.clock import run_clock
from matches.models import Match
from matches.rules import LIVE_GAMES
from matches.services.boards import board_store
from matches.services.matches import match_create
from matches.services.publication import match_publish

log = logging.getLogger("matches.demo")
DEMO_BOARDS = ["A-1", "Kakom-1", "island-1", "F-1", "island-3"]  # of the first live game
GAME = LIVE_GAMES[0]


class StaticFiles(ASGIStaticFilesHandler):
    """The static files, served by the demo itself (a venue's nginx serves them instead).
    A path that climbs out of the static folders (`/static/../x`, as curl --path-as-is
    sends it) is a 404 like any missing file: never the file, never a 500."""

    def serve(self, request):
        try:
            return super().serve(request)
        except SuspiciousOperation as error:
            raise Http404("no such file") from error


class BotPlayer:
    """Plays one team of one match through the answer API, as a team's program would."""

    def __init__(self, base: str, match_id: int, team: int, token: str, bot: str) -> None:
        self.base, self.match_id, self.team, self.token = base, match_id, team, token
        self.decide = BOTS[bot]
        self.rng = random.Random(f"{match_id}-{team}")

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            f"{self.base}/api/matches/{self.match_id}{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            return json.loads(error.read() or b"{}")

    def play(self, stop: threading.Event) -> None:
        played = None
        while not stop.is_set():
            try:
                state = self.call("GET", "")
            except OSError:
                time.sleep(0.5)
                continue
            if state.get("status") == "finished":
                return
            turn = state.get("strategy_turn")
            if turn and turn != played and state["turn"] == turn - 1:
                self.call("POST", "/actions", {"actions": self.decide(state, self.team, self.rng)})
                played = turn
            time.sleep(0.15)


class Command(BaseCommand):
    help = "Serve a live match between the built-in bots at http://127.0.0.1:8000."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--strategy-seconds", type=float, default=2.0)
        parser.add_argument("--transition-seconds", type=float, default=0.5)
        parser.add_argument("--turns", type=int, help="default: each board's own")
        parser.add_argument("--no-bots", action="store_true",
                            help="serve and run the clock only: no bots, no new matches")

    def handle(self, *args, host, port, strategy_seconds, transition_seconds, turns, no_bots,
               **options):
        call_command("migrate", verbosity=0, interactive=False)
        self.base = f"http://{host}:{port}"
        self.settings = (strategy_seconds, transition_seconds, turns)
        self.stop = threading.Event()
        self.bots = not no_bots
        self.stdout.write(f"Serving at {self.base}/  (Ctrl-C to stop)")
        Server(
            application=StaticFiles(get_default_application()),
            endpoints=[f"tcp:port={port}:interface={host}"],
            ready_callable=self.ready,
            verbosity=0,
        ).run()
        self.stop.set()

    def ready(self) -> None:
        asyncio.get_event_loop().create_task(run_clock())
        if self.bots:
            threading.Thread(target=self.organise, name="demo-organiser", daemon=True).start()

    def organise(self) -> None:
        """Create a match, let the bots play it, then the next one."""
        boards = itertools.cycle([name for name in DEMO_BOARDS if name in public_boards(GAME)])
        bots = itertools.cycle([("Greedy", "greedy", "Random", "random"),
                                ("Random", "random", "Greedy", "greedy")])
        while not self.stop.is_set():
            name = next(boards)
            first, first_bot, second, second_bot = next(bots)
            match_id, tokens = self.create(name, [first, second])
            self.stdout.write(f"Match {match_id}: {first} vs {second} on {name} — "
                              f"{self.base}/matches/{match_id}/")
            players = [BotPlayer(self.base, match_id, team, tokens[team], bot)
                       for team, bot in enumerate([first_bot, second_bot])]
            threads = [threading.Thread(target=p.play, args=(self.stop,), daemon=True)
                       for p in players]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if Match.objects.get(pk=match_id).over:
                match_publish(match_id=match_id, published=True)

    def create(self, board_name: str, teams: list[str]) -> tuple[int, list[str]]:
        strategy, transition, turns = self.settings
        spec, hints = board_spec_public(GAME, board_name)
        created = match_create(
            board=board_store(board_name, spec, "public boards (MIT)", GAME), team_names=teams,
            agents=hints.get("agents", 6), turns=turns or hints.get("turns", 30),
            strategy_seconds=strategy, transition_seconds=transition,
            start_at=timezone.now() + timedelta(seconds=5),
            title=f"Demo: {teams[0]} vs {teams[1]} on {board_name}", public_live=True,
        )
        return created.match.pk, created.tokens
