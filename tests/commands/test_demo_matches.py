"""The demo's matches, made as `manage.py demo` makes them (without its server and bots):
each game's boards in turn, the demo's pace, a new random board for each game that has
no public one, and the later games of a match five seconds after the game before."""

from datetime import timedelta

import pytest

from matches.boards.specs import board_spec_public
from matches.management.commands.demo import RANDOM, Command
from matches.models import Match
from matches.rules import LIVE_GAMES, rules_for
from matches.services.matches import Timing

pytestmark = pytest.mark.django_db
TEAMS = ["Greedy", "Random"]


def demo(turns: int | None = None) -> Command:
    command = Command()
    command.timing = Timing(turns=turns, strategy_seconds=2.0, transition_seconds=0.5,
                            clock_seconds=300.0, between_seconds=5.0)
    return command


def made(game: str, board: str | None, turns: int | None = None) -> list[Match]:
    ids, tokens = demo(turns).create(game, board, TEAMS)
    assert len(tokens) == 2
    return [Match.objects.get(pk=pk) for pk in ids]


def test_each_game_plays_its_favourite_boards_its_only_board_or_random_ones():
    names = {game: Command.board_names(game) for game in LIVE_GAMES}
    assert names["kakomimasu"] == ["A-1", "Kakom-1", "island-1", "F-1", "island-3"]
    assert names["procon2020"] == [RANDOM] and names["blokus-duo"] == [None]


def test_a_match_on_a_public_board_is_named_after_it_and_takes_its_turns():
    [match] = made("kakomimasu", "A-1")
    assert (match.title, match.board.name, match.public_live) == (
        "Demo: Greedy vs Random on A-1", "A-1", True)
    turns = board_spec_public("kakomimasu", "A-1")[1]["turns"]
    assert (match.turns, match.strategy_ms, match.transition_ms) == (turns, 2000, 500)
    assert made("kakomimasu", "Kakom-1", turns=4)[0].turns == 4


def test_a_match_of_two_games_has_a_new_random_board_each_five_seconds_apart():
    first, second = made("procon2020", RANDOM, turns=3)
    assert first.title == "Demo: Greedy vs Random"
    assert second.title == "Demo: Greedy vs Random (game 2)" and second.secret_board
    assert first.board.name.startswith("random ") and " seed " in first.board.name
    assert " seed " in second.board.name and second.board != first.board
    gap = second.start_at - (first.start_at + 3 * first.period)  # 5 s, to a whole second
    assert timedelta(seconds=5) <= gap < timedelta(seconds=6) and second.start_at.microsecond == 0


def test_an_alternating_game_is_played_on_the_demos_clock():
    [match] = made("blokus-duo", None, turns=4)
    assert (match.clock_ms, match.strategy_ms) == (300000, 0)
    assert match.turns == rules_for("blokus-duo").max_turns  # not the timed games' turns
    assert match.title == "Demo: Greedy vs Random"


def test_one_game_plays_the_demos_tournament():
    assert [game for game in LIVE_GAMES if rules_for(game).demo_tournament] == ["kakomimasu"]


def test_a_bot_reads_an_error_that_is_not_json_as_nothing_and_plays_on():
    """A proxy's page or a cut answer (a 502 in HTML, an empty 401) is no state to read:
    the bot's call gives {} instead of ending its thread with a JSONDecodeError."""
    import http.server
    import threading

    from matches.management.commands.demo import BotPlayer

    class Proxy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = b"<html>502 Bad Gateway</html>" if "html" in self.path else b""
            self.send_response(502 if body else 401)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        player = BotPlayer(base, 1, 0, "token", "kakomimasu", "greedy")
        assert player.call("GET", "/html") == {}
        assert player.call("GET", "") == {}  # an empty body reads as {} as before
    finally:
        server.shutdown()


def test_a_bot_whose_teams_take_turns_waits_for_the_news_of_the_others_move(settings):
    """The demo's bots read an alternating game when the live messages say it is their
    move (or it ended), not every moment: here on the in-memory channel layer the demo
    serves on, the messages sent on its event loop as the server sends them."""
    import asyncio
    import concurrent.futures
    import threading
    import time

    from channels.layers import get_channel_layer

    from matches.live.broadcast import match_group
    from matches.live.outbox import Outbox
    from matches.management.commands.demo import BotPlayer, News

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    outbox = Outbox()  # as the server's: sent from its loop
    outbox.serve_from(loop)

    def send(message: dict) -> None:
        outbox.ready(match_group(7), message)

    news = News(loop, 7)
    player = BotPlayer("http://127.0.0.1:9", 7, 1, "token", "blokus-duo", "greedy", news)
    try:
        layer = get_channel_layer()
        for _ in range(100):  # until the listener has joined the match's group
            if layer.groups.get(match_group(7)):
                break
            time.sleep(0.02)
        returned = threading.Event()
        stop = threading.Event()
        waiting = threading.Thread(target=lambda: (player.await_my_move(stop, 4),
                                                   returned.set()), daemon=True)
        waiting.start()
        send({"type": "turn", "match": 7, "turn": 4, "to_move": 0})  # its own move heard
        send({"type": "viewers", "count": 3})
        assert not returned.wait(1.2)  # still the other's move
        send({"type": "turn", "match": 7, "turn": 5, "to_move": 1})  # the other moved
        assert returned.wait(1.0)
        returned.clear()
        waiting = threading.Thread(target=lambda: (player.await_my_move(stop, 6),
                                                   returned.set()), daemon=True)
        waiting.start()
        send({"type": "end", "match": 7, "turn": 6})
        assert returned.wait(1.0)
    finally:
        news.close()
        concurrent.futures.wait([news.listening], timeout=5)  # (it left the group)
        loop.call_soon_threadsafe(loop.stop)


def test_a_demo_bot_looks_again_in_a_second_while_its_match_is_held():
    from matches.management.commands.demo import BotPlayer

    held = {"paused": {"since": 0, "reason": "x", "remaining_ms": 900}, "deadline": 1000,
            "server_time": 5000, "strategy_ms": 1000, "transition_ms": 500, "to_move": None}
    assert BotPlayer.pause(held, None) == 1.0
    assert BotPlayer.pause({**held, "paused": None}, None) == 0.02  # its deadline is past
