"""Hostile programs in the sandbox (matches/hosting/sandbox.py; docs/programs.md): each
is contained, ends within its limits, leaves no process behind, and reads or writes
nothing outside its own folder."""

import os
import socket
import textwrap
import uuid
from pathlib import Path

import pytest

from matches.hosting import sandbox
from matches.hosting.sandbox import Limits

pytestmark = [pytest.mark.one_backend,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

PYTHON = "/usr/bin/python3"


@pytest.fixture
def folder() -> Path:
    with sandbox.workspace() as home:
        yield home


def left_behind(marker: str) -> list[int]:
    """The processes still running whose command line carries `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


DEFAULT = Limits()


def python(folder: Path, code: str, limits: Limits = DEFAULT, wall: float = 10.0,
           **options) -> sandbox.Ran:
    """Run `code` with the system's Python in the sandbox; check nothing of it is left."""
    marker = f"marker-{uuid.uuid4().hex}"
    (folder / "main.py").write_text(textwrap.dedent(code))
    sandbox.handed_over(folder)
    ran = sandbox.run([PYTHON, "main.py", marker], folder, limits, wall_seconds=wall,
                      **options)
    assert left_behind(marker) == []
    return ran


def test_a_plain_program_runs_in_its_own_folder_as_nobody_of_the_server(folder):
    ran = python(folder, """
        import os, sys
        open("written.txt", "w").write("kept")
        print(os.getcwd(), sorted(os.listdir("/")), os.environ.get("SECRET_KEY"))
    """, env={"SPECTATOR_MATCH": "7"})
    assert ran.returncode == 0, ran.stderr
    cwd, rest = ran.stdout.decode().split(" ", 1)
    assert cwd == sandbox.HOME and "None" in rest and "work" not in rest and "root" not in rest
    assert (folder / "written.txt").read_text() == "kept"  # its folder is its own


def test_a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing(folder):
    ran = python(folder, """
        import os, time
        count = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                count += 1
        except OSError as error:
            print("refused after", count, error.errno, flush=True)
    """, Limits(processes=16), wall=20)
    assert ran.returncode == 0 and ran.stdout.startswith(b"refused after"), ran
    assert int(ran.stdout.split()[2]) < 16


def test_a_fork_bomb_leaves_the_sandboxes_running_beside_it_their_processes(folder):
    (folder / "main.py").write_text(textwrap.dedent("""
        import os, time
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
        except OSError:
            print("refused", flush=True)
            time.sleep(60)  # its processes held while the other starts
    """))
    sandbox.handed_over(folder)
    bomb = sandbox.start([PYTHON, "main.py"], folder, Limits(processes=16))
    try:
        assert bomb.stdout.readline() == b"refused\n"
        with sandbox.workspace() as beside:
            ran = python(beside, "print('started')")
        assert ran.returncode == 0 and ran.stdout == b"started\n", ran
    finally:
        sandbox.end(bomb)


def test_a_memory_hog_is_refused_its_memory(folder):
    ran = python(folder, """
        hog = []
        try:
            while True:
                hog.append(bytearray(64 << 20))
        except MemoryError:
            print("refused at", len(hog) * 64, "MiB", flush=True)
            raise SystemExit(3)
    """, Limits(memory_mb=256))
    assert ran.returncode == 3 and int(ran.stdout.split()[2]) < 256


def test_endless_output_is_cut_and_the_program_ended_at_its_wall_clock(folder):
    ran = python(folder, """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
            sys.stderr.write("y" * 65536)
    """, Limits(output_kb=64), wall=1.0)
    assert ran.timed_out and ran.cut
    assert len(ran.stdout) == 64 << 10 and len(ran.stderr) == 64 << 10
    assert ran.seconds < 5


def test_a_busy_loop_is_ended_by_its_cpu_time(folder):
    ran = python(folder, "while True:\n    pass\n", Limits(cpu_seconds=1), wall=20)
    assert not ran.timed_out and ran.signal in ("SIGXCPU", "SIGKILL")
    assert ran.seconds < 10


def test_sleeping_for_ever_is_ended_at_the_wall_clock_with_its_children(folder):
    ran = python(folder, """
        import os, time
        if os.fork() == 0:
            os.setsid()  # a child that leaves the group: still inside the sandbox
            time.sleep(600)
        time.sleep(600)
    """, wall=0.5)
    assert ran.timed_out and ran.seconds < 5


def test_no_network_but_its_own_loopback(folder):
    server = socket.create_server(("127.0.0.1", 0))  # the server's own port, outside
    port = server.getsockname()[1]
    try:
        ran = python(folder, f"""
            import socket
            for address in [("127.0.0.1", {port}), ("10.0.0.1", 80), ("1.1.1.1", 53)]:
                try:
                    socket.create_connection(address, timeout=2).close()
                    print("reached", address)
                except OSError as error:
                    print("refused", type(error).__name__)
        """)
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    assert b"reached" not in ran.stdout and ran.stdout.count(b"refused") == 3


def test_nothing_of_the_server_or_of_another_program_can_be_read(folder):
    with sandbox.workspace() as other:
        (other / "secret.py").write_text("TOKEN = 'theirs'")
        sandbox.handed_over(other)
        ran = read_all(folder, other)
    assert ran.returncode == 0, ran.stderr
    assert b"read " not in ran.stdout and ran.stdout.count(b"refused") == 7


def read_all(folder: Path, other: Path) -> sandbox.Ran:
    project = Path(__file__).resolve()
    return python(folder, f"""
        for path in ["/etc/passwd", "/etc/shadow", "/etc/hostname", {str(project)!r},
                     {str(other / "secret.py")!r}, f"/proc/{os.getpid()}/environ", "/root"]:
            try:
                open(path).read()
                print("read", path)
            except OSError as error:
                print("refused", type(error).__name__)
    """)


def test_nothing_can_be_written_outside_its_folder_and_its_tmp_is_its_own(folder):
    marker = uuid.uuid4().hex
    ran = python(folder, f"""
        import os
        for path in ["/usr/bin/evil", "/etc/evil", "/evil", "/proc/evil"]:
            try:
                open(path, "w").write("x")
                print("wrote", path)
            except OSError as error:
                print("refused", type(error).__name__)
        open("/tmp/{marker}", "w").write("private")
    """)
    assert ran.returncode == 0, ran.stderr
    assert b"wrote" not in ran.stdout and ran.stdout.count(b"refused") == 4
    assert not Path(f"/tmp/{marker}").exists()


def test_signals_reach_only_its_own_processes(folder):
    ran = python(folder, f"""
        import os, signal
        try:
            os.kill({os.getpid()}, signal.SIGTERM)
            print("sent")
        except OSError as error:
            print("refused", type(error).__name__)
        print("sees", len([name for name in os.listdir("/proc") if name.isdigit()]))
        try:
            os.kill(-1, signal.SIGKILL)  # every process it may signal but itself
            print("sent to all")
        except OSError as error:
            print("refused", type(error).__name__)
    """)
    assert ran.returncode == 0, ran.stderr
    said = ran.stdout.decode().splitlines()
    assert said[0] == "refused ProcessLookupError"  # the server's number names nothing
    assert int(said[1].split()[1]) <= 2  # bwrap's first process and its own
    assert said[2] in ("refused ProcessLookupError", "sent to all")
    assert os.getppid() > 1  # (and this test's process lives on)


def test_a_file_too_large_and_too_many_open_files_are_refused(folder):
    ran = python(folder, """
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        try:
            open("big", "wb").write(b"x" * (4 << 20))
            print("wrote big")
        except OSError as error:
            print("refused", error.errno)
        files = []
        try:
            while True:
                files.append(open("main.py"))
        except OSError as error:
            print("refused after", len(files))
    """, Limits(file_mb=1, open_files=32))
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.decode().splitlines()
    assert lines[0] == "refused 27"  # EFBIG
    assert lines[1].startswith("refused after") and int(lines[1].split()[2]) < 32
    assert (folder / "big").stat().st_size <= 1 << 20
