"""CHaser map files (N:/T:/S:/D:/C:/H:) read into match records, and malformed maps refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matches.rules.chaser import MapError, parse_map
from matches.rules.records import parse_record

VECTORS = Path(__file__).resolve().parent.parent / "conformance" / "chaser"
MAPS = sorted(path.name.removesuffix(".map") for path in VECTORS.glob("*.map"))
BASE = ["N:tiny", "T:5", "S:3,2", "D:0,2,3", "D:0,0,0", "C:0,0", "H:2,1"]


def text(lines: list[str], end: str = "\r\n") -> str:
    return "".join(line + end for line in lines)


def test_every_vector_has_its_map():
    assert len(MAPS) == 24


@pytest.mark.parametrize("name", MAPS)
def test_a_vectors_map_gives_its_records_board_turns_and_title(name):
    stored = json.loads((VECTORS / f"{name}.record.json").read_bytes())
    source = (VECTORS / f"{name}.map").read_bytes().decode()
    assert "\r\n" in source
    data = parse_map(source)
    assert data["board"] == stored["board"]
    assert data["turns"] == stored["turns"]
    assert data["title"] == name
    assert data == parse_map(source.replace("\r\n", "\n"))
    assert parse_record(data).to_json() == data


def test_a_map_is_a_whole_record_without_actions():
    assert parse_map(text(BASE)) == {
        "format": "match-record/1", "game": "chaser", "title": "tiny",
        "board": {"width": 3, "height": 2, "cells": [".#*", "..."], "start": [[0, 0], [2, 1]]},
        "agents": 1, "turns": 5, "teams": [{"name": "Cool"}, {"name": "Hot"}], "actions": [],
    }


def test_the_name_is_the_title_when_the_map_has_none():
    assert parse_map(text(BASE[1:]), "fallback")["title"] == "fallback"
    assert parse_map(text(["N:"] + BASE[1:]), "fallback")["title"] == "fallback"
    assert parse_map(text(BASE), "fallback")["title"] == "tiny"


def test_blank_lines_spaces_a_bom_and_a_missing_last_newline_are_accepted():
    spaced = ["", "N: tiny ", "T: 5", "S:3, 2", "", "D:0, 2 ,3", "D:0,0,0", "C:0,0", "H:2,1"]
    assert parse_map("\ufeff" + text(spaced, "\n").rstrip("\n")) == parse_map(text(BASE))
    reordered = BASE[5:] + BASE[:5]  # any order, as long as S: comes before the D: lines
    assert parse_map(text(reordered)) == parse_map(text(BASE))


def changed(index: int, line: str | None) -> list[str]:
    """BASE with line `index` (0-based) replaced, or removed when `line` is None."""
    lines = list(BASE)
    if line is None:
        del lines[index]
    else:
        lines[index] = line
    return lines


@pytest.mark.parametrize(("lines", "message"), [
    (BASE + ["X:1"], "line 8: unknown key 'X' (expected N T S D C H)"),
    (BASE + ["hello"], "line 8: unknown key 'hello' (expected N T S D C H)"),
    (changed(1, "t:5"), "line 2: unknown key 't' (expected N T S D C H)"),
    (changed(1, "T:x"), "line 2: T: 'x' is not n (whole numbers)"),
    (changed(1, "T:0"), "line 2: T: 0 turns is outside 1..1000"),
    (changed(1, "T:1001"), "line 2: T: 1001 turns is outside 1..1000"),
    (BASE + ["T:6"], "line 8: a second T: line (the first is line 2)"),
    (changed(2, "S:3"), "line 3: S: '3' is not n,n (whole numbers)"),
    (changed(2, "S:3,2,1"), "line 3: S: '3,2,1' is not n,n (whole numbers)"),
    (changed(2, "S:65,2"), "line 3: S: 65,2 is outside 1..64"),
    (changed(2, "S:3,0"), "line 3: S: 3,0 is outside 1..64"),
    (changed(3, "D:0,2"), "line 4: 2 D: values, expected 3 (S: width)"),
    (changed(3, "D:0,2,3,0"), "line 4: 4 D: values, expected 3 (S: width)"),
    (changed(3, "D:0,1,3"), "line 4: D: value 1 is '1', expected 0, 2 or 3"),
    (changed(4, "D:0,0,x"), "line 5: D: value 2 is 'x', expected 0, 2 or 3"),
    (changed(4, None), "line 7: 1 D: lines, expected 2 (S: height)"),
    (BASE[:5] + ["D:0,0,0"] + BASE[5:], "line 6: more D: lines than 2 (S: height)"),
    (changed(2, None), "line 3: a D: line before the S: line"),
    (BASE[:2] + BASE[3:5] + BASE[2:3] + BASE[5:], "line 3: a D: line before the S: line"),
    (changed(1, None), "line 7: the map has no T: line (the number of turns)"),
    (changed(5, None), "line 7: the map has no C: line (Cool's start (x,y))"),
    (changed(6, None), "line 7: the map has no H: line (Hot's start (x,y))"),
    (changed(5, "C:0"), "line 6: C: '0' is not n,n (whole numbers)"),
    (changed(5, "C:-1,0"), "line 6: C: '-1,0' is not n,n (whole numbers)"),
    (changed(5, "C:3,0"), "line 6: C: 3,0 is off the 3x2 map"),
    (changed(6, "H:0,2"), "line 7: H: 0,2 is off the 3x2 map"),
    (changed(5, "C:1,0"), "line 6: C: 1,0 is a block"),
    (changed(6, "H:0,0"), "line 7: H: is Cool's start too"),
])
def test_a_malformed_map_is_refused_naming_its_line(lines, message):
    with pytest.raises(MapError) as caught:
        parse_map(text(lines))
    assert str(caught.value) == message
    with pytest.raises(ValueError, match="^line [0-9]+: [^\n]+$"):
        parse_map(text(lines, "\n"))


def test_an_empty_map_names_the_first_missing_key():
    with pytest.raises(MapError, match=r"^line 1: the map has no T: line"):
        parse_map("")
