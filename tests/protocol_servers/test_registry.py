"""The protocol servers' registry: every game played over its own protocol has a server
package, found by the game's id, offering what the demo and createtournament ask of it."""

import inspect

from matches.protocol_servers import server_for, server_modules
from matches.rules import GAMES, rules_for
from matches.rules.turns import is_protocol_played


def test_every_protocol_played_game_has_a_server_with_a_demo_and_a_board_check():
    played = [game for game in GAMES if is_protocol_played(rules_for(game))]
    assert played == ["chaser"]
    assert server_modules() == [server_for("chaser")]
    server = server_for("chaser")
    assert inspect.iscoroutinefunction(server.demo)
    assert server.board_problem("akisato_m01") == ""


def test_a_board_that_cannot_be_played_is_named_with_the_shipped_maps():
    problem = server_for("chaser").board_problem("no_such_map")
    assert problem.startswith("no_such_map: No such file or directory")
    assert "akisato_m01" in problem
