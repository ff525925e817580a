"""The second game of a Procon 2020 match is played on a secret field: nothing of it —
its name, size, points, obstacles, treasures, start cells, its number of agents, nor
anything derived from them (the scores its start cells give, the replay's thresholds) —
is shown to anyone, strangers, the match's own teams and its judges alike, on any
surface, until its game's first strategy step opens. Then every surface shows it.

The secret field is made recognisable: a name, a size (17 × 11), point values (13, −13
next to each other), treasures (15), start cells (scores of 91) and an agent count (7)
that the first game's field (12 × 10, points 1..5, 2 agents) has nowhere."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from matches import selectors
from matches.live import messages
from matches.models import Match
from tests.api.conftest import Clock
from tests.commands.calls import refusal, run
from tests.live.clients import browser_socket

NAME = "qzxv-hidden-field"  # the secret field's board name (its file's stem)
WIDTH, HEIGHT, AGENTS = 17, 11, 7
SWING, CONFLICTS = 70, 7  # the replay's marks the secret field gives (computed below)


def _secret_point(x: int, y: int) -> int:
    return (13, -13, 14)[(x + y) % 3]


SECRET = {
    "width": WIDTH, "height": HEIGHT,
    "points": [[_secret_point(x, y) for x in range(WIDTH)] for y in range(HEIGHT)],
    "obstacles": [[8, 4], [8, 6]],
    "treasures": [{"x": 4, "y": 5, "point": 15}, {"x": 12, "y": 5, "point": 15}],
    # every start cell on a 13: each team's tile points are 7 × 13 = 91
    "start": [[[0, 0], [3, 0], [6, 0], [9, 0], [12, 0], [15, 0], [1, 2]],
              [[2, 10], [5, 10], [8, 10], [11, 10], [14, 10], [3, 9], [6, 9]]],
}
PLAIN = {
    "width": 12, "height": 10,
    "points": [[(x * y) % 5 + 1 for x in range(12)] for y in range(10)],
    "obstacles": [[5, 5], [6, 4]],
    "treasures": [{"x": 3, "y": 3, "point": 8}, {"x": 8, "y": 6, "point": 8}],
    "start": [[[0, 0], [1, 0]], [[11, 9], [10, 9]]],
}


def _compact(data) -> str:
    return json.dumps(data, separators=(",", ":"))


# What of the secret field a text may show, each as patterns looked for in the text with
# its HTML entities read and its white space taken out.
SIGNS = {
    "name": [re.escape(NAME)],
    "size": [r'"width":17\b', r'"height":11\b', r"\b17[×x]11\b"],
    "points": [r"13,-13,14", r"-13,14,13", r"14,13,-13"],
    "agents": [r'"agents":7\b', r"\b7agents"],
    "start": [re.escape(_compact(SECRET["start"][0])), re.escape(_compact(SECRET["start"][1]))],
    "obstacles": [re.escape(_compact(SECRET["obstacles"]))],
    "treasures": [r'"point":15\b'],
    "scores": [r'"(tile|total)":91\b', r"\[91,91\]", r",91,"],
    "marks": [rf'"swing":{SWING}\b', rf"≥{SWING}\b", rf'"conflicts":{CONFLICTS}\b',
              rf"≥{CONFLICTS}\b"],
}


def leaks(text: str) -> list[str]:
    """Which signs of the secret field a text shows ([] for none)."""
    flat = re.sub(r"\s+", "", html.unescape(text))
    return [sign for sign, patterns in SIGNS.items()
            if any(re.search(pattern, flat) for pattern in patterns)]


IDENTITIES = ("id", "ids")  # rows' ids, which depend on what the test database made before


def numbers(data) -> set:
    """Every number in a JSON value but the rows' ids (a series' `ids` held 70, the
    replay's swing, once the test process had made 69 matches before)."""
    if isinstance(data, dict):
        kept = [value for key, value in data.items() if key not in IDENTITIES]
        return set().union(*map(numbers, kept)) if kept else set()
    if isinstance(data, list):
        return set().union(*map(numbers, data)) if data else set()
    return {data} if isinstance(data, int | float) and not isinstance(data, bool) else set()


def assert_veiled(state: dict) -> None:
    """A state with nothing of its board: no cells, no agents, every score part 0."""
    assert state["cells"] == [] and state["agents"] == [[], []], state
    assert all(set(score.values()) == {0} for score in state["scores"]), state


def replay_json(page: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>',
                      page, re.S)
    return json.loads(found.group(1))


# --- the match ----------------------------------------------------------------------

@pytest.fixture
def clock(monkeypatch):
    """Every part of the server reads this time; the test moves it."""
    held = Clock(timezone.now())
    monkeypatch.setattr("django.utils.timezone.now", held.now)
    return held


def two_games(tmp_path, public: bool) -> tuple[Match, Match, list[str]]:
    secret, plain = tmp_path / f"{NAME}.json", tmp_path / "plain-field.json"
    secret.write_text(json.dumps(SECRET))
    plain.write_text(json.dumps(PLAIN))
    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", str(plain),
                             "--secret-board", str(secret), "--teams", "Hà Nội", "Huế",
                             "--turns", "4", "--strategy-seconds", "60", "--start-in", "0",
                             "--between", "30", "--json", *(["--public"] if public else [])))
    first, second = (Match.objects.get(pk=pk) for pk in printed["games"])
    return first, second, [team["token"] for team in printed["teams"]]


def judge_client() -> Client:
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    judged = Client()
    judged.force_login(judge)
    return judged


def test_the_fields_are_told_apart(tmp_path, clock, db):
    """The signs looked for are the secret field's and not the first game's."""
    first, second, _ = two_games(tmp_path, public=True)
    assert (second.board.name, second.agents, second.secret_board) == (NAME, AGENTS, True)
    assert (first.agents, first.secret_board) == (2, False)
    assert leaks(json.dumps(selectors.public_state(first))) == []
    clock.time = second.start_at
    assert selectors.swing_threshold(second) == SWING
    assert selectors.conflict_threshold(second) == CONFLICTS
    assert set(leaks(json.dumps(selectors.public_state(second)))) == set(SIGNS) - {"marks"}


# --- every surface, read by everyone ------------------------------------------------

def surfaces(client: Client, first: Match, second: Match, **headers) -> dict[str, tuple]:
    """Every HTTP surface that may show the second game (or speak of it), read by one
    visitor: each as (status, text)."""
    m, f = second.pk, first.pk
    paths = [
        # the native API
        "/api/matches", f"/api/matches/{m}", f"/api/matches/{m}/record",
        f"/api/matches/{m}/timeline", f"/api/matches/{m}/actions", f"/api/matches/{f}",
        # the dialects that serve Procon 2020
        *(f"/{dialect}/{route}" for dialect in ("procon2020", "procon30")
          for route in ("ping", "matches", f"matches/{m}", f"matches/{f}")),
        f"/procon2020/matches/{m}?token={headers.get('HTTP_AUTHORIZATION', '')[7:]}",
        # the Kakomimasu dialects (which serve no Procon 2020 match)
        "/v1/matches", f"/v1/matches/{m}", "/v1/boards", "/procon31/matches",
        f"/procon31/matches/{m}",
        # the pages
        "/", "/matches/", f"/matches/?board={NAME[:4]}", f"/matches/{m}/",
        f"/matches/{m}/replay", f"/matches/{m}/embed", f"/matches/{m}/embed?turn=0",
        f"/matches/{m}/play", f"/screens/?matches={f},{m}", "/tv/", "/tv/now",
        f"/tv/now?current={m}", f"/matches/{f}/", f"/matches/{f}/replay",
        f"/matches/{m}/scores.csv",
        # the pictures
        f"/matches/{m}/board.png", f"/matches/{m}/board.png?turn=0",
        # the judges'
        f"/matches/{m}/audit", f"/matches/{m}/audit?verify=1",
        f"/matches/{m}/audit/submissions.csv", f"/matches/{m}/audit/submissions.json",
        f"/matches/{f}/audit",
        # the admin (the organisers' staff accounts; a judge's is not one)
        "/admin/matches/board/", f"/admin/matches/match/{m}/change/",
    ]
    seen = {}
    for path in paths:
        answer = client.get(path, **headers)
        body = answer.content
        seen[path] = (answer.status_code,
                      "<png>" if body.startswith(b"\x89PNG") else body.decode())
    # a team's actions, natively and in both dialects, for agent 6 (which only 7 agents
    # have) and with an agent ID past what 2 agents a team would give
    seen["POST native"] = _answer(client.post(
        f"/api/matches/{m}/actions", {"actions": [{"agent": 6, "type": "stay"}]},
        content_type="application/json", **headers))
    for dialect in ("procon2020", "procon30"):
        seen[f"POST {dialect}"] = _answer(client.post(
            f"/{dialect}/matches/{m}/action",
            {"actions": [{"agentID": 14, "type": "move", "dx": 1, "dy": 0}]},
            content_type="application/json", **{
                key: value[7:] for key, value in headers.items()}))
    return seen


def _answer(answer) -> tuple[int, str]:
    return answer.status_code, answer.content.decode()


def visitors(tokens: list[str]) -> dict[str, tuple[Client, dict]]:
    return {"stranger": (Client(), {}),
            "team": (Client(), {"HTTP_AUTHORIZATION": f"Bearer {tokens[1]}"}),
            "judge": (judge_client(), {})}


@pytest.mark.parametrize("public", [True, False], ids=["public", "private"])
def test_no_surface_shows_the_secret_field_to_anyone_before_its_start(
        tmp_path, clock, db, public):
    first, second, tokens = two_games(tmp_path, public)
    clock.time = second.start_at - timedelta(seconds=1)  # the first game's turns all past
    everyone = visitors(tokens)
    for who, (client, headers) in everyone.items():
        seen = surfaces(client, first, second, **headers)
        for path, (status, text) in seen.items():
            assert leaks(text) == [], (who, path, status, leaks(text))
            assert status < 500, (who, path, status)
        m = second.pk
        if who == "judge":  # a judge reads every page of it, the audit's included
            for path in (f"/matches/{m}/", f"/matches/{m}/replay", f"/matches/{m}/embed",
                         f"/matches/{m}/audit", f"/matches/{m}/audit?verify=1",
                         f"/matches/{m}/audit/submissions.csv",
                         f"/matches/{m}/audit/submissions.json", f"/matches/{m}/scores.csv",
                         f"/api/matches/{m}/timeline"):
                assert seen[path][0] == 200, path
        # the API says the board is secret, its agents unknown, its state empty
        status, text = seen[f"/api/matches/{m}"]
        if public or who != "stranger":
            shown = json.loads(text)
            assert shown["board"] == {"name": "secret field", "secret": True}
            assert shown["agents"] is None and "agents" in shown
            assert_veiled(shown["state"]) and shown["actions"] == []
            assert not numbers(shown) & {91, -13, 15, SWING}
            listed = {line["id"]: line for line in json.loads(seen["/api/matches"][1])}
            assert listed[m]["board"] == "secret field" and listed[m]["headline"] == [0, 0]
            assert all(set(score.values()) == {0} for score in listed[m]["scores"])
        else:
            assert status == 404
        # the replay's data and its marks derive nothing from the secret field
        status, page = seen[f"/matches/{m}/replay"]
        if status == 200:
            data = replay_json(page)
            assert data["board"] == {"name": "secret field", "secret": True}
            assert data["agents"] is None and data["marks"] == {
                "swing": selectors.SWING_AT_LEAST, "conflicts": 2}
            assert [state["turn"] for state in data["states"]] == [0]
            assert_veiled(data["states"][0])
        # the picture is a 404 for everyone who may see the match at all
        assert seen[f"/matches/{m}/board.png"][0] == 404
        assert seen[f"/matches/{m}/board.png?turn=0"][0] == 404
        # the dialects: too early for the team's program, nothing for anyone else
        for dialect in ("procon2020", "procon30"):
            status, text = seen[f"/{dialect}/matches/{m}"]
            assert (status, json.loads(text)["status"]) == (
                (400, "TooEarly") if who == "team" else (401, "InvalidToken"))
            status, text = seen[f"POST {dialect}"]
            assert status == (400 if who == "team" else 401) and "agent" not in text.lower(), (
                dialect, text)
        assert seen["POST native"][0] in ((409,) if who == "team" else (401,)), seen[
            "POST native"]
    # the judges: the record is refused; the timeline holds the empty board, veiled;
    # the audit names the secret field, and its Verify agrees with the stored turns
    judged = everyone["judge"][0]
    assert judged.get(f"/api/matches/{second.pk}/record").status_code == 404
    timeline = judged.get(f"/api/matches/{second.pk}/timeline").json()
    assert len(timeline["states"]) == 1
    assert_veiled(timeline["states"][0])
    audit = judged.get(f"/matches/{second.pk}/audit?verify=1").content.decode()
    assert "secret field" in audit and "Differs" not in audit and "Verified" in audit
    scores = judged.get(f"/matches/{second.pk}/scores.csv").content.decode().splitlines()
    assert len(scores) == 2 and set(scores[1].split(",")) == {"0"}  # turn 0, every part 0
    # the record's export (manage.py exportrecord) is refused until the start
    assert refusal("exportrecord", str(second.pk)) == (
        f"match {second.pk}: its board is secret until its game starts")
    assert leaks(run("exportrecord", str(first.pk))) == []


def test_every_surface_shows_the_field_once_its_game_starts(tmp_path, clock, db):
    """What the test above looks for does show, once the first strategy step opens."""
    first, second, tokens = two_games(tmp_path, public=True)
    clock.time = second.start_at + timedelta(seconds=1)
    m = second.pk
    everyone = visitors(tokens)
    for who, (client, headers) in everyone.items():
        seen = surfaces(client, first, second, **headers)
        shown = json.loads(seen[f"/api/matches/{m}"][1])
        assert shown["agents"] == AGENTS and shown["board"]["points"] == SECRET["points"]
        assert set(leaks(seen[f"/api/matches/{m}"][1])) >= {"name", "size", "points", "agents",
                                                             "start", "scores"}
        assert "name" in leaks(seen["/api/matches"][1])
        replay = seen[f"/matches/{m}/replay"][1]
        assert replay_json(replay)["marks"] == {"swing": SWING, "conflicts": CONFLICTS}
        assert {"name", "points", "marks", "scores"} <= set(leaks(replay))
        assert {"name", "points"} <= set(leaks(seen[f"/matches/{m}/embed?turn=0"][1]))
        assert seen[f"/matches/{m}/board.png"] == (200, "<png>")
        if who == "team":
            for dialect in ("procon2020", "procon30"):
                state = json.loads(seen[f"/{dialect}/matches/{m}"][1])
                assert (state["width"], state["height"]) == (WIDTH, HEIGHT)
                assert {"size", "points"} <= set(leaks(seen[f"/{dialect}/matches/{m}"][1]))
            assert "treasures" in leaks(seen[f"/procon2020/matches/{m}"][1])
            assert seen["POST procon2020"][0] == 201
    judged = everyone["judge"][0]
    assert "name" in leaks(judged.get(f"/matches/{m}/audit").content.decode())
    assert judged.get(f"/api/matches/{m}/record").json()["board"] == SECRET
    assert "scores" in leaks(judged.get(f"/api/matches/{m}/timeline").content.decode())
    assert "scores" in leaks(judged.get(f"/matches/{m}/scores.csv").content.decode())
    assert json.loads(run("exportrecord", str(m)))["board"] == SECRET


# --- the live messages --------------------------------------------------------------

def test_the_socket_messages_show_nothing_of_it_before_its_start(tmp_path, clock, db):
    first, second, _ = two_games(tmp_path, public=True)
    clock.time = second.start_at - timedelta(seconds=1)
    now = timezone.now()
    snapshot = messages.snapshot(Match.objects.get(pk=second.pk))
    assert leaks(json.dumps(snapshot)) == []
    assert snapshot["match"]["board"] == {"name": "secret field", "secret": True}
    assert snapshot["match"]["agents"] is None
    assert_veiled(snapshot["state"])
    assert [entry["turn"] for entry in snapshot["history"]] == [0]
    assert all(set(s.values()) == {0} for s in snapshot["history"][0]["scores"])
    assert "treasures_taken" not in snapshot
    listed = messages.matches([selectors.match_summary(game, now)
                               for game in (first, second)], now)
    assert leaks(json.dumps(listed)) == []
    assert leaks(json.dumps(messages.summary(second, now))) == []
    assert leaks(json.dumps(messages.snapshot(Match.objects.get(pk=first.pk)))) == []

    clock.time = second.start_at
    opened = messages.snapshot(Match.objects.get(pk=second.pk))
    assert opened["match"]["agents"] == AGENTS
    assert {"name", "points", "start", "scores"} <= set(leaks(json.dumps(opened)))
    assert "name" in leaks(json.dumps(messages.summary(second, timezone.now())))


@sync_to_async
def _made(tmp_path) -> tuple[Match, Match, list[str], bytes]:
    first, second, tokens = two_games(tmp_path, public=False)
    judged = judge_client()
    return first, second, tokens, f"sessionid={judged.cookies['sessionid'].value}".encode()


async def _heard(path: str, **who) -> str:
    """The first message a socket hears, as text."""
    communicator = browser_socket(path, **who)
    connected, _ = await communicator.connect()
    assert connected
    try:
        return json.dumps(await communicator.receive_json_from(timeout=5))
    finally:
        await communicator.disconnect()


@pytest.fixture
async def worker_connections_closed():
    """The consumers' database work runs on a worker thread: its connection is closed
    after the test."""
    yield
    from django.db import connections

    await sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("worker_connections_closed")
async def test_the_sockets_tell_its_teams_and_judges_nothing_of_it_before_its_start(
        tmp_path, clock):
    first, second, tokens, judge_cookie = await _made(tmp_path)
    clock.time = second.start_at - timedelta(seconds=1)
    for who in ({"token": tokens[0]}, {"cookie": judge_cookie}):
        for path in (f"/ws/matches/{second.pk}/", f"/ws/matches/{first.pk}/", "/ws/matches/"):
            heard = await _heard(path, **who)
            assert leaks(heard) == [], (who, path, leaks(heard))
        snapshot = json.loads(await _heard(f"/ws/matches/{second.pk}/", **who))
        assert snapshot["type"] == "snapshot" and snapshot["match"]["agents"] is None
    clock.time = second.start_at
    opened = await _heard(f"/ws/matches/{second.pk}/", token=tokens[0])
    assert {"name", "points", "start"} <= set(leaks(opened))
