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


def test_every_supported_game_has_its_vectors():
    assert {game for game, _ in CASES} == set(GAMES)
    assert sum(game == "kakomimasu" for game, _ in CASES) == 40


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}/{n}" for g, n in CASES])
def test_vector_agrees(game, name):
    folder = VECTORS / game
    record = parse_record((folder / f"{name}.record.json").read_bytes())
    expected = parse_timeline((folder / f"{name}.timeline.json").read_bytes())
    difference = first_difference(expected, compute_timeline(record))
    assert difference is None, f"{game}/{name}: {difference}"
