"""The judges hold a CHaser match over TCP (services/control.py): paused, its server
sends neither program anything until it is resumed, then the game goes on to its end
and replays to the same result; made void, its game ends at once, its programs'
connections are closed, and it counts nowhere. It has no deadline to extend."""

import asyncio

import pytest
from channels.db import database_sync_to_async

from matches.models import Match
from matches.selectors import match_verify
from matches.services.control import (
    ControlError,
    match_extend,
    match_pause,
    match_resume,
    match_void,
)
from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.conftest import map_text_board

MAP = "N:tiny\r\nT:6\r\nS:5,3\r\nD:0,0,0,0,0\r\nD:0,3,0,3,0\r\nD:0,0,0,0,0\r\nC:0,1\r\nH:4,1\r\n"
BOARD, TURNS = map_text_board(MAP)
STEADY = ["lu", "ld", "su", "sd", "lu", "ld"]


async def started(serve):
    server = await serve(BOARD, TURNS, step_delay=0.05)
    cool = await Client.connect(server.ports[0], b"C1")
    hot = await Client.connect(server.ports[1], b"H1")
    playing = asyncio.gather(cool.play(scripted(STEADY)), hot.play(scripted(STEADY)))
    while not cool.replies:
        await asyncio.sleep(0.01)
    match = await database_sync_to_async(Match.objects.get)(game="chaser", ended_early=False)
    return server, cool, hot, playing, match


async def test_a_paused_chaser_match_sends_nothing_until_it_is_resumed(serve):
    server, cool, hot, playing, match = await started(serve)
    await database_sync_to_async(match_pause)(match_id=match.pk, reason="Hot's cable",
                                              judge="judy")
    await asyncio.sleep(0.3)  # a step begun before the pause ends as it would
    heard = len(cool.heard) + len(hot.heard)
    await asyncio.sleep(1.0)
    assert len(cool.heard) + len(hot.heard) == heard  # held: no `@` to anyone
    with pytest.raises(ControlError, match="no deadline"):
        await database_sync_to_async(match_extend)(match_id=match.pk, seconds=30, judge="judy")
    await database_sync_to_async(match_resume)(match_id=match.pk, judge="judy")
    await playing
    (result,) = await server.task
    done = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert done.result == {"winner": None, "decided_by": "draw"}
    assert [entry["action"] for entry in done.control_log] == ["pause", "resume"]
    assert done.control_log[1]["seconds"] >= 1.0
    assert (await database_sync_to_async(match_verify)(done)).verified


async def test_a_void_chaser_match_ends_at_once_and_closes_its_programs(serve):
    server, cool, hot, playing, match = await started(serve)
    await database_sync_to_async(match_void)(match_id=match.pk, reason="wrong map",
                                             judge="judy")
    await asyncio.wait_for(playing, 10)  # both programs see their connection closed
    assert await asyncio.wait_for(server.task, 10) == []
    done = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert done.result["decided_by"] == "void" and done.ended_early
    assert cool.heard[-1] != "0" and len(cool.replies) < len(STEADY)
