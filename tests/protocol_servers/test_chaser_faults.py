"""CHaser over TCP: each fault loses the game for its side, the other program gets the
proper end of game, the faulting line and the server's entry are stored, and the stored
turns still replay to the same result; names in UTF-8 and Shift_JIS; every line stored;
two matches at once; the answer API and the clock leave such a match alone."""

import asyncio
import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from matches.models import Match, Submission, Team, token_hash
from matches.protocol_servers.chaser.server import ChaserServer
from matches.selectors import match_verify
from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.conftest import map_text_board

MAP = "N:tiny\r\nT:6\r\nS:5,3\r\nD:0,0,0,0,0\r\nD:0,3,0,3,0\r\nD:0,0,0,0,0\r\nC:0,1\r\nH:4,1\r\n"
BOARD, TURNS = map_text_board(MAP)
STEADY = ["lu", "ld", "su", "sd", "lu", "ld"]  # reads only: the game runs to its end


async def lines_of(match_id: int) -> list[tuple]:
    rows = Submission.objects.filter(match_id=match_id).order_by("received_at", "id")
    return await database_sync_to_async(list)(rows.values_list(
        "team__index", "turn", "body", "status_code", "error", "entered_by", "actions"))


async def finished(match_id: int) -> Match:
    match = await database_sync_to_async(Match.objects.get)(pk=match_id)
    verdict = await database_sync_to_async(match_verify)(match)
    assert verdict.verified, verdict.detail
    return match


async def first_step_by_hand(client: Client, command: str) -> None:
    """A program's first step played by the test itself, after its `@`: `gr`, the
    command, `#`, reading the server's answers."""
    await client.send("gr")
    await client.line()
    await client.send(command)
    await client.line()
    await client.send("#")


async def test_the_other_program_hears_the_end_before_the_last_movers_late_hash(serve):
    """Hot's reply ends the game; Hot sends its `#` only once Cool has heard the end (a
    program that takes its time over it, or ends and closes). The server tells Cool
    first and reads Hot's `#` after, so it is stored; had it waited for Hot's `#`
    first, it would have given up on it (END_WAIT) and never read it."""
    server = await serve(BOARD, 2)
    cool = await Client.connect(server.ports[0], b"C1")
    hot = await Client.connect(server.ports[1], b"H1")
    cool_done = asyncio.Event()

    async def cool_plays() -> None:
        await cool.play(scripted(STEADY))
        cool_done.set()

    async def hot_plays() -> None:
        for command in STEADY:
            assert await hot.line() == "@"
            await hot.send("gr")
            await hot.line()
            await hot.send(command)
            if (await hot.line()).startswith("0"):
                await asyncio.wait_for(cool_done.wait(), 5)
                await hot.send("#")
                assert await hot.line() is None  # (the server closes once it has it)
                return
            await hot.send("#")

    await asyncio.gather(cool_plays(), hot_plays())
    (result,) = await server.task
    lines = await lines_of(result.match_id)
    assert cool.heard[-1].startswith("0")
    assert [(team, turn, bytes(body), status) for team, turn, body, status, *_ in lines[-2:]] \
        == [(0, 2, b"gr\r\n", 200), (1, 2, b"#\r\n", 200)]


async def test_every_line_is_stored_as_sent_before_its_answer(serve):
    server = await serve(BOARD, 2)
    cool = await Client.connect(server.ports[0], b"C1")
    hot = await Client.connect(server.ports[1], b"H1", end=b"\n")
    await asyncio.gather(cool.play(scripted(STEADY)), hot.play(scripted(STEADY)))
    (result,) = await server.task
    lines = await lines_of(result.match_id)
    # the names first; each is read by a thread of its own, so either may be stamped first
    assert sorted(lines[:2]) == [(0, None, b"C1\r\n", 200, "", "", None),
                                 (1, None, b"H1\n", 200, "", "", None)]
    steps = [(team, turn, bytes(body), status) for team, turn, body, status, *_ in lines[2:]]
    assert steps == [
        (0, 1, b"gr\r\n", 200), (0, 1, b"lu\r\n", 202), (0, 1, b"#\r\n", 200),
        (1, 1, b"gr\n", 200), (1, 1, b"lu\n", 202), (1, 1, b"#\n", 200),
        (0, 2, b"gr\r\n", 200), (0, 2, b"ld\r\n", 202), (0, 2, b"#\r\n", 200),
        (1, 2, b"gr\n", 200), (1, 2, b"ld\n", 202),
        (0, 2, b"gr\r\n", 200),  # the end of game: Cool's `@`, `gr`, and 0 digits
        (1, 2, b"#\n", 200),  # Hot's `#` after its reply that ended the game: read last
    ]
    assert cool.heard[-1].startswith("0") and hot.replies[-1][1].startswith("0")
    match = await finished(result.match_id)
    assert match.result == {"winner": None, "decided_by": "draw"} and result.word == "draw"


class Cool(Client):
    """A Cool that breaks the protocol in its second step in one of the ways below."""

    fault = ""

    async def _steps(self, choose):
        for step in (1, 2):
            assert await self.line() == "@"
            if step == 2 and self.fault == "no_gr":
                return await self.send("hello")
            if step == 2 and self.fault == "disconnect":
                return self.writer.close()
            await self.send("gr")
            await self.line()
            if step == 2 and self.fault == "timeout":
                return await asyncio.sleep(2)
            if step == 2 and self.fault == "long_line":
                return await self.send("w" * 2000)
            if step == 2 and self.fault == "not_text":
                return await self.send(b"\xff\xfe\x80")
            if step == 2 and self.fault == "unknown":
                return await self.send("jump")
            await self.send("lu")
            await self.line()
            if step == 2 and self.fault == "no_hash":
                return await self.send("done")
            await self.send("#")


@pytest.mark.parametrize(("fault", "code", "stored"), [
    ("no_gr", "expected_gr", b"hello\r\n"),
    ("disconnect", None, None),
    ("timeout", None, None),
    ("long_line", "line_too_long", b"w" * 1024),
    ("not_text", "not_text", b"\xff\xfe\x80\r\n"),
    ("unknown", "unknown_command", b"jump\r\n"),
    ("no_hash", "expected_hash", b"done\r\n"),
])
async def test_a_fault_loses_the_game_and_the_other_gets_its_end(serve, fault, code, stored):
    server = await serve(BOARD, TURNS, timeout=0.5)
    cool = await Cool.connect(server.ports[0], b"Bad")
    cool.fault = fault
    hot = await Client.connect(server.ports[1], b"Good")
    await asyncio.wait_for(asyncio.gather(cool.play(None), hot.play(scripted(STEADY))), 15)
    (result,) = await asyncio.wait_for(server.task, 10)
    assert (result.winner, result.decided_by) == (1, "fault")
    assert hot.heard[-2] == "@" and hot.heard[-1].startswith("0")  # its end of game
    lines = await lines_of(result.match_id)
    refused = [line for line in lines if line[3] == 400]
    if code:
        ((team, turn, body, _, error, _, _),) = refused
        assert (team, turn, bytes(body), error) == (0, 2, stored, code)
    else:
        assert refused == []
    (entry,) = [line for line in lines if line[5] == "server"]
    played = [{"command": "lu"}] if fault == "no_hash" else []
    wanted = "jump" if fault == "unknown" else None
    assert entry[:2] == (0, 2) and entry[6] == [*played, {"command": wanted}]
    match = await finished(result.match_id)
    assert match.result == {"winner": 1, "decided_by": "fault"} and match.ended_early


@pytest.mark.parametrize(("sent", "shown"), [
    ("テスト".encode("cp932") + b"\n", "テスト"),  # the Ruby library: Shift_JIS, LF
    ("チーム名前長い".encode() + b"\r\n", "チーム名"),
])
async def test_names_in_utf8_or_shift_jis_are_shown_cut_to_four(serve, sent, shown):
    server = await serve(BOARD, 1)
    cool = await Client.connect(server.ports[0], sent.rstrip(b"\r\n"),
                                end=b"\n" if sent.endswith(b"\n") and b"\r" not in sent
                                else b"\r\n")
    hot = await Client.connect(server.ports[1], b"Hot")
    await asyncio.gather(cool.play(scripted(STEADY)), hot.play(scripted(STEADY)))
    (result,) = await server.task
    assert result.names == [shown, "Hot"]
    match = await database_sync_to_async(Match.objects.get)(pk=result.match_id)
    names = await database_sync_to_async(lambda: [t.name for t in match.teams.all()])()
    assert names == [shown, "Hot"]


class RubyLike(Client):
    """As the contests' Ruby library behaves on the wire (read with the search tool):
    its name in Shift_JIS (CP932) ended by a bare LF (`puts`), every other line ended
    by CR LF (`puts("gr\\r")`), a `#` after every command's reply, the last one (a
    reply starting with 0) included, then the socket closed."""

    @classmethod
    async def connect(cls, port: int, name: bytes = b"", end: bytes = b"\r\n") -> Client:
        client = await super().connect(port, name, end=b"\n")
        client.end = b"\r\n"
        return client


async def test_the_ruby_librarys_lines_are_read_and_its_last_hash_stored(serve):
    server = await serve(BOARD, TURNS)
    cool = await RubyLike.connect(server.ports[0], "くーる".encode("cp932"))
    hot = await RubyLike.connect(server.ports[1], b"hot")
    await asyncio.gather(cool.play(scripted(STEADY)), hot.play(scripted(STEADY)))
    (result,) = await server.task
    assert (result.names, result.word) == (["くーる", "hot"], "draw")
    lines = await lines_of(result.match_id)
    # its name, as sent (each port's name is read by its own thread: either may come first)
    assert bytes(next(body for team, _, body, *_ in lines if team == 0)) == (
        "くーる".encode("cp932") + b"\n")
    assert hot.replies[-1][1].startswith("0")  # the last step's reply ends the game ...
    assert [(bytes(body), status) for team, _, body, status, *_ in lines if team == 1][-3:] == [
        (b"gr\r\n", 200), (b"ld\r\n", 202), (b"#\r\n", 200)]  # ... and its `#` is kept
    await finished(result.match_id)


async def test_two_matches_at_once_on_their_own_ports(serve):
    first, second = await serve(BOARD, TURNS), await serve(BOARD, TURNS)
    clients = [await Client.connect(port, name) for server, name in ((first, b"A"), (second, b"B"))
               for port in server.ports]
    await asyncio.wait_for(asyncio.gather(*(c.play(scripted(STEADY)) for c in clients)), 15)
    results = [(await first.task)[0], (await second.task)[0]]
    assert results[0].match_id != results[1].match_id
    for result in results:
        assert (await finished(result.match_id)).result == {"winner": None, "decided_by": "draw"}


async def test_the_answer_api_and_the_clock_leave_a_tcp_match_alone(serve, async_client):
    server = await serve(BOARD, TURNS, timeout=5)
    cool = await Client.connect(server.ports[0], b"C")
    hot = await Client.connect(server.ports[1], b"H")
    assert await cool.line() == "@"  # the game is on: its match is stored
    match = await database_sync_to_async(Match.objects.get)()
    later = timezone.now() + timedelta(hours=1)
    assert match.protocol_played and list(match.due_turns(later)) == []
    assert match.strategy_turn(later) == 1
    await database_sync_to_async(Team.objects.filter(match=match, index=0).update)(
        token_hash=token_hash("cool-token"))
    answer = await async_client.post(f"/api/matches/{match.pk}/actions",
                                     {"actions": [{"command": "wu"}]},
                                     content_type="application/json",
                                     headers={"Authorization": "Bearer cool-token"})
    assert (answer.status_code, answer.json()["error"]) == (409, "wrong_protocol")
    server.task.cancel()
    for client in (cool, hot):
        client.writer.close()


async def test_each_step_reaches_the_sockets_before_its_turn_while_one_watches(serve,
                                                                             monkeypatch):
    """A step is sent while a socket watches the match (the viewer count, looked at
    before each step here): Cool's first step, played before anyone watched, is not;
    every later one is, before its turn."""
    from channels.layers import get_channel_layer

    from matches.live.broadcast import match_group
    from matches.live.viewers import viewers_change
    from matches.protocol_servers.chaser import game

    monkeypatch.setattr(game, "HOLD_LOOK", 0.0)
    server = await serve(BOARD, 2)
    cool = await Client.connect(server.ports[0], b"C")
    hot = await Client.connect(server.ports[1], b"H")
    assert await cool.line() == "@"  # the game's match is stored by now, and looked at
    match = await database_sync_to_async(Match.objects.get)()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(match_group(match.pk), channel)
    await database_sync_to_async(viewers_change)(match.pk, +1)  # as a socket's opening
    try:
        cool.heard.clear()
        await first_step_by_hand(cool, "sr")
        await asyncio.gather(cool.play(scripted(["sr"])), hot.play(scripted(["ll", "ll"])))
        heard = []
        while len(heard) < 3:  # (a turn's `viewers` comes too: the count changed)
            message = json.loads((await asyncio.wait_for(layer.receive(channel), 5))["text"])
            if message["type"] in ("step", "turn"):
                heard.append(message)
    finally:
        await database_sync_to_async(viewers_change)(match.pk, -1)
    hot_step, turn, cool_step = heard
    assert (hot_step["type"], hot_step["team"], hot_step["command"], hot_step["turn"]) == (
        "step", 1, "ll", 1)
    assert hot_step["state"]["agents"] == [[[0, 1]], [[4, 1]]] and len(hot_step["cells"]) == 9
    assert (turn["type"], turn["turn"]) == ("turn", 1)
    assert (cool_step["type"], cool_step["team"], cool_step["command"], cool_step["result"],
            cool_step["turn"]) == ("step", 0, "sr", "ok", 2)
    assert cool_step["cells"] == [[x, 1] for x in range(1, 10)]  # Cool at (0, 1) reads right


async def test_a_game_nobody_watches_sends_its_sockets_only_its_end_and_the_lists_its_last_line(
        serve, monkeypatch):
    """No socket counted on the match: neither its steps nor its turns are built for its
    sockets (one that opens fills the gap from the stored turns); its end is, and the
    judges' list hears the line of the last turn of each store (here one at the end:
    STORE_EVERY is longer than the game), not one a turn that the next replaces."""
    from channels.layers import get_channel_layer

    from matches.live.broadcast import JUDGES_LIST_GROUP, match_group
    from matches.protocol_servers.chaser import game

    monkeypatch.setattr(game, "HOLD_LOOK", 0.0)
    monkeypatch.setattr(game, "STORE_EVERY", 60.0)
    server = await serve(BOARD, 3)
    cool = await Client.connect(server.ports[0], b"C")
    hot = await Client.connect(server.ports[1], b"H")
    assert await cool.line() == "@"
    match = await database_sync_to_async(Match.objects.get)()
    layer = get_channel_layer()
    sockets, lists = await layer.new_channel(), await layer.new_channel()
    await layer.group_add(match_group(match.pk), sockets)
    await layer.group_add(JUDGES_LIST_GROUP, lists)
    await first_step_by_hand(cool, "lu")
    await asyncio.gather(cool.play(scripted(["ld", "lu"])), hot.play(scripted(STEADY)))
    await server.task

    async def heard(channel: str, count: int) -> list[dict]:
        return [json.loads((await asyncio.wait_for(layer.receive(channel), 5))["text"])
                for _ in range(count)]

    (end,) = await heard(sockets, 1)
    assert (end["type"], end["turn"]) == ("end", 3)
    turns = []  # (its line at its making may come first)
    while 3 not in turns:
        (line,) = await heard(lists, 1)
        if line["type"] == "summary" and line["match"]["id"] == match.pk:
            turns.append(line["match"]["turn"])
    assert [turn for turn in turns if turn] == [3]
    with pytest.raises(TimeoutError):  # nothing else came to the sockets
        await asyncio.wait_for(layer.receive(sockets), 0.3)
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert stored.resolved_turns == 3  # every turn stored all the same


async def test_a_game_nobody_watches_stores_its_turns_together_and_all_by_its_end(
        serve, monkeypatch):
    """Unwatched, a game's turns are stored together (STORE_EVERY apart at most: here
    longer than the game, so all at its end, in one transaction, one time for all);
    watched, each as soon as it is played. Either way the record verifies."""
    from matches.live.viewers import viewers_change
    from matches.protocol_servers.chaser import game

    monkeypatch.setattr(game, "STORE_EVERY", 60.0)

    async def played(watched: bool) -> list:
        server = await serve(BOARD, 3)
        cool = await Client.connect(server.ports[0], b"C")
        hot = await Client.connect(server.ports[1], b"H")
        assert await cool.line() == "@"
        match = await database_sync_to_async(Match.objects.latest)("pk")
        if watched:
            monkeypatch.setattr(game, "HOLD_LOOK", 0.0)  # (seen from the next step on)
            await database_sync_to_async(viewers_change)(match.pk, +1)
        try:
            await first_step_by_hand(cool, "lu")
            await asyncio.gather(cool.play(scripted(["ld", "lu"])), hot.play(scripted(STEADY)))
            (result,) = await server.task
        finally:
            if watched:
                await database_sync_to_async(viewers_change)(match.pk, -1)
        stored = await finished(result.match_id)
        assert stored.resolved_turns == 3
        return await database_sync_to_async(list)(
            stored.turn_rows.order_by("number").values_list("resolved_at", flat=True))

    assert len(set(await played(watched=False))) == 1  # one store at the end
    assert len(set(await played(watched=True))) == 3  # one a turn


async def test_every_surface_works_on_a_tcp_game(serve):
    """Replay, audit (with the raw lines and the fault), exports, picture, verify and
    publication, as for every game."""
    from django.contrib.auth.models import Permission, User
    from django.test import Client as Browser

    from matches.services.publication import match_publish

    server = await serve(BOARD, TURNS, timeout=0.5)
    cool = await Cool.connect(server.ports[0], b"Bad")
    cool.fault = "unknown"
    hot = await Client.connect(server.ports[1], b"Good")
    await asyncio.gather(cool.play(None), hot.play(scripted(STEADY)))
    (result,) = await server.task
    match_id = result.match_id

    def surfaces():
        judge = User.objects.create_user("judy", password="pw")
        judge.user_permissions.add(Permission.objects.get(codename="judge"))
        browser = Browser(HTTP_HOST="127.0.0.1")
        browser.force_login(judge)
        audit = browser.get(f"/matches/{match_id}/audit")
        exported = browser.get(f"/matches/{match_id}/audit/submissions.json").json()
        csv = browser.get(f"/matches/{match_id}/audit/submissions.csv")
        match_publish(match_id=match_id, published=True)
        anyone = Browser(HTTP_HOST="127.0.0.1")
        return (audit, exported, csv, anyone.get(f"/matches/{match_id}/replay"),
                anyone.get(f"/matches/{match_id}/board.png"),
                anyone.get(f"/api/matches/{match_id}").json())

    audit, exported, csv, replay, picture, shown = await database_sync_to_async(surfaces)()
    assert audit.status_code == 200 and "unknown_command" in audit.content.decode()
    assert csv.status_code == 200 and replay.status_code == 200
    assert picture.status_code == 200 and picture["Content-Type"] == "image/png"
    rows = exported if isinstance(exported, list) else exported["submissions"]
    assert {row["status_code"] for row in rows} == {200, 202, 400}
    assert shown["result"] == {"winner": 1, "decided_by": "fault"} and shown["status"] == "finished"
    await finished(match_id)


async def test_a_match_cancelled_while_its_news_cannot_be_sent_does_not_wait_for_ever(
        serve, monkeypatch):
    """The loop's tasks cancelled together (a process stopping, a test's loop closing)
    while the channel layer does not answer: the match's task waits for the outbox at
    most its drain's time, not for ever (it did once: a whole test run hung on it)."""
    from matches.live import outbox

    async def never_sent(triples):
        await asyncio.Event().wait()

    monkeypatch.setattr(outbox, "_send_all", never_sent)
    monkeypatch.setattr(ChaserServer, "DRAIN_SECONDS", 0.3)
    server = await serve(BOARD, TURNS)
    outbox.OUTBOX.ready("a group", {"type": "step"})  # handed over, never sent
    server.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(server.task, 5)
