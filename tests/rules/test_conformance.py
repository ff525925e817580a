"""Every conformance vector of every supported game: the record replays to its timeline."""

from pathlib import Path

import pytest

from matches.rules import GAMES
from matches.rules.records import first_difference, parse_record, parse_timeline
from matches.rules.timeline import compute_timeline

VECTORS = Path(__file__).resolve().parent.parent / "conformance"
CASES = sorted(
    (game, path.name.removesuffix(".record.json"))
    for game in GAMES
    for path in (VECTORS / game).glob("*.record.json")
)


VECTOR_COUNTS = {"kakomimasu": 40, "procon2020": 29, "chaser": 24, "blokus-duo": 19}


def test_every_supported_game_has_all_its_vectors():
    counts = {game: sum(g == game for g, _ in CASES) for game in GAMES}
    assert counts == VECTOR_COUNTS


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}/{n}" for g, n in CASES])
def test_vector_agrees(game, name):
    folder = VECTORS / game
    record = parse_record((folder / f"{name}.record.json").read_bytes())
    expected = parse_timeline((folder / f"{name}.timeline.json").read_bytes())
    difference = first_difference(expected, compute_timeline(record))
    assert difference is None, f"{game}/{name}: {difference}"
