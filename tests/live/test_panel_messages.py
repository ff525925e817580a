"""The venue screen's side panel from the socket: who leads and the bar (`lead`), the
game's own panel parts (`panel`), and the end in plain words (`verdict`)."""

from pathlib import Path

import pytest

from matches.live import messages
from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def imported(game, name):
    record = (VECTORS / game / f"{name}.record.json").read_bytes()
    return match_import(parse_record(record), published=True)


def test_a_chaser_snapshot_says_hot_won_because_cool_is_boxed_in():
    match = imported("chaser", "item_block_traps_self")
    snapshot = messages.snapshot(match)
    names = [team["name"] for team in snapshot["match"]["teams"]]
    assert snapshot["lead"] == {"team": 1, "margin": 1, "share": 0.0}
    assert names == ["Cool", "Hot"]  # the record's names, said once
    assert snapshot["verdict"] == "Hot wins: Cool is boxed in"
    assert snapshot["panel"]["words"] == ["Cool (C) · items taken: 1",
                                          "Hot (H) · items taken: 0"]
    end = messages.end(match)
    assert (end["lead"], end["verdict"]) == (snapshot["lead"], snapshot["verdict"])


def test_a_blokus_duo_snapshot_has_trays_the_mover_and_worded_moves():
    match = imported("blokus-duo", "random_s7_00")
    panel = messages.snapshot(match)["panel"]
    assert panel["to_move"] in (0, 1)
    placed = [21 - len(tray) for tray in panel["trays"]]
    assert all(0 < count <= 21 for count in placed)
    worded = [words for team in panel["moves"] for words in team if words]
    assert all(words == "pass" or words.startswith("piece ") for words in worded)


def test_a_running_match_has_no_verdict_yet():
    match, _ = make_match()
    snapshot = messages.snapshot(match)
    assert snapshot["verdict"] is None
    assert snapshot["lead"] == {"team": None, "margin": 0, "share": 0.5}
    assert snapshot["panel"]["to_move"] is None
