"""The process's caches never serve one match's values for another that took its id: a
test's rolled-back match (or a deleted one) gives its id to the next match made, and
nothing is reset in between here (matches/caches.py: keys by identity)."""

import pytest
from django.db import connection, transaction
from django.utils import timezone

from matches.access import team_by_authorization
from matches.caches import caches_reset, identity
from matches.live import messages
from matches.models import Board, Match, Team
from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.services import transition
from matches.services.archive import match_import
from matches.services.matches import match_create
from matches.services.transition import position_before, turn_resolve
from tests.factories import make_match, put, record_json, submit

pytestmark = pytest.mark.django_db


class RolledBack(Exception):
    pass


def made_twice(first, second):
    """What `second()` makes, after what `first()` made (and read) was rolled back; the
    ids the rolled-back rows had are given again, on PostgreSQL too."""
    sequences = postgresql_sequences()
    with pytest.raises(RolledBack), transaction.atomic():
        gone = first()
        raise RolledBack
    with connection.cursor() as cursor:
        for name, value, called in sequences:
            cursor.execute("SELECT setval(%s, %s, %s)", [name, value, called])
    made = second()
    assert made.pk == gone.pk
    return made


def postgresql_sequences() -> list[tuple[str, int, bool]]:
    """Where PostgreSQL's id sequences of the rows made here stand (SQLite's roll back
    with the transaction)."""
    if connection.vendor != "postgresql":
        return []
    found = []
    with connection.cursor() as cursor:
        for model in (Board, Match, Team):
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [model._meta.db_table])
            name = cursor.fetchone()[0]
            cursor.execute(f"SELECT last_value, is_called FROM {name}")
            found.append((name, *cursor.fetchone()))
    return found


def test_a_match_made_again_under_the_same_id_and_start_is_read_as_itself(client):
    now, starts = timezone.now(), []

    def read(teams):
        match, _ = make_match(teams=teams, now=now)
        starts.append(match.start_at)
        assert teams[0] in client.get(f"/api/matches/{match.pk}").content.decode()
        assert messages.snapshot(match)["match"]["teams"][0]["name"] == teams[0]
        return match

    made_twice(lambda: read(("Alpha", "Beta")), lambda: read(("Gamma", "Delta")))
    assert starts[0] == starts[1]


def test_a_turn_is_played_on_the_state_of_its_own_match():
    def played():
        match, tokens = make_match()
        submit(match, tokens[0], [put(0, 1, 1)], 1)
        turn_resolve(match_id=match.pk, number=1)  # its state after turn 1 is kept
        return match

    imported = made_twice(played, lambda: match_import(parse_record(record_json())))
    state = position_before(imported, 2)
    assert rules_for("kakomimasu").view(state)["cells"] == imported.turn_rows.get(number=1).cells


def test_a_token_finds_its_own_team_in_a_later_game_of_a_match_made_again():
    def token_read(names):
        first, tokens = make_match(teams=names)
        later = match_create(board=first.board, team_names=list(names), agents=2, turns=2,
                             strategy_seconds=1, transition_seconds=1, start_at=timezone.now(),
                             first_game=first, match_games=2).match
        team = team_by_authorization(f"Bearer {tokens[0]}", later.pk)  # the first's plays it
        assert (team.match_id, team.name) == (later.pk, names[0])
        return later

    made_twice(lambda: token_read(("Alpha", "Beta")), lambda: token_read(("Gamma", "Delta")))


def test_one_reset_forgets_every_kept_value_the_schedule_and_the_admission_counts():
    """What a test starts from (tests/conftest.py): a new process's state."""
    from matches.admission import GATES
    from matches.tournaments import runner

    match, _ = make_match()
    turn_resolve(match_id=match.pk, number=1)
    runner.schedule.stale = False
    assert GATES["pages"].enter("192.0.2.1") is not None
    caches_reset()
    assert transition.STATES.peek(identity(match)) is None
    assert runner.schedule.stale and GATES["pages"].total == 0


def test_a_fresh_value_is_built_once_within_its_seconds_and_forgotten_by_the_reset(
        monkeypatch):
    from matches import caches

    now = [100.0]
    monkeypatch.setattr(caches, "monotonic", lambda: now[0])  # this module's clock only
    fresh = caches.Fresh("a test's value", seconds=1.0)
    try:
        builds = iter(["first", "second", "third"])
        assert fresh.get(lambda: next(builds)) == "first"
        now[0] += 0.5
        assert fresh.get(lambda: next(builds)) == "first" and fresh.built == 1
        now[0] += 0.5  # its second is over
        assert fresh.get(lambda: next(builds)) == "second"
        fresh.expire()  # built again at once, the last value still readable
        assert fresh.current() is None and fresh.last == "second"
        assert fresh.get(lambda: next(builds)) == "third"
        caches_reset()
        assert fresh.last is None and fresh.built == 0
    finally:
        caches._RESETS.remove(fresh.reset)


def test_the_pictures_clips_and_codes_are_kept_in_the_registry():
    from matches import caches, picture
    from matches.views import pages, screens

    assert {picture.DRAWN, pages.CLIPS, screens.QR_CODES} <= set(caches._REGISTRY)
