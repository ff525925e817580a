"""The Procon 30 answer API (`/procon30/`) and the Vietnamese Procon 2020 one
(`/procon2020/`) over a Procon 2020 match: a client of mine written from their
documentation plays a whole game on a non-square field, with cells counted from 1;
every documented error; every request stored as sent and audited like a native one."""

import json
import random
from datetime import timedelta

import pytest

from matches.models import Match, Submission
from matches.rules.procon2020 import random_field
from matches.selectors import match_verify, public_state
from matches.services.transition import turn_resolve
from tests.commands.calls import run
from tests.dialects.procon_client import ProconClient

pytestmark = pytest.mark.django_db


def procon_match(tmp_path, turns: int = 6) -> tuple[Match, list[str]]:
    field = tmp_path / "field.json"
    field.write_text(json.dumps(random_field(6)[0]))  # 19 columns, 11 rows, 4 agents a team
    made = json.loads(run("creatematch", "--game", "procon2020", "--board", str(field),
                          "--teams", "Hà Nội", "Huế", "--turns", str(turns),
                          "--strategy-seconds", "5", "--transition-seconds", "1",
                          "--start-in", "10", "--json"))
    return Match.objects.get(pk=made["id"]), [team["token"] for team in made["teams"]]


@pytest.mark.parametrize("prefix,carry", [("procon30", "header"), ("procon2020", "query"),
                                          ("procon2020", "body")])
def test_a_client_of_the_official_api_plays_a_whole_game(client, clock, tmp_path, prefix,
                                                         carry):
    match, tokens = procon_match(tmp_path)
    second = Match.objects.get(first_game=match)
    players = [ProconClient(client, prefix, token, carry) for token in tokens]
    status, listed = players[0].get("matches")
    assert status == 200 and listed == [
        {"id": game.pk, "intervalMillis": 1000, "matchTo": "Huế", "teamID": 1,
         "turnMillis": 5000, "turns": 6} for game in (match, second)]
    assert players[1].get("ping") == (200, {"status": "OK"})
    early = {"startAtUnixTime": int(match.start_at.timestamp()), "status": "TooEarly"}
    assert players[0].get(f"matches/{match.pk}") == (400, early)
    assert players[0].action(match.pk, []) == (400, early)
    rng = random.Random(3)
    for turn in range(1, match.turns + 1):
        clock.time = match.opens_at(turn) + timedelta(seconds=1)
        for team, player in enumerate(players):
            status, state = player.get(f"matches/{match.pk}")
            assert status == 200 and state["turn"] == turn - 1
            sent = player.decide(state, team + 1, rng)
            status, accepted = player.action(match.pk, sent)
            assert (status, accepted) == (201, {"actions": [{**a, "turn": turn} for a in sent]})
        clock.time = match.opens_at(turn) + timedelta(seconds=5.5)  # the transition step
        assert players[0].action(match.pk, [])[1]["status"] == "UnacceptableTime"
        turn_resolve(match_id=match.pk, number=turn, now=clock.time)
    match.refresh_from_db()
    assert match.over and match_verify(match).verified
    # the final state as the dialect shows it is the native state, counted from 1
    status, state = players[1].get(f"matches/{match.pk}")
    native = public_state(match)
    assert status == 200 and (state["width"], state["height"]) == (19, 11)
    assert state["points"] == native["board"]["points"] and state["turn"] == 6
    assert state["tiled"] == [[{"A": 1, "B": 2}.get(cell, 0) for cell in row]
                              for row in native["state"]["cells"]]
    for team, shown in enumerate(state["teams"]):
        assert [(a["x"] - 1, a["y"] - 1) for a in shown["agents"]] == [
            tuple(cell) for cell in native["state"]["agents"][team]]
        assert [a["agentID"] for a in shown["agents"]] == [team * 4 + i for i in (1, 2, 3, 4)]
        score = native["state"]["scores"][team]
        assert (shown["tilePoint"], shown["areaPoint"]) == (score["tile"], score["area"])
    outcomes = [o for turn in native["actions"] for side in turn["outcomes"] for o in side]
    assert len(state["actions"]) == len(outcomes) > 0
    assert {a["apply"] for a in state["actions"]} <= {1, 0, -1}
    if prefix == "procon2020":
        board = match.board.data
        assert state["obstacles"] == [{"x": x + 1, "y": y + 1} for x, y in board["obstacles"]]
        assert [(t["x"] - 1, t["y"] - 1, t["point"]) for t in state["treasure"]] == [
            (t["x"], t["y"], t["point"]) for t in board["treasures"]]
        assert all(t["status"] in (0, 1) for t in state["treasure"])
    else:
        assert "treasure" not in state and "obstacles" not in state
    # every request kept as sent, marked with its dialect
    stored = Submission.objects.filter(match=match, team__index=0, status_code=202)
    assert stored.count() == 6 and {row.dialect for row in stored} == {prefix}
    assert all(json.loads(bytes(row.body))["actions"] for row in stored if row.actions)
    # the second game's field stays secret until its start
    assert players[0].get(f"matches/{second.pk}")[1]["status"] == "TooEarly"


def test_every_documented_error(client, clock, tmp_path):
    match, tokens = procon_match(tmp_path)
    other, _ = procon_match(tmp_path)
    player = ProconClient(client, "procon30", tokens[0])
    stranger = ProconClient(client, "procon30", "not-a-token")
    assert stranger.get("ping") == (401, {"status": "InvalidToken"})
    assert stranger.get("matches") == (401, {"status": "InvalidToken"})
    assert stranger.get(f"matches/{match.pk}") == (401, {"status": "InvalidToken"})
    assert stranger.action(match.pk, []) == (401, {"status": "InvalidToken"})
    assert player.get(f"matches/{other.pk}") == (400, {"status": "InvalidMatches"})
    assert player.get("matches/999999") == (400, {"status": "InvalidMatches"})
    assert player.action(other.pk, []) == (400, {"status": "InvalidMatches"})
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    # an ID of no agent of the team is accepted, and invalid at the transition as natively
    assert player.action(match.pk, [{"agentID": 5, "type": "move", "dx": 1, "dy": 0}])[0] == 201
    # the list alone, as some clients send it, is answered in kind
    alone = client.post(f"/procon30/matches/{match.pk}/action",
                        json.dumps([{"agentID": 2, "type": "stay", "dx": 0, "dy": 0}]),
                        content_type="application/json", HTTP_AUTHORIZATION=tokens[0])
    assert (alone.status_code, alone.json()) == (
        201, [{"agentID": 2, "dx": 0, "dy": 0, "type": "stay", "turn": 1}])
    status, refused = player.action(match.pk, [{"agentID": 0, "type": "move", "dx": 1,
                                                "dy": 0}])
    assert status == 400 and "agentID" in refused["detail"]
    status, refused = player.action(match.pk, [{"agentID": 1, "type": "jump", "dx": 1,
                                                "dy": 0}])
    assert status == 400 and refused["status"] == "InvalidActions"
    malformed = client.post(f"/procon30/matches/{match.pk}/action", b"{actions",
                            content_type="application/json", HTTP_AUTHORIZATION=tokens[0])
    assert malformed.status_code == 400 and malformed.json()["status"] == "InvalidActions"
    kept = Submission.objects.filter(match=match, team__index=0).order_by("id")
    assert [row.status_code for row in kept] == [202, 202, 400, 400, 400]
    assert Submission.objects.filter(match=other, team=None, status_code=403).count() == 1
    assert Submission.objects.filter(match=match, team=None, status_code=401).count() == 1
    assert bytes(kept.last().body) == b"{actions" and kept.last().dialect == "procon30"


@pytest.mark.django_db(transaction=True)
def test_the_dialect_over_real_http(live_server_process, tmp_path):
    """Through daphne, as a team's program meets it: the state, an action, its echo."""
    import time
    import urllib.request

    from django.utils import timezone

    match, tokens = procon_match(tmp_path)
    Match.objects.filter(pk=match.pk).update(start_at=timezone.now())

    def call(path: str, body: bytes | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"{live_server_process}/procon30/{path}", data=body,
            headers={"Authorization": tokens[1], "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    time.sleep(0.2)
    status, state = call(f"matches/{match.pk}")
    assert status == 200 and state["teams"][1]["agents"][0]["agentID"] == 5
    sent = {"agentID": 5, "type": "move", "dx": -1, "dy": 0}
    status, accepted = call(f"matches/{match.pk}/action",
                            json.dumps({"actions": [sent]}).encode())
    assert (status, accepted) == (201, {"actions": [{**sent, "turn": 1}]})
    assert Submission.objects.get(match=match, status_code=202).dialect == "procon30"


def test_a_huge_body_with_the_token_inside_is_stored_bounded_and_refused(client, clock, tmp_path):
    """The Vietnamese dialect looks for the token in the body: a huge body is read only
    to the size limit, and the request is stored and answered all the same."""
    match, tokens = procon_match(tmp_path)
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    huge = json.dumps({"token": tokens[0], "actions": [], "pad": "x" * 3_000_000})
    answer = client.post(f"/procon2020/matches/{match.pk}/action", huge,
                         content_type="application/json")
    assert answer.status_code in (401, 413)
    kept = Submission.objects.get(match=match)
    assert kept.body_size == len(huge) and len(bytes(kept.body)) <= 256
