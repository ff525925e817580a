"""Blokus Duo game records (棋譜): reading, importing, exporting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matches.rules.blokus_duo_kifu import (
    KifuError,
    kifu_from_record,
    parse_kifu,
    record_from_kifu,
)
from matches.rules.records import first_difference, parse_record, parse_timeline
from matches.rules.timeline import compute_timeline

VECTORS = Path(__file__).resolve().parent.parent / "conformance" / "blokus-duo"
KIFU_GAMES = sorted(path.name.removesuffix(".kifu.txt") for path in VECTORS.glob("*.kifu.txt"))


def test_there_are_ten_game_records():
    assert len(KIFU_GAMES) == 10


@pytest.mark.parametrize("name", KIFU_GAMES)
def test_exporting_a_record_reproduces_its_game_record_byte_for_byte(name):
    data = json.loads((VECTORS / f"{name}.record.json").read_text())
    expected = (VECTORS / f"{name}.kifu.txt").read_bytes()
    assert kifu_from_record(data).encode("ascii") == expected
    assert kifu_from_record(parse_record(data)).encode("ascii") == expected


@pytest.mark.parametrize("name", KIFU_GAMES)
def test_importing_a_game_record_gives_the_vectors_timeline(name):
    text = (VECTORS / f"{name}.kifu.txt").read_bytes().decode("ascii")
    data = record_from_kifu(text, title=name)
    record = parse_record(data)
    assert record.title == name and record.turns == len(text.splitlines())
    expected = parse_timeline((VECTORS / f"{name}.timeline.json").read_bytes())
    assert first_difference(expected, compute_timeline(record)) is None


def test_import_writes_a_match_record():
    data = record_from_kifu("55a0\r\nAAa0\r\n66B0\r\n", "t")
    assert data == {
        "format": "match-record/1", "game": "blokus-duo", "title": "t",
        "board": {"width": 14, "height": 14}, "agents": 0, "turns": 3,
        "teams": [{"name": "A"}, {"name": "B"}],
        "actions": [[[{"move": "55a0"}], []], [[], [{"move": "AAa0"}]],
                    [[{"move": "66B0"}], []]],
    }
    assert parse_record(data).to_json() == data


def test_import_refuses_the_first_illegal_move_with_its_line():
    with pytest.raises(KifuError, match=r"^line 3: illegal move 77b0: the piece touches no own "
                                        r"square at a corner$"):
        record_from_kifu("55a0\nAAa0\n77b0\n")
    with pytest.raises(KifuError, match=r"^line 1: illegal move ----: pass while a legal move "
                                        r"exists \(e\.g\. 55a0\)$"):
        record_from_kifu("----\n")
    with pytest.raises(KifuError, match=r"^line 2: illegal move 55b0: the piece overlaps"):
        record_from_kifu("55a0\n55b0\n")
    with pytest.raises(KifuError, match=r"^line 1: no moves"):
        record_from_kifu("")
    with pytest.raises(KifuError, match=r"^line 1001: more than 1000 lines$"):
        record_from_kifu("----\n" * 1001)


def test_parse_kifu_reads_lf_and_crlf_and_keeps_the_spelling():
    assert parse_kifu("55a0\r\nAAa0\r\n----\r\n0000\r\n") == ["55a0", "AAa0", "----", "0000"]
    assert parse_kifu("55a0\naaU0\n66B0") == ["55a0", "aaU0", "66B0"]
    assert parse_kifu("") == []
    assert parse_kifu("\ufeff55a0\r\n") == ["55a0"]


@pytest.mark.parametrize(("text", "message"), [
    ("55a0\r\nAAa0\r\nF5a0\r\n", r"^line 3: 'F5a0': position must be two of 1-9, A-E$"),
    ("55a0\n\nAAa0\n", r"^line 2: empty line$"),
    ("55a\n", r"^line 1: '55a' is not a 4-character move code$"),
    ("55a0\nAAv0\n", r"^line 2: 'AAv0': piece must be a letter a-u$"),
    ("55a8\n", r"^line 1: '55a8': orientation must be a digit 0-7$"),
    ("55a0 AAa0\n", r"^line 1: '55a0 AAa0' is not a 4-character move code$"),
])
def test_parse_kifu_refuses_a_malformed_line(text, message):
    with pytest.raises(KifuError, match=message):
        parse_kifu(text)
    with pytest.raises(KifuError, match=message):
        record_from_kifu(text)


def test_a_bad_game_record_is_refused_on_the_judges_import_form_in_one_line():
    """The form catches the records' errors: a game record's must be one of them."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from matches.forms import RecordImportForm

    form = RecordImportForm({}, {"record": SimpleUploadedFile("game.txt", b"55a0\n55b0\n")})
    assert form.imported() is None
    assert form.errors["record"] == [
        "game.txt: line 2: illegal move 55b0: the piece overlaps a placed square"]


def test_export_writes_canonical_codes_and_passes_as_dashes():
    data = record_from_kifu("65p6\nAAU0\n44b5\n")
    assert kifu_from_record(data) == "65p3\r\nAAu0\r\n43b0\r\n"
    data = json.loads((VECTORS / "full_game_draw.record.json").read_text())
    assert data["actions"][-1][1] == [{"move": "0000"}]
    assert kifu_from_record(data).endswith("DAa0\r\n----\r\n----\r\n")


def test_export_round_trips_through_import():
    for name in KIFU_GAMES:
        text = (VECTORS / f"{name}.kifu.txt").read_bytes().decode("ascii")
        assert kifu_from_record(record_from_kifu(text)) == text


def test_export_refuses_a_move_that_was_not_played():
    data = json.loads((VECTORS / "overlap.record.json").read_text())
    with pytest.raises(KifuError, match=r"^turn 3: illegal move 55a0: the piece overlaps"):
        kifu_from_record(data)
    silent = {"actions": [[[{"move": "55a0"}], []], [[], []]]}
    with pytest.raises(KifuError, match=r"^turn 2: team B sent no single move$"):
        kifu_from_record(silent)
