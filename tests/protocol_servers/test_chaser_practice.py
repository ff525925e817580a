"""A practice CHaser server (`chaserserver --practice LEVEL`): for every program that
connects, the server seats its built-in program of that level on the other port, as a
practice server's computer seat does; its own programs never call for another."""

import asyncio
import json
import time

import pytest
from channels.db import database_sync_to_async

from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.conftest import map_text_board
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


# Cool takes the item beside it; Hot (the level) wanders on the far side of a wall
APART = ("N:apart\r\nT:6\r\nS:7,3\r\nD:0,0,0,2,0,0,0\r\nD:0,3,0,2,0,0,0\r\nD:0,0,0,2,0,0,0\r\n"
         "C:0,1\r\nH:5,1\r\n")


def practice_told(match_id: int, client) -> dict:
    """What the database, the report and a tournament's rehearsal say of the game."""
    from matches.models import Match
    from tests.commands.calls import run

    match = Match.objects.get(pk=match_id)
    made = json.loads(run("createtournament", "U-16", "--game", "chaser", "--format",
                          "round-robin", "--teams", "Mine", "Other", "--rehearsal",
                          "--start-in", "3600", "--public", "--json"))
    return {
        "practice_by": match.practice_by,
        "seats": [team.seat for team in match.teams.order_by("index")],
        "report": client.get(f"/api/matches/{match_id}/report").json(),
        "rehearsal": [team["rehearsal"] for team in client.get(
            f"/api/tournaments/{made['id']}").json()["teams"]],
        "ladder": [(row["name"], row["games"]) for row in client.get(
            "/api/practice/ladder?game=chaser").json() if row["games"]],
    }


@pytest.mark.asyncio
async def test_a_practice_game_is_a_practice_match_with_an_open_report_and_a_rehearsal(
        serve, client, settings):
    settings.PRACTICE = "open"
    server = await serve(*map_text_board(APART), games=1, practice=1, public=True)
    mine = await Client.connect(server.ports[0], b"Mine")
    commands = scripted(["wr", "lu", "ld", "lu", "ld", "lu"])
    steps = []

    def slow_third(ready: str) -> str | None:  # thinks 0.4 s over its third step
        steps.append(ready)
        if len(steps) == 3:
            time.sleep(0.4)
        return commands(ready)

    await asyncio.wait_for(mine.play(slow_third), 30)
    (result,) = await asyncio.wait_for(server.task, 10)
    assert (result.names, result.winner, result.decided_by) == (["Mine", "Lv 1"], 0, "items")
    told = await database_sync_to_async(practice_told)(result.match_id, client)
    assert told["practice_by"] == "tcp:127.0.0.1" and told["seats"] == ["", "level-1"]
    summary = told["report"]["summary"]  # no token: a practice server's game is open
    assert told["report"]["name"] == "Mine" and summary["won"] is True
    assert summary["accepted"] == 6 and summary["invalid_actions"] == 0
    # each command's latency runs from its step's `gr`: the slow step shows, no other
    assert summary["steps_missed"] == 0 and 400 <= summary["latency_ms"]["max"] < 2000
    latencies = [line["latency_ms"] for turn in told["report"]["turns"]
                 for line in turn["requests"] if line["status"] == 202]
    assert len(latencies) == 6 and sorted(latencies)[-2] < 300
    assert told["rehearsal"] == [True, False]  # by the name its program sent
    assert ("Mine", 1) in told["ladder"] and ("Level 1", 1) in told["ladder"]
