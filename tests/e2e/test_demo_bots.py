"""make demo's matches: every live game that has built-in bots has a match on at once,
played by them through the real HTTP API, and each game's stored turns equal the replay
of what its bots sent (legal moves only, for an alternating game)."""

import time

from matches.models import Match
from matches.rules import LIVE_GAMES
from matches.selectors import match_verify
from tests.e2e.conftest import free_port, wait_for_port


def test_the_bots_play_a_match_of_every_live_game_at_once(spawn, tmp_path):
    """(A step of 1.5 s: on a machine whose two cores run the suite's other process and
    its servers too, a bot's read, move and answer have taken longer than 0.6 s.)"""
    port = free_port()
    spawn("demo", "--port", str(port), "--strategy-seconds", "1.5",
          "--transition-seconds", "0.2", "--turns", "4", "--clock", "60",
          log_to=tmp_path / "demo.log")
    wait_for_port(port)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        played = {game: Match.objects.filter(game=game, resolved_turns__gte=4).first()
                  for game in LIVE_GAMES}
        if all(played.values()):
            break
        time.sleep(0.5)
    assert all(played.values()), (played, (tmp_path / "demo.log").read_text()[-2000:])
    for match in played.values():
        assert match.public_live and match_verify(match).verified
        assert match.submissions.filter(status_code=202).count() >= 4
