"""The judges' audit of a CHaser game played over TCP while it runs: no offline entry
(the server drives the game: a judge cannot add actions to it), a hand-made entry is
refused and logged, and the programs' protocol lines read as such, not as refusals."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client as Browser

from matches.models import Submission
from matches.services import protocol
from tests.protocol_servers.test_chaser_faults import BOARD, TURNS

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def test_a_running_tcp_game_has_no_offline_entry_and_refuses_one():
    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    game = protocol.game_create(board=board, team_names=["Alpha", "Beta"], turns=TURNS,
                                title="Alpha vs Beta", public_live=False)
    protocol.line_store(game, 0, None, b"Alph\r\n", AT, "127.0.0.1", status=200)
    protocol.line_store(game, 0, 1, b"gr\r\n", AT, "127.0.0.1", status=200)
    protocol.line_store(game, 0, 1, b"lu\r\n", AT, "127.0.0.1", status=202,
                        actions=[{"command": "lu"}])
    protocol.lines_move(game)  # (from the process's journal, where it keeps one)
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    browser = Browser(HTTP_HOST="127.0.0.1")
    browser.force_login(judge)

    page = browser.get(f"/matches/{game.match_id}/audit").content.decode()
    assert "Offline entry" not in page and 'name="actions"' not in page
    assert page.count("200 read") == 2 and "202 accepted" in page
    refused = browser.get(f"/matches/{game.match_id}/audit?verdict=refused").content.decode()
    assert "200 read" not in refused and "202 accepted" not in refused

    answer = browser.post(f"/matches/{game.match_id}/audit/enter", {
        "team": "1", "actions": '{"actions": [{"command": "wu"}]}', "note": "asked by Beta"},
        follow=True)
    assert "Refused (409 wrong_protocol)" in answer.content.decode()
    entered = Submission.objects.get(match_id=game.match_id, entered_by="judy")
    assert entered.status_code == 409 and not entered.counted


def test_a_games_spectator_delay_is_its_matchs_and_its_later_games():
    """chaserserver --delay (and a tournament's): the game's match and every later game
    of it are shown to the public that far behind; its steps carry the delay (ms)."""
    from matches.models import Match

    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    first = protocol.game_create(board=board, team_names=["Alpha", "Beta"], turns=TURNS,
                                 title="Alpha vs Beta", public_live=True, games=3,
                                 delay_seconds=30)
    later = protocol.game_create(board=board, team_names=["Beta", "Alpha"], turns=TURNS,
                                 title="game 2", public_live=True, games=3,
                                 first=first.match_id)
    assert (first.late, later.late) == (30_000, 30_000)
    assert {m.delay_s for m in Match.objects.filter(pk__in=[first.match_id,
                                                            later.match_id])} == {30}


def test_a_played_turn_is_stored_through_a_hold_and_not_after_a_void():
    """A turn both programs have played is stored even when the judges hold the match
    before it is (the hold stops the next step, not a turn already played), counted
    from the lines its server stored; a void match stores no more turns."""
    from matches.models import Match
    from matches.services.control import match_pause, match_void

    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    game = protocol.game_create(board=board, team_names=["Alpha", "Beta"], turns=TURNS,
                                title="Alpha vs Beta", public_live=False)
    counted = {side: (protocol.line_store(game, side, 1, b"lu\r\n", AT, "127.0.0.1",
                                          status=202, actions=[{"command": "lu"}]),
                      [{"command": "lu"}]) for side in (0, 1)}
    match_pause(match_id=game.match_id, reason="a cable", judge="judy")
    protocol.turns_store(game, [counted])
    match = Match.objects.get(pk=game.match_id)
    assert match.resolved_turns == 1 and match.turn_rows.count() == 1
    assert sorted((match, side, bytes(body)) for match, side, body in
                  Submission.objects.filter(counted=True).values_list(
                      "match_id", "team__index", "body")) == \
        [(game.match_id, 0, b"lu\r\n"), (game.match_id, 1, b"lu\r\n")]

    match_void(match_id=game.match_id, reason="wrong map", judge="judy")
    protocol.game_look(game)
    protocol.turns_store(game, [{}])
    assert Match.objects.get(pk=game.match_id).turn_rows.count() == 1
