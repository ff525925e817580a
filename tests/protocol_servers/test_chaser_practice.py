"""A practice CHaser server (`chaserserver --practice LEVEL`): for every program that
connects, the server seats its built-in program of that level on the other port, as a
practice server's computer seat does; its own programs never call for another."""

import asyncio

import pytest

from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.test_chaser_faults import BOARD, STEADY, TURNS


@pytest.mark.asyncio
@pytest.mark.parametrize("side", [0, 1])
async def test_every_program_finds_the_level_on_the_other_port(serve, side):
    server = await serve(BOARD, TURNS, games=2, practice=4)
    for number in (1, 2):
        client = await Client.connect(server.ports[side], b"Mine")
        await asyncio.wait_for(client.play(scripted(STEADY)), 30)
        while len(server.results) < number:
            await asyncio.sleep(0.05)
        names = server.results[-1].names
        assert names[side] == "Mine" and names[1 - side] == "Lv 4"
    results = await asyncio.wait_for(server.task, 10)
    assert len(results) == 2
    assert server.own == set() and server.waiting == ([], [])  # nothing left over


def test_a_level_beyond_the_programs_is_refused_by_the_command(db):
    from tests.commands.calls import refusal

    assert "--practice: a level from 1 to" in refusal("chaserserver", "--map", "akisato_m01",
                                                       "--practice", "9")
