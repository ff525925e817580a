"""A process's journal of the lines it serves (matches/services/local_journal.py): each
line kept on the machine before its answer, moved into the database with its turn, and
the journal of a process that died moved by the next one, nothing twice."""

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from matches.models import Match, Submission
from matches.services import local_journal, protocol
from tests.protocol_servers.test_chaser_faults import BOARD, TURNS

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 29, 21, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture
def kept(settings, tmp_path, monkeypatch):
    """Lines kept in a journal first (whatever the database), in a folder of the test's."""
    settings.LINE_JOURNAL, settings.VAR_DIR = True, tmp_path
    monkeypatch.setattr(local_journal, "_JOURNAL", None)
    monkeypatch.setattr(local_journal, "_UNUSABLE", None)
    return local_journal.folder()


def a_game() -> protocol.Game:
    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    return protocol.game_create(board=board, team_names=["Alpha", "Beta"], turns=TURNS,
                                title="Alpha vs Beta", public_live=False)


def lines(match_id: int) -> list[tuple]:
    return [(side, turn, bytes(body), status, counted) for side, turn, body, status, counted in
            Submission.objects.filter(match_id=match_id).order_by("pk").values_list(
                "team__index", "turn", "body", "status_code", "counted")]


def test_a_line_is_kept_on_the_machine_then_moved_with_its_turn(kept):
    game = a_game()
    counted = {}
    protocol.line_store(game, 0, None, b"Alph\r\n", AT, "127.0.0.1", status=200)
    for side in (0, 1):
        protocol.line_store(game, side, 1, b"gr\r\n", AT, "::ffff:127.0.0.1", status=200)
        counted[side] = (protocol.line_store(game, side, 1, b"lu\r\n", AT, "127.0.0.1",
                                             status=202, actions=[{"command": "lu"}]),
                         [{"command": "lu"}])
    assert all(pk < 0 for pk, _ in counted.values())  # (journal ids: not the database's)
    assert lines(game.match_id) == []
    [journal] = kept.glob("*.sqlite3")  # (this process's)
    assert len(local_journal.journal().rows(game.match_id)) == 5

    protocol.turns_store(game, [counted])
    assert lines(game.match_id) == [(0, None, b"Alph\r\n", 200, False),
                                    (0, 1, b"gr\r\n", 200, False),
                                    (0, 1, b"lu\r\n", 202, True),
                                    (1, 1, b"gr\r\n", 200, False),
                                    (1, 1, b"lu\r\n", 202, True)]
    assert Match.objects.get(pk=game.match_id).turn_rows.count() == 1
    assert local_journal.journal().rows(game.match_id) == []
    line = Submission.objects.filter(match_id=game.match_id, status_code=202).first()
    assert line.received_at == AT and line.actions == [{"command": "lu"}]
    assert line.body_sha256 and line.body_size == 4

    # a line after its game's last turn (a late `#`), and a fault's server entry
    protocol.line_store(game, 1, 1, b"#\r\n", AT, "::ffff:127.0.0.1", status=200)
    protocol.fault_store(game, 0, 2, AT, [{"command": None}], "timed out")
    protocol.lines_move(game)
    assert lines(game.match_id)[-2:] == [(1, 1, b"#\r\n", 200, False),
                                         (0, 2, b"", 202, False)]
    entry = Submission.objects.filter(match_id=game.match_id).last()
    assert entry.entered_by == "server" and entry.note == "protocol fault: timed out"
    assert Submission.objects.filter(match_id=game.match_id, turn=1, team__index=1,
                                     status_code=200).last().remote_addr == "::ffff:127.0.0.1"


def test_a_line_kept_in_a_turn_moved_during_a_hold_is_counted_by_its_database_id(kept):
    """A turn's first line may move before its turn is stored (a hold stores what was
    played while the second program has yet to act): the turn counts it all the same."""
    game = a_game()
    first = protocol.line_store(game, 0, 1, b"lu\r\n", AT, "127.0.0.1", status=202,
                                actions=[{"command": "lu"}])
    protocol.lines_move(game)
    second = protocol.line_store(game, 1, 1, b"ru\r\n", AT, "127.0.0.1", status=202,
                                 actions=[{"command": "ru"}])
    protocol.turns_store(game, [{0: (first, [{"command": "lu"}]),
                                 1: (second, [{"command": "ru"}])}])
    assert [(side, body, counted) for side, _, body, _, counted in lines(game.match_id)] == \
        [(0, b"lu\r\n", True), (1, b"ru\r\n", True)]


KEEPER = """
import sys, django
django.setup()
from datetime import datetime
from pathlib import Path
from matches.services.local_journal import Journal
journal = Journal(Path(sys.argv[4]))  # (the test database's folder)
match, team = int(sys.argv[1]), int(sys.argv[2])
for body in (b"Alph\\r\\n", b"gr\\r\\n", b"lu\\r\\n"):
    journal.keep((match, team, 1, datetime.fromisoformat(sys.argv[3]), "127.0.0.1",
                  "text/plain; tcp", body, len(body), body.hex(), None, 200, "", "", "", ""))
print("kept", flush=True)
sys.stdin.readline()
"""


def test_a_dead_processs_journal_is_moved_once_and_a_living_ones_is_left(kept, tmp_path):
    game = a_game()
    team = game.team_ids[0]
    keeper = subprocess.Popen(
        [sys.executable, "-c", KEEPER, str(game.match_id), str(team), AT.isoformat(),
         str(kept)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "SPECTATOR_VAR_DIR": str(tmp_path),
             "DJANGO_SETTINGS_MODULE": "spectator.settings"})
    try:
        assert keeper.stdout.readline() == "kept\n"
        assert local_journal.recover() == 0  # its process lives: its lock is held
        assert lines(game.match_id) == [] and len(list(kept.glob("*.sqlite3"))) == 1
        # (one of its lines reached the database before the process died)
        protocol.lines_move(game)  # (nothing of this process's own)
        Submission.objects.create(match_id=game.match_id, team_id=team, turn=1,
                                  received_at=AT, body=b"gr\r\n", body_size=4,
                                  body_sha256=b"gr\r\n".hex(), status_code=200)
    finally:
        keeper.send_signal(signal.SIGKILL)
        keeper.wait()
    assert local_journal.recover() == 2
    assert sorted(body for _, _, body, _, _ in lines(game.match_id)) == \
        [b"Alph\r\n", b"gr\r\n", b"lu\r\n"]
    # its files gone, its lock last (this process's own journal is left)
    assert [path.name for path in kept.iterdir() if f"-{keeper.pid}-" in path.name] == []
    assert local_journal.recover() == 0


def test_a_journal_of_a_match_this_database_lacks_is_dropped(kept, tmp_path):
    """(a journal left in this database's folder for a match it no longer has)"""
    kept.mkdir(parents=True)
    journal = local_journal.Journal()
    journal.keep((987654321, 1, 1, AT, None, "", b"x", 1, "", None, 200, "", "", "", ""))
    journal.lock.close()  # (its process gone)
    assert local_journal.recover() == 0 and list(kept.iterdir()) == []


def test_each_database_has_a_folder_of_its_own(kept, monkeypatch):
    """A journal kept for another database (another test run's, say, whose match ids this
    database's rows may take again) is never moved into this one."""
    game = a_game()
    ours = local_journal._database_key()
    monkeypatch.setattr(local_journal, "_database_key", lambda: "postgresql-another")
    journal = local_journal.Journal()  # (kept by a process of the other database's)
    journal.keep((game.match_id, game.team_ids[0], 1, AT, None, "", b"x", 1, "", None, 200,
                  "", "", "", ""))
    journal.lock.close()  # (its process gone)
    monkeypatch.setattr(local_journal, "_database_key", lambda: ours)
    assert local_journal.recover() == 0 and lines(game.match_id) == []
    assert journal.path.exists() and journal.path.parent != kept


def test_a_process_whose_journal_cannot_be_opened_stores_its_lines_in_the_database(
        kept, settings, tmp_path, caplog):
    """(var/journal not a folder the process can write, on a worker machine): the lines
    go to the database before their answers, as on SQLite, the game goes on, and the log
    and the checks say why."""
    (tmp_path / "journal").write_text("not a folder")
    [warning] = local_journal.journal_folder_check()
    assert warning.id == "spectator.W001" and str(tmp_path / "journal") in warning.msg
    game = a_game()
    counted = {side: (protocol.line_store(game, side, 1, b"lu\r\n", AT, "127.0.0.1",
                                          status=202, actions=[{"command": "lu"}]),
                      [{"command": "lu"}]) for side in (0, 1)}
    assert all(pk > 0 for pk, _ in counted.values())  # (the database's ids)
    assert local_journal.wanted() and not local_journal.in_use()
    assert lines(game.match_id) == [(0, 1, b"lu\r\n", 202, False), (1, 1, b"lu\r\n", 202, False)]
    protocol.turns_store(game, [counted])
    assert [counted for *_, counted in lines(game.match_id)] == [True, True]
    assert [record.levelname for record in caplog.records
            if "no journal of lines" in record.getMessage()] == ["ERROR"]  # once


def test_the_checks_say_nothing_of_a_writable_folder_or_a_journal_not_wanted(kept, settings):
    assert local_journal.journal_folder_check() == []  # (tmp_path: not made yet, writable)
    settings.LINE_JOURNAL, settings.VAR_DIR = False, "/proc/no-such-place"
    assert local_journal.journal_folder_check() == []
