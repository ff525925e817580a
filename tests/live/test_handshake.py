"""Who may open a socket, against a real daphne server, as a team's program does it: the
`websockets` client library, which sends no Origin (docs/live-protocol.md)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from matches.live.viewers import viewers
from tests.conftest import ROOT, UNTRUSTED, test_database_url
from tests.e2e.conftest import free_port, wait_for_port
from tests.factories import make_match

pytestmark = pytest.mark.django_db(transaction=True)


def start_daphne(log_path, **env) -> tuple[subprocess.Popen, int]:
    port = free_port()
    with open(log_path, "a") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "spectator.asgi:application"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1", **env))
    wait_for_port(port)
    return process, port


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    """One daphne on the test database for the module; its port and log."""
    log = tmp_path_factory.mktemp("daphne") / "daphne.log"
    process, port = start_daphne(log)
    yield port, log
    stop(process)


async def first_messages(port: int, path: str, count: int, token: str | None = None,
                         origin: str | None = None) -> list[dict]:
    """The first messages a client hears, sending the given token and Origin only."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers,
                       origin=origin, proxy=None, open_timeout=5) as socket:
        return [json.loads(await asyncio.wait_for(socket.recv(), 5)) for _ in range(count)]


def answer(port: int, path: str, **sent) -> str | int:
    """"snapshot" (or the first message's type), "403" for a refused handshake, or the
    close code of a socket closed before its first message."""
    try:
        return asyncio.run(first_messages(port, path, 1, **sent))[0]["type"]
    except InvalidStatus as refused:
        return str(refused.response.status_code)
    except ConnectionClosed as closed:
        return closed.rcvd.code


def test_a_teams_program_opens_its_private_match_with_its_token_and_no_origin(server):
    port, _ = server
    match, tokens = make_match(public=False)
    snapshot, count = asyncio.run(first_messages(port, f"/ws/matches/{match.pk}/", 2,
                                                 token=tokens[1]))
    assert snapshot["type"] == "snapshot" and snapshot["match"]["id"] == match.pk
    assert snapshot["turn"] == 0 and count == {"type": "viewers", "count": 1}


def test_without_origin_a_handshake_needs_a_teams_token(server):
    port, _ = server
    match, _ = make_match(public=True)
    path = f"/ws/matches/{match.pk}/"
    assert answer(port, path) == "403"  # even for a public match
    assert answer(port, path, token="made-up") == "403"
    assert answer(port, "/ws/matches/") == "403"


def test_an_origin_must_be_the_servers_host_and_port(server):
    port, _ = server
    match, tokens = make_match(public=True)
    path = f"/ws/matches/{match.pk}/"
    assert answer(port, path, origin=f"http://127.0.0.1:{port}") == "snapshot"
    assert answer(port, path, origin="http://127.0.0.1:9999") == "403"
    assert answer(port, path, origin="http://127.0.0.1:9999", token=tokens[0]) == "403"
    assert answer(port, path, origin=f"http://evil.example:{port}") == "403"
    assert answer(port, path, origin="null") == "403"


def test_a_match_the_token_may_not_watch_is_closed_with_4404(server):
    port, _ = server
    private, _ = make_match(public=False)
    _, other_tokens = make_match(public=False)
    assert answer(port, f"/ws/matches/{private.pk}/", token=other_tokens[0]) == 4404
    assert answer(port, "/ws/matches/99999/", token=other_tokens[0]) == 4404


async def visit_sending_frames(port: int, path: str, token: str) -> None:
    """Open, send a text and a binary frame, check the socket still answers, leave."""
    async with connect(f"ws://127.0.0.1:{port}{path}", proxy=None,
                       additional_headers={"Authorization": f"Bearer {token}"}) as socket:
        await asyncio.wait_for(socket.recv(), 5)  # the snapshot
        await asyncio.wait_for(socket.recv(), 5)  # the count
        await socket.send("hello")
        await socket.send(b"\x00\x01")
        await socket.send(json.dumps({"type": "turn", "turn": 99}))
        await asyncio.wait_for(await socket.ping(), 5)  # still open and served
        with pytest.raises(TimeoutError):  # and nothing comes back
            await asyncio.wait_for(socket.recv(), 0.3)


def test_a_socket_to_no_route_is_closed_with_4404_never_an_error(server):
    """A path that names nothing, or a match id no database can hold: closed like a
    match one may not watch, with no traceback in the server's log."""
    port, log = server
    match, tokens = make_match()
    for path in ("/ws/matches/99999999999999999999/", "/ws/nothing/", "/ws/matches/x/"):
        assert answer(port, path, token=tokens[0]) == 4404, path
    assert "Traceback" not in log.read_text()


def test_an_address_holds_so_many_sockets_then_4429(tmp_path):
    """Over an address's sockets cap, a socket is closed at once with 4429 and a reason;
    one closed gives its place back."""
    process, port = start_daphne(tmp_path / "daphne.log", SPECTATOR_CAP_SOCKETS="3,100,100",
                                 **UNTRUSTED)
    try:
        match, tokens = make_match()

        async def crowd() -> tuple[dict, int]:
            path = f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/"
            headers = {"Authorization": f"Bearer {tokens[0]}"}
            held = [await connect(path, additional_headers=headers, proxy=None)
                    for _ in range(3)]
            for socket in held:
                assert json.loads(await socket.recv())["type"] == "snapshot"
            async with connect(path, additional_headers=headers, proxy=None) as refused:
                said = json.loads(await refused.recv())
                with pytest.raises(ConnectionClosed) as closed:
                    await refused.recv()
            await held.pop().close()
            await asyncio.sleep(0.3)
            async with connect(path, additional_headers=headers, proxy=None) as again:
                assert json.loads(await again.recv())["type"] == "snapshot"
            for socket in held:
                await socket.close()
            return said, closed.value.rcvd.code

        said, code = asyncio.run(crowd())
        assert code == 4429 and said["error"] == "too_many_sockets"
    finally:
        stop(process)


def test_frames_a_client_sends_are_ignored_and_it_is_counted_out(server):
    port, log = server
    match, tokens = make_match(public=True)
    path = f"/ws/matches/{match.pk}/"
    for _ in range(5):
        asyncio.run(visit_sending_frames(port, path, tokens[0]))
    time.sleep(0.3)  # each count out is done when the server has seen its close
    _, count = asyncio.run(first_messages(port, path, 2, token=tokens[1]))
    assert count == {"type": "viewers", "count": 1}
    assert "Traceback" not in log.read_text()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                    reason="the count of another process is read from the shared cache (Redis)")
def test_the_count_of_a_killed_server_vanishes_after_its_ttl(tmp_path):
    process, port = start_daphne(tmp_path / "daphne.log", VIEWER_COUNT_TTL="1")
    match, tokens = make_match(public=True)
    watching = asyncio.Event()

    async def watch():
        async with connect(f"ws://127.0.0.1:{port}/ws/matches/{match.pk}/", proxy=None,
                           additional_headers={"Authorization": f"Bearer {tokens[0]}"}) as s:
            await s.recv()
            assert json.loads(await s.recv()) == {"type": "viewers", "count": 1}
            assert viewers(match.pk) == 1  # as every process reads it
            watching.set()
            process.kill()  # no close, no count out: the process is gone
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(s.recv(), 5)

    try:
        asyncio.run(watch())
        assert watching.is_set()
        deadline = time.monotonic() + 5
        while viewers(match.pk) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert viewers(match.pk) == 0
    finally:
        stop(process)


async def crowd(port: int, path: str, size: int) -> list[list[dict]]:
    """`size` browsers' sockets (the server's own Origin, no cookie) opened at once; the
    first two messages of each, the crowd all open together meanwhile."""
    opened = asyncio.Barrier(size)

    async def one() -> list[dict]:
        async with connect(f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}",
                           proxy=None, open_timeout=10) as socket:
            heard = [json.loads(await asyncio.wait_for(socket.recv(), 10)) for _ in range(2)]
            await asyncio.wait_for(opened.wait(), 10)
            return heard

    return await asyncio.gather(*(one() for _ in range(size)))


def test_a_crowd_opening_a_public_match_at_once_hears_its_snapshot_then_its_count(server):
    """Read once for the crowd's sockets that ask at a time (live/batches.py), sent as one
    frame built for all (live/frames.py): each socket hears the snapshot, then the
    count, which comes to the whole crowd."""
    port, log = server
    match, _ = make_match(public=True)
    heard = asyncio.run(crowd(port, f"/ws/matches/{match.pk}/", 30))
    assert all(snapshot["type"] == "snapshot" and snapshot["match"]["id"] == match.pk
               for snapshot, _ in heard)
    counts = [count["count"] for _, count in heard]
    assert all(count["type"] == "viewers" for _, count in heard) and max(counts) == 30
    assert "Traceback" not in log.read_text()
