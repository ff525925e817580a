"""The Procon 31 answer API (`/procon31/`) over a Kakomimasu match: a client of mine
written from its documentation plays a whole game on a non-square board, cells from 1
and (0, 0) for an agent not on the field; 425 with Retry-After before the start;
x-request-id on every answer; the errors; every request stored as sent."""

import json
import math
import random
from datetime import timedelta

import pytest

from matches.models import Submission
from matches.selectors import match_verify, public_state
from matches.services.transition import turn_resolve
from tests.dialects.test_kakomimasu_v1 import kakomimasu_match

pytestmark = pytest.mark.django_db


class Procon31Client:
    """From docs/dialects.md: the token in x-api-token; cells from 1."""

    def __init__(self, http, token: str) -> None:
        self.http, self.token = http, token

    def get(self, path: str):
        answer = self.http.get(f"/procon31/{path}", HTTP_X_API_TOKEN=self.token,
                               HTTP_X_REQUEST_ID=f"req-{path}")
        assert answer["x-request-id"] == f"req-{path}"
        return answer

    def act(self, match_id: int, actions: list) -> tuple[int, dict]:
        """The actions as a list, as the official API takes them."""
        answer = self.http.post(f"/procon31/matches/{match_id}/action", json.dumps(actions),
                                content_type="application/json", HTTP_X_API_TOKEN=self.token)
        assert answer["x-request-id"]
        return answer.status_code, answer.json()

    def decide(self, state: dict, team_id: int, rng: random.Random) -> list[dict]:
        width, height = state["width"], state["height"]
        taken = {(a["x"], a["y"]) for t in state["teams"] for a in t["agents"]}
        mine = next(t for t in state["teams"] if t["teamID"] == team_id)
        actions = []
        for agent in mine["agents"]:
            if agent["x"] == 0:
                free = [(x, y) for y in range(1, height + 1) for x in range(1, width + 1)
                        if state["walls"][y - 1][x - 1] == 0 and (x, y) not in taken]
                x, y = rng.choice(free)
                taken.add((x, y))
                actions.append({"agentID": agent["agentID"], "type": "put", "x": x, "y": y})
                continue
            x = min(width, max(1, agent["x"] + rng.choice((-1, 0, 1))))
            y = min(height, max(1, agent["y"] + rng.choice((-1, 0, 1))))
            wall = state["walls"][y - 1][x - 1]
            kind = "remove" if wall not in (0, team_id) else "move"
            actions.append({"agentID": agent["agentID"], "type": kind, "x": x, "y": y})
        return actions


def test_a_client_of_the_procon31_api_plays_a_whole_game(client, clock, tmp_path):
    match, tokens = kakomimasu_match(tmp_path)
    players = [Procon31Client(client, token) for token in tokens]
    ids = [player.get("teams/me").json()["teamID"] for player in players]
    assert len(set(ids)) == 2 and all(0 < team_id <= 2 ** 28 for team_id in ids)
    assert players[1].get("teams/me").json() == {"teamID": ids[1], "name": "Kushiro"}
    assert players[1].get("matches").json() == [
        {"matchID": match.pk, "teams": [{"teamID": ids[1], "name": "Kushiro"},
                                        {"teamID": ids[0], "name": "Nara"}],
         "turns": 6, "operationMillis": 5000, "transitionMillis": 1000}]
    assert players[1].get(f"teams/{ids[1]}/matches").json() == {  # as the official API
        "matches": players[1].get("matches").json()}
    assert players[1].get(f"teams/{ids[0]}/matches").status_code == 403
    early = players[0].get(f"matches/{match.pk}")
    wait = (match.start_at - clock.time).total_seconds()  # 10 s, to the whole second after
    assert early.status_code == 425 and early["Retry-After"] == str(math.ceil(wait))
    assert 10 <= wait < 11 and match.start_at.microsecond == 0
    assert early.json()["startAtUnixTime"] == match.start_at.timestamp()
    assert early.json()["status"] == "TooEarly"
    rng = random.Random(8)
    for turn in range(1, match.turns + 1):
        clock.time = match.opens_at(turn) + timedelta(seconds=1)
        for team, player in enumerate(players):
            state = player.get(f"matches/{match.pk}").json()
            assert state["turn"] == turn - 1
            sent = player.decide(state, ids[team], rng)
            status, accepted = player.act(match.pk, sent)
            assert (status, accepted) == (202, [{**action, "turn": turn} for action in sent])
        clock.time = match.deadline(turn) + timedelta(seconds=0.5)
        assert players[0].act(match.pk, [])[1]["status"] == "UnacceptableTime"
        turn_resolve(match_id=match.pk, number=turn, now=clock.time)
    match.refresh_from_db()
    assert match.over and match_verify(match).verified
    state = players[0].get(f"matches/{match.pk}").json()
    native = public_state(match)["state"]
    owner = {"A": (ids[0], 0), "B": (ids[1], 0), "a": (0, ids[0]), "b": (0, ids[1]),
             ".": (0, 0)}
    assert (state["width"], state["height"]) == (9, 6)
    assert [team["agent"] for team in state["teams"]] == [3, 3]
    assert state["walls"] == [[owner[c][0] for c in row] for row in native["cells"]]
    assert state["areas"] == [[owner[c][1] for c in row] for row in native["cells"]]
    for team, shown in enumerate(state["teams"]):
        assert [(a["x"], a["y"]) for a in shown["agents"]] == [
            (cell[0] + 1, cell[1] + 1) if cell else (0, 0) for cell in native["agents"][team]]
        assert shown["wallPoint"] == native["scores"][team]["wall"]
    stored = Submission.objects.filter(match=match, status_code=202)
    assert stored.count() == 12 and {row.dialect for row in stored} == {"procon31"}


def test_the_errors(client, clock, tmp_path):
    match, tokens = kakomimasu_match(tmp_path)
    player, stranger = Procon31Client(client, tokens[0]), Procon31Client(client, "nope")
    assert stranger.get("teams/me").status_code == 401
    assert stranger.act(match.pk, [])[0] == 401
    assert player.get("matches/999999").status_code == 404
    assert player.act(match.pk, [])[0] == 425  # before the start
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    status, refused = player.act(match.pk, [{"agentID": 1, "type": "put", "x": 0, "y": 2}])
    assert status == 422 and "x" in refused["detail"]  # not the request's format
    status, refused = player.act(match.pk, [{"agentID": 4, "type": "put", "x": 1, "y": 2}])
    assert status == 202  # an ID of no agent of the team: invalid at the transition
    kept = Submission.objects.filter(match=match, team__index=0).order_by("id")
    assert [row.status_code for row in kept] == [409, 400, 202]
    assert {row.dialect for row in kept} == {"procon31"}


def test_more_actions_than_the_native_api_takes_are_refused(client, clock, tmp_path):
    """2,000 actions in one request: refused as natively (at most 256), stored."""
    match, tokens = kakomimasu_match(tmp_path)
    player = Procon31Client(client, tokens[0])
    clock.time = match.opens_at(1) + timedelta(seconds=1)
    status, refused = player.act(match.pk, [{"agentID": 1, "type": "stay"}] * 2000)
    assert status == 422 and "at most 256 actions" in json.dumps(refused)
    assert Submission.objects.get().error == "invalid_actions"


def test_a_tournament_teams_teamid_is_the_same_in_every_match_whichever_side_it_plays(
        client, clock):
    """The official API's meaning: a program reads its teamID from teams/me once and
    finds its side of each match by it, team A in one match and team B in the next."""
    from matches.models import Match, Team
    from matches.tournaments.runner import tournaments_tick
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create

    created = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="round-robin", start_at=clock.now(),
        teams=[EntrantSpec(name) for name in ("Nara", "Hanoi", "Osaka", "Hue")],
        boards=["A-1"], turns=3))
    tournaments_tick(clock.now())
    clock.advance(10)
    sides = set()
    for seed, token in enumerate(created.tokens):
        player = Procon31Client(client, token)
        me = player.get("teams/me").json()
        listed = player.get("matches").json()
        assert listed and me["name"] == created.tournament.entrants.get(index=seed).name
        for entry in listed:
            assert entry["teams"][0]["teamID"] == me["teamID"]
            state = player.get(f"matches/{entry['matchID']}").json()
            side = Team.objects.get(match_id=entry["matchID"], entrant__index=seed).index
            assert state["teams"][side]["teamID"] == me["teamID"]  # A or B, the same id
            sides.add(side)
        assert Match.objects.filter(teams__entrant__index=seed).exists()
    assert sides == {0, 1}
