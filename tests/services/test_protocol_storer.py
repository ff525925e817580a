"""A protocol game's turns stored behind it (services/protocol.py's Storer): in order, on
a thread of their own, a failure raised on the game's thread, and a look at the match
taken while a store was under way not taking its turns back."""

import threading
from datetime import UTC, datetime

import pytest

from matches.models import Match, Submission
from matches.services import protocol
from tests.protocol_servers.test_chaser_faults import BOARD, TURNS

# (the storer's thread has a database connection of its own: it sees committed rows)
pytestmark = pytest.mark.django_db(transaction=True)

AT = datetime(2026, 11, 29, 21, 30, tzinfo=UTC)


def a_game() -> protocol.Game:
    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    return protocol.game_create(board=board, team_names=["Alpha", "Beta"], turns=TURNS,
                                title="Alpha vs Beta", public_live=False)


def a_turn(game: protocol.Game, turn: int) -> dict:
    """Both sides' command of a turn, stored as the server stores them."""
    return {side: (protocol.line_store(game, side, turn, b"sd\r\n", AT, "127.0.0.1",
                                       status=202, actions=[{"command": "sd"}]),
                   [{"command": "sd"}]) for side in (0, 1)}


def test_batches_are_stored_in_order_on_a_thread_of_their_own():
    game = a_game()
    storer = protocol.Storer(game)
    stored_by = []
    listener = lambda **_: stored_by.append(threading.get_ident())  # noqa: E731
    from matches.services.transition import match_ended

    try:
        storer.put([a_turn(game, 1), a_turn(game, 2)], False)
        storer.put([a_turn(game, 3)], False)
        storer.drain()
        assert not storer.busy
        match = Match.objects.get(pk=game.match_id)
        assert match.resolved_turns == 3
        assert list(match.turn_rows.order_by("number").values_list("number", flat=True)) == \
            [1, 2, 3]
        assert Submission.objects.filter(match_id=game.match_id, counted=True).count() == 6
        match_ended.connect(listener)
        storer.put([a_turn(game, turn) for turn in range(4, TURNS + 1)], False)
        storer.drain()
    finally:
        match_ended.disconnect(listener)
        storer.close()
    assert Match.objects.get(pk=game.match_id).over
    assert stored_by and threading.get_ident() not in stored_by


def test_a_failed_store_is_raised_on_the_games_thread_and_nothing_after_it_is_stored():
    game = a_game()
    storer = protocol.Storer(game)
    try:
        turn = a_turn(game, 1)
        with pytest.raises((TypeError, AttributeError)):
            storer.put([None], False)  # (no turn at all: the store fails)
            storer.put([turn], False)  # (raised here if it has failed by now,
            storer.drain()  # or here once it has)
        storer.drain()  # (raised once)
    finally:
        storer.close()
    assert Match.objects.get(pk=game.match_id).resolved_turns == 0


def test_a_look_read_before_a_store_committed_does_not_take_its_turns_back():
    """The game's thread looks at the match (a hold, a void?) while its turns are stored
    behind it: the look may be read before the store commits. The next store takes the
    look up with the turns the server stored, and stores the next turn."""
    game = a_game()
    early = Match.objects.select_related("board").prefetch_related("teams").get(
        pk=game.match_id)  # (a look's read, at turn 0)
    protocol.turns_store(game, [a_turn(game, 1)], False)
    game.looked = early  # (as if set once the store had committed)
    protocol.turns_store(game, [a_turn(game, 2)], False)
    assert Match.objects.get(pk=game.match_id).resolved_turns == 2
    assert game.match is early and early.resolved_turns == 2
