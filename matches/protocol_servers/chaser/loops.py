"""The loops that keep a CHaser server playing with no one at its keyboard: `make
demo`'s matches between the built-in programs, and a tournament's fixtures one after
another. Each runs on the event loop, its storage on the database thread.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable

from channels.db import database_sync_to_async
from django import db
from django.utils import timezone

from matches.protocol_servers.chaser.game import SEAT_WAIT
from matches.protocol_servers.chaser.maps import MAPS, map_path, map_read, map_settings
from matches.protocol_servers.chaser.server import ChaserServer
from matches.rules import chaser

log = logging.getLogger(__name__)

DEMO_TEAMS = ("Collector", "Hunter")
DEMO_TURNS = 100


def _db(function: Callable) -> Callable:
    """A storage function run from the loop (the demo's): on the database thread, its
    connection closed after it as after a request."""
    return database_sync_to_async(function)


async def demo(stop: threading.Event, tell: Callable[[str, int], None],
               step_delay: float = 0.3) -> None:
    """`make demo`'s CHaser: matches of three games between the built-in programs
    (matches/bots/chaser.py), which connect over TCP on loopback like contest programs,
    on the shipped maps in turn, paced for an audience; each game is published when it
    ends, and the next match starts when one ends."""
    from matches.bots.chaser import PLAYERS, play
    from matches.services.publication import match_publish

    maps = itertools.cycle(sorted(MAPS.glob("*.map")))
    stopped = asyncio.ensure_future(asyncio.to_thread(stop.wait))  # the demo's stop
    while not stop.is_set():
        path = next(maps)
        settings = await _db(map_settings)(path, map_read(path), turns=DEMO_TURNS,
                                           team_names=list(DEMO_TEAMS), step_delay=step_delay,
                                           public=True, title=f"Demo: CHaser on {path.stem}")
        def started(number: int, match_id: int, names: list[str], where: str = path.stem):
            tell(f"Match {match_id}: {names[0]} (Cool) vs {names[1]} (Hot), CHaser game "
                 f"{number} of 3 on {where}", match_id)

        server = ChaserServer(settings, (0, 0), host="127.0.0.1", on_start=started)
        await server.start()
        programs = [threading.Thread(target=_demo_program, daemon=True,
                                     args=(server.ports, team, PLAYERS[name.lower()], play, stop,
                                           name))
                    for team, name in enumerate(DEMO_TEAMS)]
        for program in programs:
            program.start()
        try:
            running = asyncio.ensure_future(server.run())
            await asyncio.wait([running, stopped], return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():  # its games end now: the server closes their programs
                server.stop()
            for result in await running:
                await _db(match_publish)(match_id=result.match_id, published=True)
        except Exception:
            log.exception("the CHaser demo match failed; the next one starts")
        finally:
            await server.close()


def _demo_program(ports: tuple[int, int], team: int, kind: type, play: Callable,
                  stop: threading.Event, name: str) -> None:
    """One team's program for every game of a demo match: Cool in odd games for team 0.
    It sends its team's name (the server seats a team's program only)."""
    for number in itertools.count(1):
        side = (team + number - 1) % 2
        player = kind(f"{ports}-{number}-{team}")
        player.name = name
        try:
            play("127.0.0.1", ports[side], player, stop)
        except OSError:
            return  # the match is over: its server has closed
        if stop.is_set():
            return


# --- a tournament's fixtures -----------------------------------------------------------

TOURNAMENT_POLL = 1.0  # how often a waiting server asks for the next fixture


async def tournament(tournament_id: int, stop: threading.Event,
                     tell: Callable[[str], None], *, ports: tuple[int, int] = chaser.PORTS,
                     host: str = "0.0.0.0", step_delay: float = 0.0,
                     timeout: float = 10.0, seat_wait: float = SEAT_WAIT) -> None:
    """Play a tournament's CHaser fixtures one after another on one pair of ports, as the
    contests do: each fixture as its round opens (the turn clock's runner opens rounds
    and settles fixtures), a match of three games between the fixture's two teams, whose
    programs connect (the first team to Cool's port in odd games). A tournament run with
    bots has the built-in programs connect on loopback. A seat is its team's: a program
    must send its team's name or short code. Returns when it is over."""
    try:
        await _tournament(tournament_id, stop, tell, ports=ports, host=host,
                          step_delay=step_delay, timeout=timeout, seat_wait=seat_wait)
    finally:  # the database thread's connections go with the server
        await _db(db.connections.close_all)()


async def _tournament(tournament_id: int, stop: threading.Event,
                      tell: Callable[[str], None], *, ports: tuple[int, int], host: str,
                      step_delay: float, timeout: float, seat_wait: float) -> None:
    from matches.bots.chaser import PLAYERS, play
    from matches.models import Entrant, Tournament
    from matches.tournaments import runner

    maps = sorted(MAPS.glob("*.map"))
    played = 0
    while not stop.is_set():
        claimed = await _db(runner.protocol_fixture_claim)(tournament_id, timezone.now())
        if claimed is None:
            over = await _db(lambda: Tournament.objects.filter(
                pk=tournament_id, finished_at__isnull=False).exists())()
            if over:
                return
            await asyncio.sleep(TOURNAMENT_POLL)
            continue
        path = map_path(claimed.board) if claimed.board else maps[played % len(maps)]
        played += 1
        record = map_read(path)
        options = {"turns": claimed.turns} if claimed.turns else {}
        shorts = await _db(lambda claimed=claimed: dict(Entrant.objects.filter(
            tournament_id=tournament_id, index__in=claimed.seeds).values_list("index", "short")))()
        settings = await _db(map_settings)(
            path, record, team_names=list(claimed.names),
            team_shorts=[shorts.get(seed, "") for seed in claimed.seeds], step_delay=step_delay,
            public=claimed.public, delay=claimed.delay, title=claimed.title,
            title_parts=claimed.title_parts, timeout=timeout,
            seat_wait=seat_wait,
            **options)

        def started(number: int, match_id: int, names: list[str], claimed=claimed) -> None:
            runner.protocol_game_link(claimed, match_id, number)
            tell(f"Match {match_id}: {names[0]} (Cool) vs {names[1]} (Hot), game {number}")

        server = ChaserServer(settings, ports, host=host, on_start=started)
        await server.start()
        tell(f"{claimed.title}: {claimed.names[0]} and {claimed.names[1]}, connect to ports "
             f"{server.ports[0]} (Cool) and {server.ports[1]} (Hot)")
        if all(claimed.bots):
            for team, bot in enumerate(claimed.bots):
                threading.Thread(target=_demo_program, daemon=True, args=(
                    server.ports, team, PLAYERS[bot], play, stop, claimed.names[team])).start()
        try:
            results = await server.run()
        finally:
            await server.close()
        if stop.is_set() or not results:
            await _db(runner.protocol_fixture_release)(claimed)
