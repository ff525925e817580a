"""`manage.py rundrawing`: the machine's drawing worker, which every server of the machine
hands its pictures to (matches/drawing.py), and a server's own worker while it is gone."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from matches import drawing
from tests.commands.test_stopping import ends_on, started
from tests.conftest import ROOT

pytestmark = pytest.mark.one_backend  # no database: the same in both runs


def slow_pid(seconds: float) -> int:
    """Work that takes a while: the pid of the process that did it."""
    time.sleep(seconds)
    return os.getpid()


@pytest.fixture
def machine_worker(tmp_path, settings, monkeypatch):
    """The machine's worker, listening at a socket that this process's drawing uses."""
    monkeypatch.setattr(drawing, "_warned_at", -drawing.WARN_EVERY)  # warnings: not yet
    address = str(tmp_path / "drawing.sock")
    log_path = tmp_path / "drawing.log"
    with open(log_path, "w") as log:
        worker = started("rundrawing", "--socket", address, log=log)
    deadline = time.monotonic() + 30
    while not os.path.exists(address):
        assert worker.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, "the drawing worker did not start"
        time.sleep(0.05)
    settings.DRAWING_SOCKET = address
    drawing.shutdown()  # no worker of this process's own, to begin with
    yield worker, address, log_path
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    drawing.shutdown()


def test_the_work_is_done_by_the_machine_s_worker_and_its_errors_come_back(machine_worker):
    worker, address, _ = machine_worker
    assert drawing.work(os.getpid) == worker.pid
    assert drawing.WORKER.pids() == []  # this process started no worker of its own
    with pytest.raises(ValueError, match="invalid literal"):
        drawing.work(int, "not a number")
    assert drawing.work(int, "12") == 12  # and it goes on after an error
    assert stat.S_IMODE(os.stat(address).st_mode) == 0o600  # its owner's alone


def test_a_connection_that_sends_no_job_changes_nothing(machine_worker):
    import socket

    worker, address, _ = machine_worker
    for garbage in (b"", b"\x00\x00\x00\x05hello", b"\xff" * 64):
        with socket.socket(socket.AF_UNIX) as raw:
            raw.connect(address)
            raw.sendall(garbage)
    assert drawing.work(os.getpid) == worker.pid


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_it_stops_on_the_first_signal_and_servers_then_draw_in_their_own(
        machine_worker, signum, caplog):
    worker, address, log_path = machine_worker
    assert drawing.work(os.getpid) == worker.pid
    ends_on(worker, signum)
    said = log_path.read_text()
    assert worker.returncode == 0 and "Drawing stopped." in said and "Traceback" not in said
    assert not os.path.exists(address)
    with caplog.at_level(logging.WARNING, logger="matches.drawing"):
        own = drawing.work(os.getpid)
    assert own not in (worker.pid, os.getpid()) and drawing.WORKER.pids() == [own]
    assert "cannot be reached" in caplog.text


def test_work_under_way_when_the_worker_dies_is_done_again_in_the_server_s_own(
        machine_worker):
    import threading

    worker, _, _ = machine_worker
    done = []
    waiting = threading.Thread(target=lambda: done.append(drawing.work(slow_pid, 1.0)))
    waiting.start()
    time.sleep(0.5)
    os.killpg(worker.pid, signal.SIGKILL)
    waiting.join(30)
    assert done and done[0] not in (worker.pid, os.getpid())


def test_a_job_whose_server_gave_up_while_it_waited_is_not_done(machine_worker, tmp_path):
    import socket
    import threading
    from multiprocessing.connection import Connection

    worker, address, _ = machine_worker
    busy = threading.Thread(target=drawing.work, args=(slow_pid, 1.0))
    busy.start()
    time.sleep(0.3)  # the worker busy: the next job waits
    given_up = tmp_path / "done by a job nobody waits for"
    raw = socket.socket(socket.AF_UNIX)
    raw.connect(address)
    with Connection(raw.detach()) as link:
        link.send((given_up.touch, ()))
    busy.join(30)
    assert drawing.work(os.getpid) == worker.pid  # after it, in its turn
    time.sleep(0.3)
    assert not given_up.exists()


def test_a_second_worker_at_the_same_socket_is_refused(machine_worker):
    worker, address, _ = machine_worker
    second = subprocess.run([sys.executable, "manage.py", "rundrawing", "--socket", address],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert second.returncode != 0 and "another drawing worker" in second.stderr
    assert drawing.work(os.getpid) == worker.pid  # the first one goes on
