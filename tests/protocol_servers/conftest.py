import asyncio
import contextlib
import json
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from matches.protocol_servers.chaser.game import Settings
from matches.protocol_servers.chaser.server import ChaserServer
from matches.rules import chaser
from matches.services.protocol import map_board

VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "chaser"


def vector(name: str) -> tuple[dict, dict]:
    """A CHaser vector's record and timeline."""
    return (json.loads((VECTORS / f"{name}.record.json").read_text()),
            json.loads((VECTORS / f"{name}.timeline.json").read_text()))


@pytest.fixture
async def worker_connection_closed(transactional_db):
    """The tests' database calls from the loop run on asgiref's worker thread, whose
    connection outlives a call (CONN_MAX_AGE): close it after the test (before the test
    database is emptied), or PostgreSQL refuses to drop the database at the end.

    The channel layer's Redis connections of the test's loop are closed too, before the
    loop ends: once, under load, the loop's end waited forever on a task that did not
    end when cancelled, with every thread idle (so waiting on a socket); closing them
    ends whatever still waits on one."""
    yield
    from channels.layers import get_channel_layer
    from django.db import connections

    await database_sync_to_async(connections.close_all)()
    layer = get_channel_layer()
    if hasattr(layer, "close_pools"):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(layer.close_pools(), 5)


@pytest.fixture
async def serve(transactional_db, worker_connection_closed):
    """`await serve(map_name_or_text, games=1, **settings)`: a started ChaserServer on
    free loopback ports, its match running as a task (`server.task`)."""
    started = []

    async def start(board: dict, turns: int, games: int = 1, practice: int | None = None,
                    **options) -> ChaserServer:
        row = await database_sync_to_async(map_board)("CHaser test map", board, "a test", "chaser")
        settings = Settings(board=row, turns=turns, **options)
        server = ChaserServer(settings, (0, 0), games=games, host="127.0.0.1",
                              practice=practice)
        await server.start()
        server.task = asyncio.ensure_future(server.run())
        started.append(server)
        return server

    yield start
    for server in started:  # a game still on ends: its thread lets go of the database
        await server.close()
        server.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(server.task, 10)  # done before the test's loop closes


def map_text_board(text: str) -> tuple[dict, int]:
    record = chaser.parse_map(text)
    return record["board"], record["turns"]
