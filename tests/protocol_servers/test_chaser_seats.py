"""Who may take a CHaser seat. With the match's teams given (`--teams`, a tournament) a
seat is its team's: a program that sends another name is closed, and the refusal is
stored in the game's submissions, where the judges' audit shows it; the team's own
program then plays. A connection may wait only so long for its game (`--seat-wait`),
so a silent one cannot hold a seat. A free server (no teams) seats whoever comes first."""

import asyncio
import re
import threading
import time

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from matches.models import Match, Submission
from matches.protocol_servers.chaser import tournament as tournament_server
from tests.commands.calls import refusal
from tests.protocol_servers.chaser_client import Client, scripted
from tests.protocol_servers.test_chaser_faults import BOARD, STEADY, TURNS

TEAMS = ["Alpha", "Beta"]


async def closed(client: Client, within: float = 5) -> bool:
    """Whether the server closes the client's connection (no line first) in time."""
    return await client.line(timeout=within) is None


async def refusals(match_id: int) -> list[tuple]:
    rows = Submission.objects.filter(match_id=match_id, status_code__gte=403).order_by(
        "received_at", "id")
    return await database_sync_to_async(list)(rows.values_list(
        "team", "turn", "body", "status_code", "error", "detail"))


def audit_page(match_id: int, *query: str) -> str:
    from django.contrib.auth.models import Permission, User
    from django.test import Client as Browser

    judge = User.objects.filter(username="judy").first()
    if judge is None:
        judge = User.objects.create_user("judy", password="pw")
        judge.user_permissions.add(Permission.objects.get(codename="judge"))
    browser = Browser(HTTP_HOST="127.0.0.1")
    browser.force_login(judge)
    answer = browser.get(f"/matches/{match_id}/audit" + (f"?{query[0]}" if query else ""))
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_name_answers_for_its_team_whole_shown_or_short_ignoring_case():
    from matches.rules import rules_for

    team_answers_to = rules_for("chaser").answers_to

    assert team_answers_to("Alpha", "Alpha") and team_answers_to("ALPH", "Alpha")
    assert team_answers_to("al", "Alpha", "AL") and team_answers_to(" beta ", "Beta")
    assert not team_answers_to("Alphabet", "Alpha")  # not its name, though shown "Alph"
    assert not team_answers_to("Beta", "Alpha", "AL") and not team_answers_to("", "Alpha")


async def test_an_impostor_is_refused_stored_for_the_audit_and_the_team_plays(serve):
    """Game 1: Cool is Alpha's, Hot Beta's; game 2 the other way round. A wrong name is
    closed at once (and a team on the other team's seat of this game); the seat's own
    program, by its name or its short code in any case, then plays it."""
    server = await serve(BOARD, TURNS, games=2, team_names=TEAMS, team_shorts=["AL", "BE"])
    impostor = await Client.connect(server.ports[0], b"Imp")
    assert await closed(impostor)  # before Hot's program has even come
    cool = await Client.connect(server.ports[0], b"alpha")
    hot = await Client.connect(server.ports[1], b"be")
    await asyncio.wait_for(asyncio.gather(cool.play(scripted(STEADY)),
                                          hot.play(scripted(STEADY))), 15)
    assert cool.replies and hot.replies  # the teams' programs played the game

    wrong_side = await Client.connect(server.ports[0], b"Alpha")  # game 2's Cool is Beta's
    assert await closed(wrong_side)
    cool = await Client.connect(server.ports[0], b"Beta")
    hot = await Client.connect(server.ports[1], b"Alph")
    await asyncio.wait_for(asyncio.gather(cool.play(scripted(STEADY)),
                                          hot.play(scripted(STEADY))), 15)
    first, second = await asyncio.wait_for(server.task, 10)
    assert (first.names, second.names) == (["Alpha", "Beta"], ["Beta", "Alpha"])
    assert cool.replies and hot.replies

    ((team, turn, body, status, error, detail),) = await refusals(first.match_id)
    assert (team, turn, bytes(body), status, error) == (None, None, b"Imp\r\n", 403,
                                                         "wrong_team")
    assert "'Imp'" in detail and "Cool in game 1 is 'Alpha' or 'AL'" in detail
    ((*_, body, status, error, detail),) = await refusals(second.match_id)
    assert (bytes(body), status, error) == (b"Alpha\r\n", 403, "wrong_team")
    assert "Cool in game 2 is 'Beta'" in detail
    # each game's names are its programs' own: the impostor's line is not among them
    names = await database_sync_to_async(list)(Submission.objects.filter(
        match_id=first.match_id, turn=None, status_code=200).values_list("body", flat=True))
    assert sorted(bytes(body) for body in names) == [b"alpha\r\n", b"be\r\n"]

    page = await database_sync_to_async(audit_page)(first.match_id)
    assert "403 wrong_team" in page and "Imp" in page and "Cool in game 1" in page
    refused = await database_sync_to_async(audit_page)(first.match_id, "verdict=refused")
    assert "403 wrong_team" in refused and "200 read" not in refused


async def test_a_silent_connection_is_closed_after_the_seat_wait_and_the_team_plays(serve):
    """As in the issue: connections that send the team's name (or nothing) and go
    silent on Cool's port. Each is closed once it has waited `seat_wait` seconds for
    its game, the refusal kept for the game's audit; the real program then plays."""
    server = await serve(BOARD, TURNS, team_names=TEAMS, seat_wait=0.5)
    started = time.monotonic()
    silent = [await Client.connect(server.ports[0], b"Alpha") for _ in range(3)]
    nameless = await asyncio.open_connection("127.0.0.1", server.ports[0])
    for client in silent:
        assert await closed(client, within=5)
    assert await asyncio.wait_for(nameless[0].read(), 5) == b""  # the name wait is as long
    assert 0.5 <= time.monotonic() - started < 5
    nameless[1].close()

    cool = await Client.connect(server.ports[0], b"Alpha")
    hot = await Client.connect(server.ports[1], b"Beta")
    await asyncio.wait_for(asyncio.gather(cool.play(scripted(STEADY)),
                                          hot.play(scripted(STEADY))), 15)
    (result,) = await asyncio.wait_for(server.task, 10)
    assert cool.replies and hot.replies and result.names == TEAMS
    stored = await refusals(result.match_id)
    assert [(bytes(body), status, error) for _, _, body, status, error, _ in stored] == [
        (b"Alpha\r\n", 408, "seat_timeout")] * 3  # the nameless one has no line to keep
    assert "waited 0.5 s for its game" in stored[0][5]
    page = await database_sync_to_async(audit_page)(result.match_id)
    assert page.count("408 seat_timeout") == 3


async def test_a_free_server_seats_whoever_comes_first(serve):
    """No teams: any name takes a seat, the first on a port plays; the wait for a game
    is bounded there too."""
    server = await serve(BOARD, TURNS, seat_wait=1.0)
    silent = await Client.connect(server.ports[0], b"Zed")
    assert await closed(silent)
    first = await Client.connect(server.ports[0], b"Ann")
    await asyncio.sleep(0.2)
    second = await Client.connect(server.ports[0], b"Cal")  # after Ann: Ann plays
    hot = await Client.connect(server.ports[1], b"Yak")
    await asyncio.wait_for(asyncio.gather(first.play(scripted(STEADY)),
                                          hot.play(scripted(STEADY))), 15)
    (result,) = await asyncio.wait_for(server.task, 10)
    assert result.names == ["Ann", "Yak"] and first.replies
    kept = [(bytes(body), status, error) for *_, body, status, error, _ in
            await refusals(result.match_id)]
    assert kept[0] == (b"Zed\r\n", 408, "seat_timeout")
    # Cal, behind Ann, waits for a game this match never plays: when the game outlasts
    # its wait (a busy machine), it is refused the same way; nothing else is kept
    assert kept[1:] in ([], [(b"Cal\r\n", 408, "seat_timeout")])
    second.writer.close()


def test_the_seat_wait_option_is_checked():
    message = refusal("chaserserver", "--map", "akisato_m01", "--seat-wait", "-1")
    assert "--seat-wait" in message


async def play_game(ports: tuple[int, int], cool: bytes, hot: bytes) -> None:
    clients = [await Client.connect(ports[0], cool), await Client.connect(ports[1], hot)]
    await asyncio.wait_for(asyncio.gather(*(c.play(scripted(STEADY)) for c in clients)), 15)


@pytest.mark.django_db(transaction=True)
def test_a_tournament_seats_each_game_s_teams_by_name_or_short_code():
    """A fixture's match over TCP: Kushiro (short KSR) is Cool in odd games, Asahikawa
    in even ones; a stranger, and a team on the other's seat, are refused."""
    from matches.tournaments.runner import tournaments_tick
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create

    created = tournament_create(Plan(
        name="Seats", game="chaser", format="round-robin", start_at=timezone.now(),
        teams=[EntrantSpec("Kushiro", "KSR"), EntrantSpec("Asahikawa", "ASA")],
        turns=len(STEADY), gap_seconds=0, boards=["akisato_m01"]))
    tournament = created.tournament
    stop, said = threading.Event(), []
    server = threading.Thread(target=lambda: asyncio.run(tournament_server(
        tournament.pk, stop, said.append, ports=(0, 0), host="127.0.0.1")), daemon=True)
    server.start()

    async def programs(ports: tuple[int, int]) -> None:
        stranger = await Client.connect(ports[0], b"Obihiro")
        assert await closed(stranger)
        await play_game(ports, b"ksr", b"Asahikawa")
        wrong_side = await Client.connect(ports[0], b"KSR")  # game 2's Cool: Asahikawa
        assert await closed(wrong_side)
        await play_game(ports, b"ASA", b"Kush")
        await play_game(ports, b"Kushiro", b"asa")

    try:
        deadline = time.monotonic() + 60
        while not any("connect to ports" in line for line in said):
            assert time.monotonic() < deadline, said
            tournaments_tick(timezone.now())
            time.sleep(0.1)
        (told,) = [line for line in said if "connect to ports" in line]
        ports = tuple(int(port) for port in re.findall(r"ports (\d+) \(Cool\) and (\d+)",
                                                        told)[0])
        asyncio.run(programs(ports))
    finally:
        stop.set()
        server.join(15)
    games = list(Match.objects.filter(fixture__tournament=tournament).order_by("pk"))
    assert len(games) == 3
    assert [[team.name for team in game.teams.all()] for game in games] == [
        ["Kushiro", "Asahikawa"], ["Asahikawa", "Kushiro"], ["Kushiro", "Asahikawa"]]
    stored = [list(Submission.objects.filter(match=game, status_code=403).values_list(
        "body", "error")) for game in games]
    assert [[(bytes(body), error) for body, error in rows] for rows in stored] == [
        [(b"Obihiro\r\n", "wrong_team")], [(b"KSR\r\n", "wrong_team")], []]
    assert all(Submission.objects.filter(match=game, status_code=202).exists()
               for game in games)  # every game was played by the teams' programs


async def test_a_program_that_names_itself_as_the_server_stops_is_closed_at_once(serve):
    """A connection accepted just before the server stops (a tournament's program
    coming for a game the match no longer needs) sends its name after: it is closed
    then, not held for its whole seat wait by a server that has gone."""
    server = await serve(BOARD, TURNS, team_names=TEAMS, seat_wait=60)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.ports[0])
    await asyncio.sleep(0.2)  # accepted: its thread is reading the name
    server.stop()
    writer.write(b"Alpha\r\n")
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    writer.close()


async def test_a_stopped_server_listens_no_more(serve):
    """Once stopped, its ports refuse connections at once (so that the next fixture's
    server can take them), and no thread is left waiting on them."""
    server = await serve(BOARD, TURNS, team_names=TEAMS)
    ports = server.ports
    server.stop()
    for port in ports:
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", port)
    await asyncio.sleep(0.2)
    assert not [t for t in threading.enumerate() if t.name.endswith(tuple(map(str, ports)))]
