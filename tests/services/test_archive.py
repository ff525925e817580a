"""Export, import and verify: records in and out, and the judges' recomputation."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from matches.models import Board, Match, Submission, Turn
from matches.rules.records import first_difference, parse_record, parse_timeline
from matches.rules.timeline import compute_timeline
from matches.selectors import match_export, match_verify, stored_timeline
from matches.services.archive import match_import
from matches.services.clock import clock_tick
from matches.services.transition import turn_resolve
from tests.factories import make_match, move, put, record_json, submit

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"



def played_match():
    """A live match of three turns: puts, a move, a conflict, a silent team."""
    match, tokens = make_match(turns=3)
    submit(match, tokens[0], [put(0, 1, 1), put(1, 2, 2)], 1)
    submit(match, tokens[1], [put(0, 2, 2), put(1, 4, 3)], 1)
    turn_resolve(match_id=match.pk, number=1)
    submit(match, tokens[0], [move(0, 2, 1)], 2)
    turn_resolve(match_id=match.pk, number=2)
    submit(match, tokens[1], [move(1, 4, 2)], 3)
    turn_resolve(match_id=match.pk, number=3)
    match.refresh_from_db()
    return match


def test_a_played_match_verifies_and_round_trips_through_its_record():
    match = played_match()
    assert match_verify(match).verified
    exported = match_export(match)
    assert exported["format"] == "match-record/1" and len(exported["actions"]) == 3
    assert exported["actions"][0][1] == [put(0, 2, 2), put(1, 4, 3)]
    imported = match_import(parse_record(exported))
    assert imported.over and imported.ended_early and imported.result == match.result
    assert match_export(imported) == exported
    assert first_difference(stored_timeline(match), stored_timeline(imported)) is None
    assert match_verify(imported).verified


@pytest.mark.parametrize("vector", [
    "kakomimasu/enclosure_ring", "procon2020/treasure_first_move_only",
    "procon2020/area_lost_when_ring_broken", "chaser/capture_by_put",
    "blokus-duo/full_game_draw",
])
def test_an_imported_vector_stores_its_timeline_and_exports_its_record(vector):
    record = parse_record((VECTORS / f"{vector}.record.json").read_bytes())
    match = match_import(record, published=True)
    expected = parse_timeline((VECTORS / f"{vector}.timeline.json").read_bytes())
    assert first_difference(expected, stored_timeline(match)) is None
    assert parse_record(match_export(match)) == record
    assert match.published and match.resolved_turns == len(record.actions)
    assert match_verify(match).verified


def test_a_running_match_verifies_from_a_copy_read_turns_ago():
    """A judge's page (or the demo's test) holds a copy of the match read before its
    latest turns were stored: the verdict is the match's as it is now."""
    match, tokens = make_match(turns=3)
    submit(match, tokens[0], [put(0, 1, 1), put(1, 2, 2)], 1)
    turn_resolve(match_id=match.pk, number=1)
    old = Match.objects.get(pk=match.pk)  # turn 1 resolved
    submit(match, tokens[1], [put(0, 2, 2), put(1, 4, 3)], 2)
    turn_resolve(match_id=match.pk, number=2)
    verdict = match_verify(old)
    assert verdict.verified and verdict.turns == 2, verdict


def test_an_imported_match_is_over_and_the_clock_leaves_it_alone():
    record = parse_record((VECTORS / "procon2020/area_lost_when_ring_broken.record.json")
                          .read_bytes())
    assert len(record.actions) < record.turns  # cut short: no result, still over
    match = match_import(record)
    assert match.status(match.start_at) == "finished" and match.result is None
    assert Match.objects.finished().filter(pk=match.pk).exists()
    assert clock_tick() == 0 and Turn.objects.filter(match=match).count() == len(record.actions)
    assert set(Submission.objects.filter(match=match).values_list("entered_by", flat=True)) == {
        "import"}


def test_verify_finds_the_first_corrupted_turn_and_cell():
    match = played_match()
    row = Turn.objects.get(match=match, number=2)
    row.cells = ["AAAAA"] + row.cells[1:]
    row.save()
    verdict = match_verify(match)
    assert not verdict.verified
    assert verdict.detail.startswith("turn 2: cell (0, 0) expected '.', computed 'A'")


def test_verify_finds_a_changed_counted_action():
    match = played_match()
    counted = Submission.objects.get(match=match, turn=2, counted=True)
    counted.actions = [move(0, 1, 2)]
    counted.save()
    assert match_verify(match).detail.startswith("turn 2: ")


def test_the_verify_command_prints_the_verdict_and_exits_1_on_a_difference():
    match = played_match()
    out = StringIO()
    call_command("verify", str(match.pk), stdout=out)
    assert out.getvalue().strip() == f"match {match.pk} verified: 3 stored turns equal the " \
                                      "replay of the record"
    Turn.objects.filter(match=match, number=3).update(scores=[{"wall": 99}, {"wall": 0}])
    with pytest.raises(CommandError) as caught:
        call_command("verify", str(match.pk))
    assert caught.value.returncode == 1 and "turn 3: scores expected" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        call_command("verify", "9999")
    assert caught.value.returncode == 2


def test_export_then_import_commands_give_the_same_timeline(tmp_path):
    match = played_match()
    path = tmp_path / "record.json"
    call_command("exportrecord", str(match.pk), "-o", str(path))
    out = StringIO()
    call_command("importrecord", str(path), "--publish", stdout=out)
    copy = Match.objects.get(pk=int(out.getvalue()))
    assert copy.published and copy.pk != match.pk
    replayed = compute_timeline(parse_record(path.read_bytes()))
    assert first_difference(replayed, stored_timeline(copy)) is None


def test_a_bad_record_is_refused_with_one_line_and_nothing_is_stored(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record_json(turns=2)))
    boards, matches = Board.objects.count(), Match.objects.count()
    with pytest.raises(CommandError) as caught:
        call_command("importrecord", str(path))
    assert caught.value.returncode == 2
    assert str(caught.value) == f"{path}: actions: 3 turns of actions, but turns is 2"
    assert (Board.objects.count(), Match.objects.count()) == (boards, matches)


def test_an_import_that_fails_midway_leaves_nothing(monkeypatch):
    from matches.services import archive

    record = parse_record(record_json())

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(archive.Turn.objects, "bulk_create", broken)
    with pytest.raises(RuntimeError):
        match_import(record)
    assert not Match.objects.exists() and not Submission.objects.exists()


def test_a_team_name_longer_than_the_database_holds_is_refused_with_one_line(tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps(record_json(teams=[{"name": "A" * 101}, {"name": "B"}])))
    with pytest.raises(CommandError) as caught:
        call_command("importrecord", str(path))
    assert caught.value.returncode == 2
    assert str(caught.value) == f"{path}: teams[0].name: longer than 100 characters"
    assert not Match.objects.exists() and not Board.objects.exists()
