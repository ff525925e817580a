"""The complete client of docs/api.md, run as it is printed against a live server and
clock: both teams play a whole match with it and every submission is accepted."""

import re
import subprocess
import sys
from pathlib import Path

from matches.models import Submission
from tests.factories import make_match

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def the_client() -> str:
    text = DOC.read_text().split("## A complete client", 1)[1]
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


def test_the_documented_client_plays_a_whole_match(spawn, tmp_path):
    from tests.e2e.conftest import free_port, wait_for_port

    client = tmp_path / "client.py"
    client.write_text(the_client())
    port = free_port()
    spawn("runserver", "--noreload", f"127.0.0.1:{port}", log_to=tmp_path / "server.log")
    wait_for_port(port)  # a slow start must not cost the first turn
    # (4 s: the clock and both clients start first, however loaded the machine)
    # (3 s a strategy step: each client reads, decides and sends in it on a busy machine)
    match, tokens = make_match(start_in=4, strategy=3, transition=0.5, turns=3, agents=2)
    spawn("runclock", log_to=tmp_path / "clock.log")
    players = [subprocess.Popen([sys.executable, str(client), f"http://127.0.0.1:{port}",
                                 str(match.pk), token], stdout=subprocess.PIPE, text=True)
               for token in tokens]
    outputs = [player.communicate(timeout=60)[0] for player in players]
    for player, output in zip(players, outputs, strict=True):
        assert player.returncode == 0, output
        lines = output.splitlines()  # a move off the board is left out: 1 or 2 actions
        assert [re.sub(r"\d actions", "N actions", line) for line in lines[:3]] == [
            f"turn {n}: N actions accepted" for n in (1, 2, 3)], output
        assert lines[-1].startswith("finished: {")
    stored = Submission.objects.filter(match=match)
    assert sorted(stored.values_list("turn", "team__index", "status_code")) == [
        (turn, team, 202) for turn in (1, 2, 3) for team in (0, 1)]
    assert stored.filter(counted=True).count() == 6
