"""The opening message of a match socket carries what a late viewer cannot infer."""

from pathlib import Path

import pytest

from matches.live import messages
from matches.rules.records import parse_record
from matches.rules.timeline import states
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.django_db
PROCON = Path(__file__).resolve().parents[1] / "conformance" / "procon2020"


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
