"""replay for every game and for game records; mapfile (CHaser); kifu (Blokus Duo)."""

import json

import pytest
from django.core.management import call_command

from matches.rules.records import first_difference, parse_record, parse_timeline
from tests.commands.calls import VECTORS, refusal, run


@pytest.mark.parametrize("vector", [
    "procon2020/treasure_first_move_only", "chaser/items_decide",
    "blokus-duo/full_game_draw", "kakomimasu/enclosure_ring",
])
def test_replay_writes_the_timeline_of_every_game(vector):
    computed = json.loads(run("replay", str(VECTORS / f"{vector}.record.json")))
    expected = parse_timeline((VECTORS / f"{vector}.timeline.json").read_bytes())
    assert first_difference(expected, computed) is None
    assert computed["game"] == vector.split("/")[0]


def test_replay_reads_a_blokus_duo_game_record():
    kifu = VECTORS / "blokus-duo" / "random_s7_04.kifu.txt"
    computed = json.loads(run("replay", str(kifu)))
    expected = parse_timeline((VECTORS / "blokus-duo" / "random_s7_04.timeline.json").read_bytes())
    assert first_difference(expected, computed) is None and computed["result"]


def test_an_illegal_move_in_a_game_record_is_reported_with_its_line(tmp_path):
    kifu = tmp_path / "game.txt"
    kifu.write_bytes(b"55a0\r\nAAa0\r\n66b0\r\n")  # 66-67 touch 55 only at a corner: legal
    assert len(json.loads(run("replay", str(kifu)))["states"]) == 4
    kifu.write_bytes(b"55a0\r\nAAa0\r\n65b0\r\n")  # 65 shares an edge with 55
    message = refusal("replay", str(kifu))
    assert message.startswith(f"{kifu}: line 3: illegal move 65b0: ")
    kifu.write_bytes(b"55a0\r\nAAz9\r\n")
    assert refusal("replay", str(kifu)).startswith(f"{kifu}: line 2: ")


def test_a_file_that_is_neither_json_nor_a_game_record_is_refused(tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x89PNG\r\n")
    assert "not ASCII" in refusal("replay", str(odd))


def test_replay_show_prints_each_game_readably():
    shown = run("replay", str(VECTORS / "chaser" / "capture_by_put.record.json"), "--show")
    assert shown.count("Turn ") == 5
    assert "B wl · walk left: invalid, the game is already decided" in shown
    assert shown.rstrip().endswith("Result: Cool (decided by capture)")
    shown = run("replay", str(VECTORS / "procon2020" / "invalid_actions.record.json"), "--show")
    assert "(tile 8 · area 0 · treasure 0)" in shown
    assert "A agent 0 type move dx -1 dy 0: invalid, target (-1, 1) is off the field" in shown


def test_mapfile_prints_the_record_of_a_chaser_map():
    for map_file in sorted((VECTORS / "chaser").glob("*.map")):
        printed = json.loads(run("mapfile", str(map_file)))
        record = parse_record(map_file.with_suffix(".record.json").read_bytes())
        parsed = parse_record(printed)
        assert (parsed.board, parsed.turns, parsed.agents) == (record.board, record.turns, 1)
        assert parsed.actions == [] and printed["format"] == "match-record/1"


def test_mapfile_refuses_a_malformed_map_naming_the_line(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_bytes(b"N:x\r\nT:10\r\nS:3,2\r\nD:0,0,0\r\nD:0,5,0\r\nC:0,0\r\nH:2,1\r\n")
    assert refusal("mapfile", str(bad)).startswith(f"{bad}: line 5: ")


def test_kifu_writes_the_canonical_game_record_byte_for_byte(tmp_path, capsysbinary):
    for kifu in sorted((VECTORS / "blokus-duo").glob("*.kifu.txt")):
        target = tmp_path / kifu.name
        run("kifu", str(kifu).replace(".kifu.txt", ".record.json"), "-o", str(target))
        assert target.read_bytes() == kifu.read_bytes()
    call_command("kifu", str(VECTORS / "blokus-duo" / "random_s7_01.record.json"))
    written = capsysbinary.readouterr().out
    assert written == (VECTORS / "blokus-duo" / "random_s7_01.kifu.txt").read_bytes()


def test_kifu_refuses_other_games_and_unplayed_moves():
    other = VECTORS / "chaser" / "items_decide.record.json"
    assert refusal("kifu", str(other)) == (
        f'{other}: game: "chaser" has no game record; only "blokus-duo" does')
    illegal = VECTORS / "blokus-duo" / "overlap.record.json"
    assert "illegal move" in refusal("kifu", str(illegal))
