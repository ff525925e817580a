"""Every long-running command ends on the first Ctrl-C or SIGTERM: sent to its whole
process group, as a terminal sends Ctrl-C, while it is at work (the demo with its bots,
clock, tournament and CHaser server playing; a clock with a match to resolve; a CHaser
server waiting for programs)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, free_port, test_database_url, wait_for_port
from tests.factories import make_match

pytestmark = pytest.mark.django_db(transaction=True)
ENDS_WITHIN = 5.0  # seconds: the commands take well under 2 (bench/attack.py's figures)


def started(*args: str, log) -> subprocess.Popen:
    """A manage.py command in a process group of its own, as a terminal starts it
    (Ctrl-C's SIGINT not ignored)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", *args], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1"),
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def ends_on(process: subprocess.Popen, signum: int) -> float:
    """Send `signum` to the process's group; how long it took to end (it must)."""
    began = time.monotonic()
    os.killpg(process.pid, signum)
    try:
        process.wait(ENDS_WITHIN)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise AssertionError(f"still running {ENDS_WITHIN} s after signal {signum}") from None
    return time.monotonic() - began


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_demo_stops_with_its_bots_clock_and_chaser_server(tmp_path, signum):
    port = free_port()
    log_path = tmp_path / "demo.log"
    with open(log_path, "w") as log:
        demo = started("demo", "--port", str(port), log=log)
        wait_for_port(port)
        deadline = time.monotonic() + 30
        while "CHaser game 1" not in log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)  # every game under way, the CHaser programs connected
        time.sleep(1.0)
        ends_on(demo, signum)
    said = log_path.read_text()
    assert demo.returncode == 0, said
    assert "Stopping…" in said and "Stopped." in said and "Traceback" not in said


def test_the_clock_stops_between_ticks(tmp_path):
    match, _ = make_match(start_in=1, strategy=0.5, transition=0.2, turns=50)
    log_path = tmp_path / "clock.log"
    with open(log_path, "w") as log:
        clock = started("runclock", log=log)
        # running (its handlers set: a busy machine may take seconds to start it) and
        # resolving turns
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
                "Clock running" in log_path.read_text() and match.turn_rows.count() >= 2):
            time.sleep(0.1)
        assert match.turn_rows.count() >= 2, log_path.read_text()
        ends_on(clock, signal.SIGINT)
    assert clock.returncode == 0 and "Clock stopped." in log_path.read_text()


def test_a_waiting_chaser_server_stops(tmp_path):
    ports = [free_port(), free_port()]
    log_path = tmp_path / "chaser.log"
    with open(log_path, "w") as log:
        server = started("chaserserver", "--map", "akisato_m01", "--ports",
                         f"{ports[0]},{ports[1]}", log=log)
        wait_for_port(ports[0])
        ends_on(server, signal.SIGINT)
    assert server.returncode == 0 and "stopped" in log_path.read_text()


@pytest.mark.parametrize("command", ["demo", "runclock", "chaserserver"])
def test_a_command_whose_pipe_s_reader_died_with_the_ctrl_c_still_stops(command):
    """`make demo 2>&1 | tee demo.log`, then Ctrl-C: the terminal's SIGINT ends `tee`
    at once, and the command's next words meet a closed pipe. The demo's "Stopping…"
    raised BrokenPipeError inside its signal handler, before anything was told to stop:
    it ran on for good."""
    port = free_port()
    args = {"demo": ["demo", "--port", str(port)], "runclock": ["runclock"],
            "chaserserver": ["chaserserver", "--map", "akisato_m01", "--ports",
                             f"{port},{free_port()}"]}[command]
    process = started(*args, log=subprocess.PIPE)
    try:
        said = b""
        deadline = time.monotonic() + 60
        ready = {"demo": b"Serving at", "runclock": b"Clock running",
                 "chaserserver": b"CHaser server:"}[command]
        while ready not in said and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 1.0)[0]:
                said += os.read(process.stdout.fileno(), 4096)
        assert ready in said, said
        if command != "runclock":
            wait_for_port(port)
        process.stdout.close()  # the reader is gone: every later write meets a closed pipe
        ends_on(process, signal.SIGINT)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
