"""creatematch, importrecord, exportrecord and kifu: refusals in one line with exit
status 2 and nothing stored or half-written; output through the command's stdout."""

import json
import re
import sys
from pathlib import Path

import pytest
from django.db import connection

from matches.models import Board, Match, Submission, Team, Tournament
from matches.services.transition import turn_resolve
from tests.commands.calls import VECTORS, refusal, run
from tests.factories import make_match, put, record_json, submit


def stored() -> tuple[int, int, int, int]:
    return (Board.objects.count(), Match.objects.count(), Team.objects.count(),
            Submission.objects.count())


# --- creatematch -------------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize(("teams", "message"), [
    (["A" * 5000, "B"], "--teams: teams[0].name: longer than 100 characters"),
    (["", "B"], "--teams: teams[0].name: empty"),
    (["A", "   "], "--teams: teams[1].name: empty"),
    (["Same", "Same"], "--teams: teams[1].name: the same as teams[0].name"),
    (["A\r\nB", "C"], "--teams: teams[0].name: holds a control character (U+000D)"),
    (["A", "B\udcff"], "--teams: teams[1].name: holds a lone surrogate (\\udcff at character 1)"),
])
def test_creatematch_refuses_team_names_no_match_may_have(teams, message):
    before = stored()
    assert refusal("creatematch", "--board", "random:1", "--teams", *teams) == message
    assert stored() == before  # not even the board


@pytest.mark.django_db
def test_creatematch_keeps_a_name_of_exactly_the_limit():
    printed = json.loads(run("creatematch", "--board", "random:1", "--json",
                             "--teams", "A" * 100, "チーム B"))
    assert [team["name"] for team in printed["teams"]] == ["A" * 100, "チーム B"]
    assert list(Team.objects.order_by("index").values_list("name", flat=True)) == [
        "A" * 100, "チーム B"]


@pytest.mark.django_db
def test_creatematch_says_where_to_watch_and_where_a_person_plays():
    printed = run("creatematch", "--game", "blokus-duo", "--teams", "A", "B")
    match = Match.objects.get()
    assert f"http://127.0.0.1:8000/matches/{match.pk}/play" in printed
    assert f"Watch it at http://127.0.0.1:8000/matches/{match.pk}/ ;" in printed
    # to the second, named: no microseconds to read past
    assert re.search(r"Starts at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n", printed), printed


@pytest.mark.django_db
def test_the_commands_give_whole_addresses_at_the_server_s_own_base(monkeypatch):
    monkeypatch.setenv("SPECTATOR_BASE_URL", "http://10.0.0.5:8000/")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    printed = run("createtournament", "Cup", "--game", "kakomimasu", "--format", "swiss", "--teams",
                  "Alpha", "Beta", "--boards", "A-1")
    tournament = Tournament.objects.get()
    assert f"Its page: http://10.0.0.5:8000/tournaments/{tournament.pk}/ ;" in printed
    assert re.search(r"starts at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d JST\n", printed), printed


@pytest.mark.django_db
def test_creatematch_refuses_a_title_that_cannot_be_stored():
    message = refusal("creatematch", "--board", "random:1", "--teams", "A", "B",
                      "--title", "t\udcff")
    assert message == "--title: holds a lone surrogate (\\udcff at character 1)"
    assert not Match.objects.exists()


# --- importrecord ------------------------------------------------------------------

def surrogate_record(tmp_path, **changes) -> Path:
    """A record file with a lone surrogate written as a JSON escape, as a hostile
    participant would send it."""
    path = tmp_path / "odd.json"
    text = json.dumps(record_json(**changes))  # ensure_ascii: "\ud800" stays an escape
    assert "\\ud800" in text
    path.write_text(text)
    return path


@pytest.mark.django_db
@pytest.mark.parametrize(("changes", "field"), [
    ({"title": "t\ud800"}, "title"),
    ({"teams": [{"name": "A\ud800"}, {"name": "B"}]}, "teams[0].name"),
    ({"actions": [[[put(0, 0, 0) | {"type": "put\ud800"}], []]]}, "actions[0][0][0].type"),
])
def test_importrecord_refuses_a_lone_surrogate_with_one_line(tmp_path, changes, field):
    path = surrogate_record(tmp_path, **changes)
    message = refusal("importrecord", str(path))
    assert message.startswith(f"{path}: {field}: holds a lone surrogate (\\ud800 at ")
    assert stored() == (0, 0, 0, 0)


def test_importrecord_as_a_process_prints_one_line_and_exits_2(spawn, tmp_path):
    path = surrogate_record(tmp_path, title="t\ud800")
    log = tmp_path / "import.log"
    assert spawn("importrecord", str(path), log_to=log).wait(timeout=60) == 2
    assert log.read_text().splitlines() == [
        f"CommandError: {path}: title: holds a lone surrogate (\\ud800 at character 1)"]
    assert not Match.objects.exists()


# --- exportrecord ------------------------------------------------------------------

def played_match():
    match, tokens = make_match(turns=2)
    submit(match, tokens[0], [put(0, 1, 1)], 1)
    turn_resolve(match_id=match.pk, number=1)
    return match


@pytest.mark.django_db
def test_exportrecord_writes_the_record_to_stdout_and_to_a_file(tmp_path):
    match = played_match()
    printed = run("exportrecord", str(match.pk))
    target = tmp_path / "record.json"
    assert run("exportrecord", str(match.pk), "-o", str(target)) == ""
    assert target.read_text(encoding="utf-8") == printed and printed.endswith("}\n")
    assert json.loads(printed)["actions"] == [[[put(0, 1, 1)], []]]
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]  # no temporary left


@pytest.mark.django_db
def test_exportrecord_refuses_an_action_no_text_can_hold_and_keeps_the_old_file(tmp_path):
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's jsonb refuses to store a lone surrogate in the first place")
    match = played_match()
    Submission.objects.filter(match=match, counted=True).update(
        actions=[put(0, 1, 1) | {"type": "put\ud800"}])
    target = tmp_path / "record.json"
    target.write_text("the previous record\n")
    message = refusal("exportrecord", str(match.pk), "-o", str(target))
    assert message == (f"match {match.pk}: actions[0][0][0].type: holds a lone surrogate "
                       "(\\ud800 at character 3)")
    assert target.read_text() == "the previous record\n"
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]
    fresh = tmp_path / "fresh.json"
    refusal("exportrecord", str(match.pk), "-o", str(fresh))
    assert not fresh.exists()  # no empty file either


@pytest.mark.django_db
def test_exportrecord_into_a_missing_folder_is_one_line(tmp_path):
    match = played_match()
    target = tmp_path / "nowhere" / "record.json"
    assert refusal("exportrecord", str(match.pk), "-o", str(target)) == (
        f"{target}: No such file or directory")


# --- kifu --------------------------------------------------------------------------

def test_kifu_writes_through_the_commands_stdout_with_crlf(capsys):
    record = VECTORS / "blokus-duo" / "random_s7_01.record.json"
    written = run("kifu", str(record))
    assert written.encode("ascii") == record.with_name("random_s7_01.kifu.txt").read_bytes()
    assert written.endswith("\r\n") and not written.endswith("\r\n\n")
    assert capsys.readouterr().out == ""  # nothing went around it to the process's stdout


def test_no_command_writes_to_the_process_stdout_directly():
    commands = Path(__file__).resolve().parents[2] / "matches" / "management" / "commands"
    for source in commands.glob("*.py"):
        text = source.read_text()
        assert "sys.stdout" not in text and "print(" not in text, source.name


def test_the_kifu_process_output_is_byte_for_byte(tmp_path):
    import subprocess

    record = VECTORS / "blokus-duo" / "random_s7_01.record.json"
    done = subprocess.run([sys.executable, "manage.py", "kifu", str(record)],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == record.with_name("random_s7_01.kifu.txt").read_bytes()


def test_a_token_never_starts_with_a_dash():
    """A command line takes `--token -x…` for an option (playprogram, curl scripts)."""
    from matches.models import new_token

    tokens = [new_token() for _ in range(2000)]  # one in 64 would start with "-"
    assert not [token for token in tokens if token.startswith("-")]
    assert all(len(token) == 32 for token in tokens) and len(set(tokens)) == 2000
