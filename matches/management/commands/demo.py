"""python manage.py demo: live matches between the built-in bots, served at :8000.

One process, nothing else to start: daphne serves the pages, the API and the
websockets; the turn clock runs on the same event loop (the embedded default). Every
live game has a match on at once; two bots play each through the real HTTP API (a game
with a protocol of its own, CHaser, through its server on loopback TCP ports), and
when a match ends the next one of its game starts (on the next public board, for a
game that has boards). Where the machine can make sandboxes, a worker of its own plays
scrimmages between the shipped sample programs, hosted (docs/programs.md). The clock
also resolves matches created with `creatematch` from another terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace
from datetime import timedelta

from channels.layers import get_channel_layer
from channels.routing import get_default_application
from daphne.server import Server
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.exceptions import SuspiciousOperation
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.http import Http404
from django.utils import timezone

from matches import drawing, jobs, metrics
from matches.boards.specs import board_spec_fixed, public_boards
from matches.bots import bots_for
from matches.hosting import sandbox
from matches.live.broadcast import match_group
from matches.models import Match, Tournament
from matches.protocol_servers import server_modules
from matches.rules import LIVE_GAMES, rules_for
from matches.rules.turns import is_alternating
from matches.services.boards import board_choose
from matches.services.clock import IDLE_SECONDS, run_clock
from matches.services.matches import Timing, match_make
from matches.services.programs import samples_ready, scrimmage_start
from matches.services.publication import match_publish
from matches.tournaments.services import EntrantSpec, Plan, tournament_create

log = logging.getLogger("matches.demo")
# The demo's worker dies with the thread that started it (Linux's parent-death signal,
# kept across the exec), so that a demo killed outright leaves no worker behind.
DYING_WITH_US = ("import ctypes, os, signal, sys; ctypes.CDLL(None).prctl(1, signal.SIGKILL); "
                 "os.execv(sys.executable, [sys.executable, '-m', 'celery', *sys.argv[1:]])")
STOP_SECONDS = 1.5  # the longest the clock's tick under way is waited for at a stop
RANDOM = "random"  # a generated board, for a game that ships none
BETWEEN_SECONDS = 5.0  # between a game's last turn and the next game of its match
# The demo tournament's teams (name, short code, affiliation): names in every script.
DEMO_TEAMS = [("奈良高専", "NARA", "奈良工業高等専門学校"),
              ("Hà Nội", "HN", "Đại học Bách khoa Hà Nội"),
              ("Sendai", "SND", "Sendai KOSEN"), ("Đà Nẵng", "DN", "Đại học Đà Nẵng"),
              ("函館", "HKD", "函館工業高等専門学校"), ("Huế", "HUE", "Đại học Huế")]


class StaticFiles(ASGIStaticFilesHandler):
    """The static files, served by the demo itself (a venue's nginx serves them instead).
    A path that climbs out of the static folders (`/static/../x`, as curl --path-as-is
    sends it) is a 404 like any missing file: never the file, never a 500."""

    def serve(self, request):
        try:
            return super().serve(request)
        except SuspiciousOperation as error:
            raise Http404("no such file") from error


class News:
    """A match's live messages, heard on the server's event loop as its sockets hear them
    (its channel-layer group): a bot's thread waits here for the next turn instead of
    reading the match again and again."""

    KINDS = ("turn", "end")

    def __init__(self, loop: asyncio.AbstractEventLoop, match_id: int) -> None:
        self.heard = threading.Event()
        self.latest = "{}"  # the latest turn's or end's text (read only by a bot that wakes)
        self.listening = asyncio.run_coroutine_threadsafe(self._listen(match_id), loop)

    async def _listen(self, match_id: int) -> None:
        layer = get_channel_layer()
        group, channel = match_group(match_id), await layer.new_channel()
        await layer.group_add(group, channel)
        try:
            while True:
                event = await layer.receive(channel)
                if event.get("type") == "relay" and event.get("kind") in self.KINDS:
                    self.latest = event["text"]
                    self.heard.set()
        finally:
            await layer.group_discard(group, channel)

    def wait(self, seconds: float) -> dict | None:
        """The latest turn or end heard within `seconds` (None: nothing new)."""
        heard = self.heard.wait(seconds)
        self.heard.clear()
        return json.loads(self.latest) if heard else None

    def close(self) -> None:
        self.listening.cancel()  # (thread-safe: the task is cancelled on its loop)


class BotPlayer:
    """Plays one team of one match through the answer API, as a team's program would: it
    reads the match when its move is due, never in between. In a timed game that is
    when the next strategy step opens (its deadline says when); where the teams take
    turns, when the live messages (`news`) say that the other team has moved."""

    BACKSTOP_SECONDS = 5.0  # the longest it waits for news before reading the match

    def __init__(self, base: str, match_id: int, team: int, token: str, game: str,
                 bot: str, news: News | None = None, pace: float = 1.0) -> None:
        self.base, self.match_id, self.team, self.token = base, match_id, team, token
        self.decide = bots_for(game)[bot]
        self.rng = random.Random(f"{match_id}-{team}")
        self.news = news
        self.pace = pace  # seconds an alternating game's bot waits before it moves

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
            try:
                return json.loads(error.read() or b"{}")
            except ValueError:  # not JSON (a proxy's page, a cut answer): nothing to read
                return {}

    def play(self, stop: threading.Event) -> None:
        played = None
        while not stop.is_set():
            try:
                state = self.call("GET", "")
            except OSError:
                stop.wait(0.5)
                continue
            if state.get("status") == "finished":
                return
            turn = state.get("strategy_turn")
            if turn and turn != played and state["turn"] == turn - 1 and self.my_turn(state):
                if state.get("to_move") is not None:
                    stop.wait(self.pace)  # an alternating game: slow enough to follow
                try:
                    self.call("POST", "/actions", {"actions": self.decide(state, self.team,
                                                                          self.rng),
                                                   "turn": turn})
                except OSError:  # the server is stopping, or was busy: the next turn
                    continue
                played = turn
            if state.get("to_move") is not None and self.news is not None:
                self.await_my_move(stop, played)
            else:
                stop.wait(self.pause(state, played))

    def await_my_move(self, stop: threading.Event, played: int | None) -> None:
        """Until the news says it is this team's move (or the game ended), or for
        BACKSTOP_SECONDS at most (news lost, or this team's move was refused)."""
        waited = 0.0
        while not stop.is_set() and waited < self.BACKSTOP_SECONDS:
            news = self.news.wait(0.5)  # (the stop is looked at twice a second)
            waited += 0.5
            if news and (news["type"] == "end" or news.get("to_move") == self.team
                         and news.get("turn") != played):
                return

    @staticmethod
    def pause(state: dict, played: int | None) -> float:
        """How long to wait before reading the match again: in a timed game, until the
        next strategy step opens (its deadline, less the step; after its move, the open
        step's deadline and the transition), as a team's program would; in an alternating
        game without news, a moment (the other team moves when it likes)."""
        if state.get("paused"):  # held by the judges: look again in a while
            return 1.0
        if state.get("to_move") is not None or not state.get("deadline"):
            return 0.2
        now = state["server_time"] / 1000
        deadline, step = state["deadline"] / 1000, state["strategy_ms"] / 1000
        opens = (deadline + state["transition_ms"] / 1000
                 if played and played == state.get("strategy_turn") else deadline - step)
        return min(max(opens - now + 0.02, 0.02), 5.0)

    def my_turn(self, state: dict) -> bool:
        """Every turn is both teams' in a simultaneous game; in an alternating one, every
        other."""
        return state.get("to_move") in (None, self.team)


class Command(BaseCommand):
    help = "Serve live matches of every game between the built-in bots at http://127.0.0.1:8000."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--strategy-seconds", type=float, default=2.0)
        parser.add_argument("--transition-seconds", type=float, default=0.5)
        parser.add_argument("--turns", type=int,
                            help="timed games' turns (default: each board's own)")
        parser.add_argument("--clock", type=float, default=300.0, metavar="SECONDS",
                            help="each bot's thinking time in an alternating game")
        parser.add_argument("--no-bots", action="store_true",
                            help="serve and run the clock only: no bots, no new matches")
        parser.add_argument("--idle-seconds", type=float, default=IDLE_SECONDS,
                            help="the clock's longest sleep: how late it finds a match "
                                 "that another process made (on SQLite and the in-memory "
                                 "layer no wake-up reaches it), as runclock's option")

    def handle(self, *args, host, port, strategy_seconds, transition_seconds, turns, clock,
               no_bots, idle_seconds, **options):
        call_command("migrate", verbosity=0, interactive=False)
        metrics.dead_forgotten()  # /metrics counts from this demo's start
        if "SPECTATOR_PRACTICE" not in os.environ:  # a demo lets anyone practise
            settings.PRACTICE = "open"
        self.base = f"http://{host}:{port}"
        self.timing = Timing(turns=turns, strategy_seconds=strategy_seconds,
                             transition_seconds=transition_seconds, clock_seconds=clock,
                             between_seconds=BETWEEN_SECONDS)
        self.stop = threading.Event()
        self.bots = not no_bots
        self.idle_seconds = idle_seconds
        self.stdout.write(f"Serving at {self.base}/  (Ctrl-C to stop)")
        self.server = Server(
            application=StaticFiles(get_default_application()),
            # a backlog of 1,024, as deploy/serve.sh's: a thousand viewers opening the
            # match at once wait to be accepted instead of their SYNs being dropped (and
            # sent again a second later, then three); Twisted's default is 50
            endpoints=[f"tcp:port={port}:interface={host}:backlog=1024"],
            ready_callable=self.ready,
            signal_handlers=False,  # ours: the clock's tick ends before the server does
            verbosity=0,
        )
        self.server.run()
        self.stop.set()
        self.finish()

    def ready(self) -> None:
        self.loop = loop = asyncio.get_event_loop()
        self.clock_stop = asyncio.Event()
        self.clock = loop.create_task(run_clock(self.clock_stop, idle_seconds=self.idle_seconds))
        self.stopping = False
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.shutdown)
        if self.bots:
            for game in LIVE_GAMES:
                if bots_for(game):
                    threading.Thread(target=self.organise, args=(game,),
                                     name=f"demo-{game}", daemon=True).start()
            for server in server_modules():  # the games played over their own protocol
                loop.create_task(server.demo(self.stop, self.tell))
            threading.Thread(target=self.hosted, name="demo-hosted", daemon=True).start()
            for game in LIVE_GAMES:
                if rules_for(game).demo_tournament and bots_for(game):
                    threading.Thread(target=self.tournaments, args=(game,),
                                     name="demo-tournaments", daemon=True).start()

    def hosted(self) -> None:
        """Scrimmages between the shipped sample programs (docs/programs.md), played in
        their sandboxes by a worker this demo starts; the next one when one ends. The
        worker plays six runs at once: the scrimmage's two and the ladder of programs'
        (hosted/ladder.py: two matches a game at once, fast, between the same samples)."""
        why = "SPECTATOR_DEMO_HOSTED=0" if os.environ.get("SPECTATOR_DEMO_HOSTED") == "0" \
            else sandbox.available()
        if why:
            self.stdout.write(f"No hosted programs in this demo: {why}")
            return
        log = open(settings.VAR_DIR / "worker.log", "a")  # noqa: SIM115
        self.worker = subprocess.Popen(
            [sys.executable, "-c", DYING_WITH_US, "-A", "spectator", "worker", "--pool",
             "threads", "--concurrency", "6", "--without-mingle", "--without-gossip",
             "--loglevel", "WARNING"],
            env=dict(os.environ, SPECTATOR_HOSTED_SERVER=self.base), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)  # (its own Ctrl-C: ours)
        samples = samples_ready()
        while not self.stop.is_set():
            for game, programs in samples.items():
                if self.stop.is_set():
                    break
                match = scrimmage_start(programs, timing=replace(
                    self.timing, clock_seconds=None, between_seconds=None),
                    fast=False)  # (paced for the audience)
                self.tell(f"Scrimmage {match.pk}: two hosted sample programs, "
                          f"{rules_for(game).title}", match.pk)
                while not self.stop.wait(2) and not Match.objects.get(pk=match.pk).over:
                    pass
                if Match.objects.get(pk=match.pk).over:
                    match_publish(match_id=match.pk, published=True)

    def shutdown(self) -> None:
        """The first Ctrl-C or SIGTERM: everything is told to stop (the bots, the CHaser
        server, the tournament; the what-ifs under way are ended), the clock finishes the
        tick under way, then the server stops. A second one ends the process at once."""
        if self.stopping:
            self.stderr.write("Stopped at once.")
            self.worker_stop()
            os._exit(130)
        self.stopping = True
        self.stdout.write("Stopping…")
        self.stop.set()
        self.clock_stop.set()
        asyncio.get_event_loop().create_task(self._stop_server())
        jobs.stop_all()  # what-ifs under way: their requests answered now, not waited for

    async def _stop_server(self) -> None:
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.clock), STOP_SECONDS)
        self.server.stop()

    def finish(self) -> None:
        """After the server: threads still at work get a moment (a request being
        answered); one that waits for the event loop, which has stopped, would wait for
        ever, so the process then ends without it."""
        drawing.shutdown()
        self.worker_stop()
        deadline = time.monotonic() + 0.5
        for thread in threading.enumerate():
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() and not thread.daemon and thread is not
               threading.current_thread() for thread in threading.enumerate()):
            self.stdout.write("Stopped.")
            self.stdout.flush()
            os._exit(0)
        self.stdout.write("Stopped.")

    def worker_stop(self) -> None:
        """The hosted programs' worker, at once (its plays, and their sandboxes, with it)."""
        worker = getattr(self, "worker", None)
        if worker is not None and worker.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()

    def tournaments(self, game: str) -> None:
        """A small Swiss tournament of bot teams, played by the clock's runner; the next
        one when it ends, so that the tournament pages are live all the time."""
        while not self.stop.is_set():
            running = Tournament.objects.filter(finished_at=None, bots=True).first()
            if running is None:
                created = tournament_create(Plan(
                    name=f"Demo cup {Tournament.objects.count() + 1}", game=game,
                    format=Tournament.SWISS, teams=[EntrantSpec(*team) for team in DEMO_TEAMS],
                    start_at=timezone.now() + timedelta(seconds=5),
                    boards=[name for name in self.board_names(game) if name],
                    turns=None if is_alternating(rules_for(game)) else 12,
                    strategy_seconds=2.0, transition_seconds=0.5, gap_seconds=10,
                    bots=True, public=True))
                running = created.tournament
                self.stdout.write(f"Tournament {running.pk}: {running.name}, Swiss, "
                                  f"{len(DEMO_TEAMS)} bot teams — "
                                  f"{self.base}/tournaments/{running.pk}/")
            self.stop.wait(10)

    def tell(self, text: str, match_id: int) -> None:
        self.stdout.write(f"{text} — {self.base}/matches/{match_id}/")

    def organise(self, game: str) -> None:
        """Create a match of the game, let the bots play it, then the next one."""
        boards = itertools.cycle(self.board_names(game))
        bots = itertools.cycle([("Greedy", "greedy", "Random", "random"),
                                ("Random", "random", "Greedy", "greedy")])
        while not self.stop.is_set():
            name = next(boards)
            first, first_bot, second, second_bot = next(bots)
            games, tokens = self.create(game, name, [first, second])
            self.stdout.write(f"Match {games[0]}: {first} vs {second}, {rules_for(game).title}"
                              f"{f' on {name}' if name else ''}"
                              f"{f', {len(games)} games' if len(games) > 1 else ''} — "
                              f"{self.base}/matches/{games[0]}/")
            for game_id in games:  # the same tokens play every game of the match
                self.play(game, game_id, tokens, [first_bot, second_bot])

    def play(self, game: str, match_id: int, tokens: list[str], bots: list[str]) -> None:
        """The bots play one game to its end; then it is published."""
        news = [News(self.loop, match_id) for _ in bots]
        players = [BotPlayer(self.base, match_id, team, tokens[team], game, bot, news[team])
                   for team, bot in enumerate(bots)]
        threads = [threading.Thread(target=p.play, args=(self.stop,), daemon=True)
                   for p in players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for each in news:
            each.close()
        if Match.objects.get(pk=match_id).over:
            match_publish(match_id=match_id, published=True)

    @staticmethod
    def board_names(game: str) -> list[str | None]:
        """The public boards the demo plays in turn: the game's favourites
        (`demo_boards`) where shipped, else all of them; one None for a game played on
        one board only; RANDOM for a game that ships no boards."""
        if board_spec_fixed(game) is not None:
            return [None]
        names = list(public_boards(game))
        favourites = [name for name in rules_for(game).demo_boards if name in names]
        return favourites or names or [RANDOM]

    def create(self, game: str, board_name: str | None,
               teams: list[str]) -> tuple[list[int], list[str]]:
        """A match on the board named (a new random one each match for RANDOM), its
        later games each on a new random board: its games' ids and the teams' tokens."""
        first = random_board() if board_name == RANDOM else board_name
        later = [random_board() for _ in range(rules_for(game).games_per_match - 1)]
        on = "" if board_name in (None, RANDOM) else f" on {board_name}"
        made = match_make(
            game=game, team_names=teams, boards=[board_choose(game, text)
                                                for text in [first, *later]],
            timing=self.timing, start_at=timezone.now() + timedelta(seconds=5),
            title=f"Demo: {teams[0]} vs {teams[1]}{on}", public_live=True)
        return [match.pk for match in made.games], made.tokens


def random_board() -> str:
    """A new random board, its seed in its name (`board_choose` reads it)."""
    return f"random:{random.randrange(10**6)}"
