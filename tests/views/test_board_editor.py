"""The board editors (docs/boards.md): a judge makes a board of each game in the
editor (checked by the rules at every change), saves it by name, and that name plays
in every way of making a match; each saved board exports as its contest's own file,
and such a file imports back to the same board."""

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from matches.boards.saved import board_from_file, saved_board, saved_path
from matches.models import Match
from matches.protocol_servers.chaser.maps import board_problem, map_path, map_read
from matches.rules import rules_for
from matches.rules.chaser import random_map, reachable

pytestmark = pytest.mark.django_db
GAMES = ("kakomimasu", "procon2020", "chaser")


@pytest.fixture(autouse=True)
def _boards_kept_apart(settings, tmp_path):
    settings.VAR_DIR = tmp_path


def post(client, path, body):
    return client.post(path, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("game", GAMES)
def test_a_board_made_in_the_editor_is_saved_and_exported_in_its_contests_format(
        judge_client, game):
    random = judge_client.get(f"/control/boards/{game}/random?seed=4").json()
    assert random["notes"][0].startswith("Symmetric")
    board = random["board"]
    checked = post(judge_client, f"/control/boards/{game}/check", {"board": board})
    assert checked.status_code == 200 and checked.json()["state"]["turn"] == 0
    saved = post(judge_client, f"/control/boards/{game}/save",
                 {"name": "kosen-2026", "board": board, **random["hints"]})
    assert saved.status_code == 200 and saved.json()["name"] == "kosen-2026"
    assert saved_board(game, "kosen-2026")[0] == board
    exported = judge_client.get(saved.json()["file"])
    content = b"".join(exported.streaming_content) if exported.streaming else exported.content
    name = exported["Content-Disposition"].rsplit("'", 1)[1]
    if game == "chaser":
        assert name == "kosen-2026.map" and content.startswith(b"N:kosen-2026\r\nT:")
    elif game == "kakomimasu":  # the public boards' file: {name: {..., points flat}}
        entry = json.loads(content)["kosen-2026"]
        assert len(entry["points"]) == board["width"] * board["height"]
    else:  # the Procon field: points in rows, obstacles, treasures and start cells
        assert set(json.loads(content)) >= {"points", "obstacles", "treasures", "start"}
    assert board_from_file(game, content, name)[0] == board
    page = judge_client.get("/control/boards/").content.decode()
    assert "kosen-2026" in page
    editor = judge_client.get(f"/control/boards/{game}/edit?name=kosen-2026")
    assert editor.status_code == 200 and "editor-start" in editor.content.decode()


@pytest.mark.parametrize("game", ("kakomimasu", "procon2020"))
def test_a_saved_board_plays_by_its_name_from_the_command_the_room_and_practice(
        judge_client, client, game, settings):
    board, hints = rules_for(game).random_board(9)
    post(judge_client, f"/control/boards/{game}/save", {"name": "final", "board": board,
                                                         "agents": hints.get("agents")})
    out = io.StringIO()
    call_command("creatematch", "--game", game, "--board", "final", "--teams", "A", "B",
                 "--json", stdout=out)
    match = Match.objects.get(pk=json.loads(out.getvalue())["id"])
    assert match.board.data == board and match.board.name == "final"
    made = judge_client.post("/control/new-match", {
        "game": game, "board": "final", "team_a": "Nara", "team_b": "Hanoi", "start_in": 30})
    assert made.status_code == 200, made.content.decode()[-500:]
    assert Match.objects.filter(board__name="final").count() == 2
    settings.PRACTICE = "open"
    judge_client.post(f"/control/boards/{game}/final/public", {"public": "1"})
    started = client.post("/api/practice", json.dumps({"game": game, "opponent": "level-1",
                                                       "board": "final"}),
                          content_type="application/json")
    assert started.status_code == 201, started.content
    assert Match.objects.get(pk=started.json()["match"]).board.data == board


def practise_on(client, name):
    return client.post("/api/practice", json.dumps({"game": "kakomimasu", "board": name,
                                                    "opponent": "level-1"}),
                       content_type="application/json")


def test_a_saved_board_is_the_judges_alone_until_they_make_it_public(
        judge_client, client, settings):
    settings.PRACTICE = "open"
    board, hints = rules_for("kakomimasu").random_board(4)
    post(judge_client, "/control/boards/kakomimasu/save", {"name": "Final-day-2",
                                                           "board": board, "agents": 4})
    refused = practise_on(client, "Final-day-2")
    known = refused.json()["detail"].split("; got")[0]  # (it says what it was asked)
    assert refused.status_code == 400 and "A-1" in known and "Final-day-2" not in known
    assert "Final-day-2" not in practise_on(client, "no-such-board").content.decode()
    listed = client.get("/v1/boards").json()
    assert "Final-day-2" not in {each["name"] for each in listed} and "A-1" in {
        each["name"] for each in listed}
    assert "Final-day-2" not in client.get("/practice/").content.decode()
    page = judge_client.get("/control/boards/").content.decode()
    assert "Final-day-2" in page and "make public" in page

    judge_client.post("/control/boards/kakomimasu/Final-day-2/public", {"public": "1"})
    assert practise_on(client, "Final-day-2").status_code == 201
    shown = {each["name"]: each for each in client.get("/v1/boards").json()}
    assert shown["Final-day-2"]["points"] == [v for row in board["points"] for v in row]
    assert shown["Final-day-2"]["nAgent"] == 4
    assert "Final-day-2" in client.get("/practice/").content.decode()

    judge_client.post("/control/boards/kakomimasu/Final-day-2/public", {"public": "0"})
    assert practise_on(client, "Final-day-2").status_code == 400
    assert "Final-day-2" not in {each["name"] for each in client.get("/v1/boards").json()}
    assert Client().post("/control/boards/kakomimasu/Final-day-2/public",
                         {"public": "1"}).status_code == 302  # judges only: to the login page
    assert practise_on(client, "Final-day-2").status_code == 400


def test_the_boards_list_leaves_out_boards_sent_for_matches(client, settings):
    settings.PRACTICE = "open"
    before = client.get("/v1/boards").content
    board = rules_for("kakomimasu").random_board(5)[0]
    sent = client.post("/api/practice", json.dumps({
        "game": "kakomimasu", "opponent": "level-1", "board": {
            "width": board["width"], "height": board["height"],
            "points": [v for row in board["points"] for v in row]}}),
        content_type="application/json")
    assert sent.status_code == 201, sent.content
    call_command("creatematch", "--board", "random:7", "--teams", "A", "B", stdout=io.StringIO())
    assert client.get("/v1/boards").content == before


def test_a_saved_map_is_played_by_the_chaser_server_by_its_name(judge_client):
    board = random_map(3)
    post(judge_client, "/control/boards/chaser/save", {"name": "cup-final", "board": board,
                                                        "turns": 150})
    assert board_problem("cup-final") == ""
    record = map_read(map_path("cup-final"))
    assert record["board"] == board and record["turns"] == 150
    assert "cup-final" in board_problem("no-such-map")  # named among the maps there are


def test_files_from_elsewhere_import_as_they_are(judge_client):
    from matches.boards.specs import HERE
    shipped = (HERE / "chaser" / "akisato_m01.map").read_bytes()
    upload = io.BytesIO(shipped)
    upload.name = "akisato_m01.map"
    answer = judge_client.post("/control/boards/import", {
        "game": "chaser", "name": "", "file": upload}, follow=True)
    assert "akisato_m01 is a board the project ships" in answer.content.decode()
    upload = io.BytesIO(shipped)
    upload.name = "akisato_m01.map"
    judge_client.post("/control/boards/import", {"game": "chaser", "name": "m01-copy",
                                                 "file": upload})
    assert map_read(map_path("m01-copy"))["board"] == map_read(map_path("akisato_m01"))["board"]
    public = json.loads((HERE / "kakomimasu-boards.json").read_text())
    upload = io.BytesIO(json.dumps({"A-1": public["A-1"]}).encode())
    upload.name = "A-1.json"
    answer = judge_client.post("/control/boards/import", {
        "game": "kakomimasu", "name": "a1-copy", "file": upload}, follow=True)
    assert "Board a1-copy is saved" in answer.content.decode()
    assert saved_board("kakomimasu", "a1-copy")[1]["agents"] == public["A-1"]["nAgent"]


@pytest.mark.parametrize(("name", "words"), [
    ("../escape", "a name is 1 to 40"), ("random-7", "names starting with random"),
    ("A-1", "a board the project ships"), ("", "a name is 1 to 40"),
    ("x" * 41, "a name is 1 to 40")])
def test_names_that_would_mislead_or_escape_are_refused(judge_client, name, words):
    board, _ = rules_for("kakomimasu").random_board(1)
    answer = post(judge_client, "/control/boards/kakomimasu/save", {"name": name, "board": board})
    assert answer.status_code == 400 and words in answer.json()["error"]
    assert saved_path("kakomimasu", name) is None


def test_a_board_the_rules_refuse_is_said_so_and_not_saved(judge_client):
    board = random_map(2)
    x, y = board["start"][0]
    board["cells"][y] = board["cells"][y][:x] + "#" + board["cells"][y][x + 1:]
    for path in ("check", "save"):
        answer = post(judge_client, f"/control/boards/chaser/{path}",
                      {"name": "bad", "board": board})
        assert answer.status_code == 400 and "is a block" in answer.json()["error"]
    for body in ("[1, 2]", '{"board": "x"}', '{"board": {"width": -1}}', "{bad"):
        answer = judge_client.post("/control/boards/procon2020/check", body,
                                   content_type="application/json")
        assert answer.status_code == 400 and answer.json()["error"]
    assert saved_path("chaser", "bad") is None


def test_an_unfair_map_is_said_to_be_unfair(judge_client):
    board = {"width": 5, "height": 3, "cells": [".*#*.", "..#..", ".*#*."],
             "start": [[0, 1], [4, 1]]}
    notes = post(judge_client, "/control/boards/chaser/check", {"board": board}).json()["notes"]
    assert notes[0] == "Symmetric: left to right, turned half round its centre."
    assert "Cool can reach 2 of 4 items, Hot 2." in notes
    assert any(note.startswith("Unfair") for note in notes)


def test_random_maps_are_fair(judge_client):
    for seed in range(40):
        board = random_map(seed)
        width, height = board["width"], board["height"]
        cool, hot = board["start"]
        assert hot == [width - 1 - cool[0], height - 1 - cool[1]]
        assert all(board["cells"][y][x] == board["cells"][height - 1 - y][width - 1 - x]
                   for y in range(height) for x in range(width))
        reach = reachable(board, cool)
        assert tuple(hot) in reach
        items = {(x, y) for y, row in enumerate(board["cells"]) for x, c in enumerate(row)
                 if c == "*"}
        assert items and items <= reach


def test_the_editors_are_for_judges_only(client):
    assert client.get("/control/boards/").status_code == 302
    assert client.post("/control/boards/chaser/save", "{}",
                       content_type="application/json").status_code == 302
    assert client.get("/control/boards/blokus-duo/edit").status_code == 302


def test_a_game_on_one_board_has_no_editor(judge_client):
    assert judge_client.get("/control/boards/blokus-duo/edit").status_code == 404
    assert judge_client.get("/control/boards/nonsense/edit").status_code == 404
