"""`manage.py chaserserver` as a process: a match of three games between programs that
connect anew for each game, sides swapped every game; a line per game on stdout and the
match's result; a malformed map refused naming its line."""

import asyncio
import socket
import subprocess
import sys
import time

import pytest

from matches.models import Match
from matches.selectors import game_of_match, latest_scores, match_verify, verdict
from tests.commands.calls import refusal
from tests.conftest import ROOT, test_database_url
from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.test_chaser_faults import MAP

pytestmark = pytest.mark.django_db(transaction=True)


def free_ports() -> tuple[int, int]:
    probes = [socket.socket(), socket.socket()]
    for probe in probes:
        probe.bind(("127.0.0.1", 0))
    ports = tuple(probe.getsockname()[1] for probe in probes)
    for probe in probes:
        probe.close()
    return ports


async def connected(port: int, name: bytes) -> Client:
    """Connected as soon as the server listens: a process starting on a busy machine
    took more than 5 s before it did (Django's start, the test database's checks)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            return await Client.connect(port, name)
        except ConnectionRefusedError:
            await asyncio.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


async def three_games(ports) -> None:
    """Each game's programs connect anew. The side that sends an unknown command loses:
    Beta in game 1 (Hot), Alpha in game 2 (Hot), Beta in game 3 (Hot)."""
    for number in (1, 2, 3):
        alpha_side = (number + 1) % 2  # Alpha is Cool in odd games
        names = [b"Alph", b"Beta"] if alpha_side == 0 else [b"Beta", b"Alph"]
        cool = await connected(ports[0], names[0])
        hot = await connected(ports[1], names[1])
        loser = 1 - alpha_side if number != 2 else alpha_side  # the side that faults
        plays = [scripted(["lu"] * 6), scripted(["lu"] * 6)]
        plays[loser] = scripted(["lu", "zz"])  # an unknown command in its second step
        await asyncio.wait_for(asyncio.gather(cool.play(plays[0]), hot.play(plays[1])), 20)


def test_a_match_of_three_games_over_tcp(tmp_path):
    map_file = tmp_path / "tiny.map"
    map_file.write_text(MAP)
    ports = free_ports()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "chaserserver", "--map", str(map_file),
         "--ports", f"{ports[0]},{ports[1]}", "--host", "127.0.0.1",
         "--teams", "Alpha", "Beta", "--timeout", "5"],
        cwd=ROOT, env={**__import__("os").environ, "DATABASE_URL": test_database_url()},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        asyncio.run(three_games(ports))
        out, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    lines = [line for line in out.splitlines() if not line.startswith(("game ", "Note: "))]
    assert lines[1:] == ["winner: cool", "winner: cool", "winner: cool",
                         "match: Alpha wins (2 of 3 games)"], out
    starts = [line.split(", ", 1)[1] for line in out.splitlines() if line.startswith("game ")]
    assert [start.split(":")[0] for start in starts] == [
        "Alpha (Cool) vs Beta (Hot)", "Beta (Cool) vs Alpha (Hot)", "Alpha (Cool) vs Beta (Hot)"]
    assert process.returncode == 0
    first, second, third = Match.objects.order_by("pk")
    assert [game.first_game_id for game in (first, second, third)] == [None, first.pk, first.pk]
    assert {game.match_games for game in (first, second, third)} == {3}
    assert first.result == {"winner": 0, "decided_by": "fault"}  # Alpha, Cool
    assert second.result == {"winner": 0, "decided_by": "fault"}  # Beta, Cool
    assert third.result == {"winner": 0, "decided_by": "fault",
                            "match": {"winner": 0, "wins": [2, 1]}}  # Alpha, Cool
    assert verdict(third, latest_scores(third)).endswith(" · Alpha wins the match 2–1")
    assert verdict(second, latest_scores(second)).count("match") == 0
    # each game's view of the match: the games won so far, in its own team order
    assert [game_of_match(game)["wins"] for game in (first, second, third)] == [
        [2, 1], [1, 2], [2, 1]]
    assert game_of_match(third) | {"headlines": None} == {
        "game": 3, "of": 3, "ids": [first.pk, second.pk, third.pk], "headlines": None,
        "wins": [2, 1], "by": "wins"}
    assert all(match_verify(game).verified for game in (first, second, third))


def test_a_malformed_map_is_refused_naming_its_line(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text(MAP.replace("D:0,3,0,3,0", "D:0,3,0,9,0"))
    message = refusal("chaserserver", "--map", str(bad))
    assert message.startswith(f"--map: {bad}: line 5: "), message
    assert refusal("chaserserver", "--map", "no-such-map").startswith("--map: no-such-map")
