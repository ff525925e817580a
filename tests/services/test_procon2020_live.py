"""Procon 2020 live: a match made by creatematch on a random field or a field file,
played turn by turn by the built-in bots through the answer API, equal to its replay."""

import json
import random
from datetime import timedelta

import pytest

from matches.bots import bots_for
from matches.models import Match
from matches.rules.procon2020 import random_field
from matches.selectors import match_verify, public_state
from matches.services.submissions import Request, submission_receive
from matches.services.transition import turn_resolve
from tests.commands.calls import refusal, run

pytestmark = pytest.mark.django_db


def created(*flags) -> tuple[Match, list[str]]:
    printed = json.loads(run("creatematch", "--game", "procon2020", "--teams", "Hà Nội",
                             "Đà Nẵng", "--json", "--start-in", "0", *flags))
    return Match.objects.get(pk=printed["id"]), [t["token"] for t in printed["teams"]]


def test_creatematch_takes_a_random_field_or_a_field_file(tmp_path):
    match, _ = created("--board", "random:11")
    board, hints = random_field(11)
    assert match.board.data == board and match.agents == hints["agents"]
    assert match.turns == hints["turns"]
    field = tmp_path / "field.json"
    field.write_text(json.dumps(random_field(12)[0]))
    match, _ = created("--board", str(field), "--turns", "20")
    assert match.board.data == random_field(12)[0] and match.turns == 20
    field.write_text(json.dumps({**random_field(12)[0], "obstacles": [[99, 0]]}))
    assert refusal("creatematch", "--game", "procon2020", "--board", str(field), "--teams",
                   "A", "B").startswith(f"--board: {field}: board.obstacles[0]")


@pytest.mark.parametrize("bots", [("greedy", "random"), ("random", "greedy")])
def test_the_bots_play_a_whole_match_through_the_api(bots):
    match, tokens = created("--board", "random:4", "--turns", "12")
    rng = random.Random(1)
    for turn in range(1, match.turns + 1):
        shown = public_state(match, match.opens_at(turn))
        for team, bot in enumerate(bots):
            body = json.dumps({"actions": bots_for("procon2020")[bot](shown, team, rng),
                               "turn": turn}).encode()
            reply = submission_receive(Request(
                match.pk, f"Bearer {tokens[team]}", body, len(body), "application/json",
                "127.0.0.1", match.opens_at(turn) + timedelta(seconds=1)))
            assert reply.status == 202, reply.body
        turn_resolve(match_id=match.pk, number=turn)
        match.refresh_from_db()
    assert match.over and match.result["decided_by"] in ("total", "tile", "draw")
    assert match_verify(match).verified
    final = public_state(match)["state"]["scores"]
    greedy = bots.index("greedy")
    assert final[greedy]["tile"] > final[1 - greedy]["tile"]  # greedy tiles more
