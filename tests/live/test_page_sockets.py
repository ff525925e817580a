"""A tournament's page follows its socket instead of asking again on a timer
(docs/live-protocol.md, "Pages"): a `changed` with the version to read, at once for
the judges and a spectator delay later for everyone else; each of its matches' `line`
after a turn; a private tournament's socket is the judges' alone."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from matches.live.broadcast import summary_news, tournament_group
from matches.models import Fixture, Match
from matches.selectors import epoch_ms
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, fixture_decide, tournament_create
from tests.live.clients import browser_socket, first_answer
from tests.live.test_socket_privacy import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]


@sync_to_async
def cup(public: bool = True, delay: int = 0, start_in: float = 0.0) -> int:
    created = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="round-robin", public=public,
        teams=[EntrantSpec(name) for name in ("Alpha", "Beta", "Gamma", "Delta")],
        start_at=timezone.now() + timedelta(seconds=start_in), boards=["A-1"], turns=5,
        delay_seconds=delay))
    return created.tournament.pk


async def next_of(socket, wanted: str) -> dict:
    while True:
        message = await socket.receive_json_from(timeout=3)
        if message["type"] == wanted:
            return message


async def test_the_judges_hear_a_fixture_judged_at_once_and_everyone_a_delay_later():
    tournament = await cup(delay=2)
    await sync_to_async(tournaments_tick)(timezone.now())
    judge = browser_socket(f"/ws/tournaments/{tournament}/", cookie=await session_cookie(True))
    anyone = browser_socket(f"/ws/tournaments/{tournament}/")
    opened = {}
    for name, socket in (("judge", judge), ("anyone", anyone)):
        kind, opened[name] = await first_answer(socket)
        assert kind == "message" and opened[name]["type"] == "changed", opened[name]
    now = epoch_ms(timezone.now())
    # the opening: the moment this process began to listen (everyone's: a delay later)
    assert opened["judge"]["version"] <= now < opened["anyone"]["version"] <= now + 2_000
    fixture = await sync_to_async(lambda: Fixture.objects.filter(tournament_id=tournament)
                                  .first())()
    before = epoch_ms(timezone.now())
    await sync_to_async(fixture_decide)(fixture_id=fixture.pk, winner=fixture.team_a,
                                        note="their program never came", judge="judy")
    told = {"judge": await next_of(judge, "changed")}
    # everyone else hears of it only once it has come to them, a delay later
    assert await anyone.receive_nothing(timeout=1.0)
    told["anyone"] = await next_of(anyone, "changed")
    assert epoch_ms(timezone.now()) >= told["judge"]["version"] + 2_000 - 50
    assert {message["key"] for message in told.values()} == {tournament}
    assert before <= told["judge"]["version"] <= epoch_ms(timezone.now())
    assert told["anyone"]["version"] == told["judge"]["version"] + 2_000
    # a newcomer of the same process is told the latest version heard
    late = browser_socket(f"/ws/tournaments/{tournament}/")
    kind, message = await first_answer(late)
    assert message["version"] == max(told["anyone"]["version"], opened["anyone"]["version"])
    for socket in (judge, anyone, late):
        await socket.disconnect()


async def test_a_private_tournaments_socket_is_the_judges_alone():
    tournament = await cup(public=False)
    assert await first_answer(browser_socket(f"/ws/tournaments/{tournament}/")) == \
        ("closed", 4404)
    assert await first_answer(browser_socket("/ws/tournaments/999999/")) == ("closed", 4404)
    judge = browser_socket(f"/ws/tournaments/{tournament}/", cookie=await session_cookie(True))
    kind, message = await first_answer(judge)
    assert kind == "message" and message["type"] == "changed"
    await judge.disconnect()


async def test_a_look_that_changes_nothing_tells_the_page_nothing():
    tournament = await cup(start_in=3600)
    socket = browser_socket(f"/ws/tournaments/{tournament}/")
    await first_answer(socket)
    await sync_to_async(tournaments_tick)(timezone.now(), woken=True)
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()


@sync_to_async
def lines_of(tournament: int) -> list:
    tournaments_tick(timezone.now())
    match = Match.objects.filter(fixture__tournament_id=tournament).first()
    match.delay_s = 30
    return match, summary_news(match)


async def test_a_turn_of_a_tournaments_match_is_its_line_on_the_page():
    match, news = await lines_of(await cup())
    lines = [(group, message, late) for group, message, late in news
             if message["type"] == "line"]
    tournament = await sync_to_async(lambda: match.fixture.tournament_id)()
    assert [(group, late) for group, _, late in lines] == [
        (tournament_group(tournament, judges=True), 0), (tournament_group(tournament), 30_000)]
    assert set(lines[0][1]) == {"type", "tournament", "match", "status", "turn", "turns",
                                "headline"}
    assert lines[0][1]["match"] == match.pk


async def test_the_control_room_is_told_of_a_question_and_a_team_heard_from_judges_alone():
    from matches.live import broadcast
    from matches.services.notices import question_ask
    from tests.factories import make_match

    assert await first_answer(browser_socket("/ws/control/")) == ("closed", 4404)
    assert await first_answer(browser_socket(
        "/ws/control/", cookie=await session_cookie(False))) == ("closed", 4404)
    room = browser_socket("/ws/control/", cookie=await session_cookie(True))
    kind, opening = await first_answer(room)
    assert kind == "message" and opening["type"] == "changed" and opening["page"] == "room"
    match, _ = await sync_to_async(make_match)()
    await next_of(room, "changed")  # the match made (its summary)
    team = await sync_to_async(lambda: match.teams.get(index=0))()
    await sync_to_async(question_ask)(holder=team, text="May we restart our program?")
    told = await next_of(room, "changed")
    assert told["version"] >= opening["version"]
    broadcast._room_heard.clear()
    await sync_to_async(broadcast.room_heard)(team.pk)
    await sync_to_async(broadcast.room_heard)(team.pk)  # within the gap: nothing more
    await next_of(room, "changed")
    assert await room.receive_nothing(timeout=0.3)
    await room.disconnect()


async def test_a_teams_page_offers_its_token_as_a_subprotocol_and_watches_its_match_live():
    from channels.testing import WebsocketCommunicator

    from spectator.asgi import application
    from tests.factories import make_match
    from tests.live.clients import BROWSER

    match, tokens = await sync_to_async(make_match)(public=False)
    path = f"/ws/matches/{match.pk}/"
    assert await first_answer(browser_socket(path)) == ("closed", 4404)  # anyone: none
    for offered, opens in ((["bearer", tokens[0]], True), (["bearer", "made-up"], False),
                           (["bearer"], False)):
        socket = WebsocketCommunicator(application, path, headers=BROWSER,
                                       subprotocols=offered)
        kind, message = await first_answer(socket)
        assert (kind == "message" and message["type"] == "snapshot") == opens, (offered, kind)
        if opens:
            assert message["match"]["behind_s"] == 0
            await socket.disconnect()
    # a page of another site may not use a team's token either
    other = WebsocketCommunicator(application, path, subprotocols=["bearer", tokens[0]],
                                  headers=[(b"origin", b"http://evil.example"),
                                           (b"host", b"127.0.0.1")])
    assert await first_answer(other) == ("403", None)


async def test_a_games_socket_hears_of_the_next_game_of_its_match():
    from matches.services.matches import next_game_create
    from tests.factories import make_match

    first, _ = await sync_to_async(make_match)()
    socket = browser_socket(f"/ws/matches/{first.pk}/")
    assert (await first_answer(socket))[0] == "message"
    second = await sync_to_async(next_game_create)(
        first=first, board=first.board, agents=first.agents,
        start_at=timezone.now() + timedelta(minutes=1), secret_board=False)
    told = await next_of(socket, "next_game")
    assert told == {"type": "next_game", "games": [first.pk, second.pk]}
    await socket.disconnect()


async def test_a_teams_token_opens_the_socket_of_its_matchs_later_game():
    from channels.testing import WebsocketCommunicator

    from matches.services.matches import next_game_create
    from spectator.asgi import application
    from tests.factories import make_match
    from tests.live.clients import BROWSER

    first, tokens = await sync_to_async(make_match)(public=False)
    second = await sync_to_async(next_game_create)(
        first=first, board=first.board, agents=first.agents,
        start_at=timezone.now() + timedelta(minutes=1), secret_board=False)
    socket = WebsocketCommunicator(application, f"/ws/matches/{second.pk}/", headers=BROWSER,
                                   subprotocols=["bearer", tokens[1]])
    kind, message = await first_answer(socket)
    assert kind == "message" and message["type"] == "snapshot"
    await socket.disconnect()
