"""make demo's CHaser: the built-in programs connect to the demo's CHaser server over
TCP and play matches of games, sides swapped each game, which are stored, verified and
published; they never bury themselves or break the protocol."""

import asyncio
import contextlib
import threading

from channels.db import database_sync_to_async

from matches.models import Match
from matches.protocol_servers.chaser.loops import DEMO_TEAMS, demo
from matches.selectors import match_verify


def published_games() -> list[tuple]:
    games = Match.objects.filter(game="chaser", published=True).order_by("pk")
    return [(game, [team.name for team in game.teams.all()], match_verify(game).verified)
            for game in games]


async def test_the_demo_programs_play_published_games_over_tcp(worker_connection_closed):
    stop, told = threading.Event(), []
    task = asyncio.ensure_future(demo(stop, lambda text, match_id: told.append(text),
                                      step_delay=0))
    try:
        for _ in range(300):
            games = await database_sync_to_async(published_games)()
            if len(games) >= 2:
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        task.cancel()
        # The demo closes its server (its relay to the channel layer among it) before
        # the test ends: left to the loop's end, a relay still sending to Redis once the
        # fixture has closed the layer's pools waited there forever, once, under load.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
    assert len(games) >= 2, told
    (first, first_teams, first_ok), (second, second_teams, second_ok) = games[:2]
    assert first_teams == list(DEMO_TEAMS) and second_teams == list(reversed(DEMO_TEAMS))
    assert first_ok and second_ok
    for game in (first, second):
        assert game.over and game.result["decided_by"] not in ("buried", "fault"), game.result
    assert told[0].startswith(f"Match {first.pk}: Collector (Cool) vs Hunter (Hot), CHaser "
                              "game 1 of 3 on akisato_m01")
