"""The opening message of a match socket carries what a late viewer cannot infer."""

from pathlib import Path

import pytest

from matches.live import messages
from matches.rules.records import parse_record
from matches.rules.timeline import states
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
PROCON = VECTORS / "procon2020"


@pytest.mark.parametrize("vector", ["treasure_first_move_only", "random_s7_00", "random_s7_03"])
def test_a_procon_snapshot_lists_the_treasures_the_rules_say_are_gone(vector):
    record = parse_record((PROCON / f"{vector}.record.json").read_bytes())
    *_, (last, _) = states(record)
    spots = {(t["x"], t["y"]) for t in record.board["treasures"]}
    match = match_import(record, published=True)
    taken = messages.snapshot(match)["treasures_taken"]
    assert {tuple(cell) for cell in taken} == spots - set(last.treasures)
    assert taken and taken == sorted(taken)


def test_other_games_snapshots_carry_no_treasures():
    match, _ = make_match()
    assert "treasures_taken" not in messages.snapshot(match)


def test_the_snapshot_and_the_list_say_who_leads_as_the_result_decides():
    """Hot traps Cool with fewer items: Hot leads, by the items' difference."""
    chaser = VECTORS / "chaser" / "item_block_traps_self.record.json"
    match = match_import(parse_record(chaser.read_bytes()), published=True)
    assert match.result["winner"] == 1
    assert messages.snapshot(match)["leader"] == {"team": 1, "margin": 1}
    line = messages.summary(match, match.start_at)["match"]
    assert line["leader"] == {"team": 1, "margin": 1} and line["headline"] == [1, 0]


def test_in_blokus_duo_the_list_leads_with_fewer_squares_left():
    record = VECTORS / "blokus-duo" / "random_s7_00.record.json"
    match = match_import(parse_record(record.read_bytes()), published=True)
    *_, (last, _) = states(parse_record(record.read_bytes()))
    left = list(last.remaining)
    line = messages.summary(match, match.start_at)["match"]
    assert line["headline"] == left and left[0] != left[1]
    assert line["leader"]["team"] == left.index(min(left))
