"""What every scenario ends with: the viewers' streams and the stored turns."""

from matches.models import Turn
from matches.selectors import match_verify
from tests.deploy.conftest import Viewer

STEP = {"strategy": 0.5, "transition": 0.2}  # seconds: short turns, a whole match in seconds


def viewers_of(match, ports: list[int]) -> list[Viewer]:
    """On each server: one viewer from a snapshot, one from turn 0 with ?since=0."""
    return [Viewer(port, match.pk, since) for port in ports for since in (None, 0)]


def resolved(match) -> int:
    match.refresh_from_db(fields=["resolved_turns"])
    return match.resolved_turns


def assert_every_turn_once_in_order(viewers: list[Viewer], turns: int) -> None:
    for viewer in viewers:
        assert viewer.ended and viewer.turns == viewer.expected(turns), viewer


def assert_resolved_once_and_replayed(match) -> None:
    """Every turn stored exactly once, and the stored turns equal the record's replay."""
    match.refresh_from_db()
    numbers = Turn.objects.filter(match=match).order_by("number").values_list("number", flat=True)
    assert list(numbers) == list(range(1, match.turns + 1))
    assert match.resolved_turns == match.turns and match.result is not None
    verdict = match_verify(match)
    assert verdict.verified, str(verdict)
