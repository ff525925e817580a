"""Importing a match record from the Django admin: the importrecord command's service."""

import html
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from matches.models import Board, Match, Submission
from matches.rules.records import RecordError, parse_record
from matches.selectors import match_export
from tests.factories import record_json

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
IMPORT = "/admin/matches/match/import/"


def staff(client, *permissions, username="ada"):
    user = User.objects.create_user(username, password="pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=permissions))
    client.login(username=username, password="pw")
    return client


@pytest.fixture
def importer(client):
    return staff(client, "add_match", "view_match", "change_match")


def upload(client, name, content, publish=False):
    data = {"record": SimpleUploadedFile(name, content)}
    if publish:
        data["publish"] = "on"
    return client.post(IMPORT, data)


@pytest.mark.parametrize("publish", [True, False])
def test_a_record_becomes_a_finished_match_and_the_admin_shows_it(importer, publish):
    raw = (VECTORS / "procon2020/treasure_first_move_only.record.json").read_bytes()
    response = upload(importer, "final.json", raw, publish)
    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/matches/match/{match.pk}/change/"
    page = importer.get(response["Location"]).content.decode()
    assert f"Imported the record as match {match.pk} (" in page
    assert match.published is publish and match.ended_early and match.resolved_turns == 6
    assert match_export(match) == parse_record(raw).to_json()
    seen = Client().get(f"/matches/{match.pk}/replay").status_code
    assert seen == (200 if publish else 404)


def test_a_blokus_duo_game_record_is_read_as_the_command_reads_it(importer):
    kifu = (VECTORS / "blokus-duo/random_s7_00.kifu.txt").read_bytes()
    assert upload(importer, "random_s7_00.kifu.txt", kifu).status_code == 302
    match = Match.objects.get()
    assert match.game == "blokus-duo" and match.title == "random_s7_00.kifu"  # as the command
    assert match.resolved_turns == len(kifu.decode().split())


def bad_points_record():
    board = {"width": 4, "height": 3, "points": [[1, -2, 3, 0], [0, 5, 5, 1], [2, 2, -16]]}
    return json.dumps(record_json(board=board)).encode()


@pytest.mark.parametrize("content", [
    bad_points_record(),
    b'{"format": "match-record/1", "game": "kakomimasu"',
    b"\x89PNG\r\n\x1a\n",
])
def test_a_bad_record_shows_its_one_line_error_and_stores_nothing(importer, content):
    with pytest.raises(RecordError) as refused:
        parse_record(content)
    response = upload(importer, "bad.json", content, publish=True)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    if content.startswith(b"{"):  # the records module's own words
        assert f"bad.json: {refused.value}" in page
    else:
        assert "bad.json: neither JSON nor a game record (byte 0 is not ASCII)" in page
    assert 'class="errorlist' in page
    assert not Match.objects.exists() and not Board.objects.exists()
    assert not Submission.objects.exists()


def test_the_points_error_names_the_row(importer):
    page = upload(importer, "bad.json", bad_points_record()).content.decode()
    assert "bad.json: board.points[2]: 3 values, expected 4 (board.width)" in page


def test_the_match_list_has_the_import_button_for_those_who_may_add(client, importer):
    assert f'href="{IMPORT}"' in importer.get("/admin/matches/match/").content.decode()
    viewer = staff(Client(), "view_match", username="vic")
    listed = viewer.get("/admin/matches/match/")
    assert listed.status_code == 200 and f'href="{IMPORT}"' not in listed.content.decode()


def test_only_staff_who_may_add_matches_reach_it(client):
    raw = (VECTORS / "kakomimasu/enclosure_ring.record.json").read_bytes()
    assert client.get(IMPORT)["Location"].startswith("/admin/login/")
    outsider = User.objects.create_user("eve", password="pw")  # not staff
    client.force_login(outsider)
    assert upload(client, "r.json", raw).status_code == 302
    viewer = staff(Client(), "view_match", username="vic")
    assert viewer.get(IMPORT).status_code == 403
    assert upload(viewer, "r.json", raw).status_code == 403
    assert not Match.objects.exists()


def test_the_form_needs_its_csrf_token(importer):
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(User.objects.get(username="ada"))
    raw = (VECTORS / "kakomimasu/enclosure_ring.record.json").read_bytes()
    assert upload(guarded, "r.json", raw).status_code == 403
    form = guarded.get(IMPORT).content.decode()
    assert 'name="csrfmiddlewaretoken"' in form and 'enctype="multipart/form-data"' in form
    assert not Match.objects.exists()


@pytest.mark.parametrize(("changes", "field"), [
    ({"title": "t\ud800"}, "title"),
    ({"actions": [[[{"type": "put\ud800", "agent": 0, "x": 0, "y": 0}], []]]},
     "actions[0][0][0].type"),
])
def test_a_lone_surrogate_is_refused_on_the_form_not_with_a_500(importer, changes, field):
    content = json.dumps(record_json(**changes)).encode()  # "\ud800" as a JSON escape
    response = upload(importer, "odd.json", content, publish=True)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert f"odd.json: {field}: holds a lone surrogate (\\ud800 at character " in page
    assert not Match.objects.exists() and not Board.objects.exists()
