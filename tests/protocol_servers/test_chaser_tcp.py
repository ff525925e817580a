"""CHaser over TCP: every conformance vector played command by command by two clients
written from docs/rules/chaser.md; the digits they hear and the turns stored agree with
the vector, and every line is stored."""

import asyncio

import pytest
from channels.db import database_sync_to_async

from matches.models import Match
from matches.selectors import match_verify, stored_timeline
from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.conftest import VECTORS, vector

NAMES = sorted(path.name.removesuffix(".record.json")
               for path in VECTORS.glob("*.record.json"))
# On PostgreSQL and Redis (make test's second pass) the first few vectors: what the
# database does with a game's lines is the same for every vector; the protocol's
# digits, which each vector checks, cannot depend on it.
ON_BOTH = 3


def commands_of(record: dict, player: int) -> list[str]:
    """A player's commands as its program sends them: the first of each turn's list."""
    return [turn[player][0]["command"] for turn in record["actions"] if turn[player]]


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.one_backend] if index >= ON_BOTH else [])
    for index, name in enumerate(NAMES)])
async def test_every_vector_played_over_tcp_gives_its_timeline(serve, name):
    record, timeline = vector(name)
    server = await serve(record["board"], record["turns"])
    cool = await Client.connect(server.ports[0], b"Cool")
    hot = await Client.connect(server.ports[1], b"Hot")
    await asyncio.wait_for(asyncio.gather(cool.play(scripted(commands_of(record, 0))),
                                          hot.play(scripted(commands_of(record, 1)))), 30)
    (result,) = await asyncio.wait_for(server.task, 10)

    expected = [(o["ready"], o["reply"]) for turn in timeline["states"][1:]
                for o in turn["outcomes"][0] if o["result"] == "ok"]
    assert cool.replies == expected[:len(cool.replies)] and len(cool.replies) == len(expected)
    expected_hot = [(o["ready"], o["reply"]) for turn in timeline["states"][1:]
                    for o in turn["outcomes"][1] if o["result"] == "ok"]
    assert hot.replies == expected_hot

    match = await database_sync_to_async(Match.objects.get)(pk=result.match_id)
    stored = await database_sync_to_async(stored_timeline)(match)
    for expected_state, state in zip(timeline["states"], stored["states"], strict=True):
        for key in ("cells", "agents", "scores"):
            assert state[key] == expected_state[key], (state["turn"], key)
    assert match.result == timeline["result"]
    verdict = await database_sync_to_async(match_verify)(match)
    assert verdict.verified, verdict.detail
