"""CPU jobs in processes of their own (matches/jobs.py): a job's answer or exception
comes back; a job past its budget is ended and said so; no process outlives its job,
nor its server, however the server ends; past its places, which all the processes of the
machine share, a job is refused at once."""

import multiprocessing
import operator
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from matches import jobs

ROOT = Path(__file__).resolve().parent.parent


def alive(pid: int) -> bool:
    """Whether a process of this id runs (a zombie, ended but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


class ChildrenSeen:
    """The child processes of this process seen while a block runs (sampled), besides
    those there before it."""

    def __init__(self) -> None:
        self.before = {child.pid for child in multiprocessing.active_children()}
        self.seen: set[int] = set()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self.done.is_set():
            self.seen |= {child.pid for child in multiprocessing.active_children()}
            time.sleep(0.01)

    def __enter__(self) -> "ChildrenSeen":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()
        self.seen -= self.before

    def wait_for_one(self, seconds: float = 30.0) -> int:
        """The first new child's id, once there is one."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            new = {child.pid for child in multiprocessing.active_children()} - self.before
            if new:
                return min(new)
            time.sleep(0.01)
        raise AssertionError("no child process started")


def gone_soon(pid: int, seconds: float = 20.0) -> bool:
    """Whether the process ends within a generous while (it is killed, not waited for)."""
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_the_fork_servers_modules_import_no_django():
    # What the fork server imports before any job (its start must not set up Django).
    program = ("import importlib, sys; from matches import jobs; "
               "[importlib.import_module(name) for name in jobs.PRELOAD if name != '__main__']; "
               "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_jobs_answer_and_its_exception_come_back(tmp_path):
    kind = jobs.Jobs("test", 1, tmp_path)
    assert kind.run(operator.add, 2, 3, seconds=30) == 5
    with pytest.raises(ZeroDivisionError):
        kind.run(operator.truediv, 1, 0, seconds=30)


def test_a_job_past_its_budget_is_ended_and_leaves_no_process(tmp_path):
    with ChildrenSeen() as children, pytest.raises(jobs.BudgetSpent):
        jobs.Jobs("test", 1, tmp_path).run(time.sleep, 600, seconds=0.5)
    assert children.seen, "the job had a process of its own"
    assert not any(alive(pid) for pid in children.seen)
    assert not {child.pid for child in multiprocessing.active_children()} & children.seen


def test_a_jobs_cpu_is_limited_to_its_budget_as_a_backstop(tmp_path):
    kind = jobs.Jobs("test", 1, tmp_path)
    soft, hard = kind.run(resource.getrlimit, resource.RLIMIT_CPU, seconds=3)
    assert 3 <= soft <= hard < 10


def test_a_job_asked_for_when_every_place_is_taken_is_refused_at_once(tmp_path):
    kind = jobs.Jobs("test", 1, tmp_path)
    ended = []

    def first() -> None:
        try:
            kind.run(time.sleep, 600, seconds=600)
        except jobs.JobFailed:
            ended.append("killed")

    with ChildrenSeen() as children:
        holder = threading.Thread(target=first)
        holder.start()
        job = children.wait_for_one()
        with pytest.raises(jobs.AllBusy):
            kind.run(operator.add, 1, 1, seconds=30)
        os.kill(job, signal.SIGKILL)  # the first job's process lost: its caller is told
        holder.join(30)
    assert ended == ["killed"]
    assert kind.run(operator.add, 1, 1, seconds=30) == 2  # its place is free again


def test_a_server_that_stops_ends_its_jobs_and_their_callers_are_answered(tmp_path):
    kind, ended = jobs.Jobs("test", 2, tmp_path), []

    def waiting() -> None:
        try:
            kind.run(time.sleep, 600, seconds=600)
        except jobs.JobFailed:
            ended.append("told")

    with ChildrenSeen() as children:
        callers = [threading.Thread(target=waiting) for _ in range(2)]
        for caller in callers:
            caller.start()
        deadline = time.monotonic() + 30
        while len(children.seen - children.before) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # (as the sampler has seen them: it must see both alive)
        jobs.stop_all()
        for caller in callers:
            caller.join(30)
    assert ended == ["told", "told"]
    assert len(children.seen) == 2 and not any(alive(pid) for pid in children.seen)


SERVER = """
import multiprocessing, sys, threading, time
from matches import jobs
threading.Thread(target=jobs.Jobs("test", 1, sys.argv[1]).run, args=(time.sleep, 600),
                 kwargs={"seconds": 600}, daemon=True).start()
while not multiprocessing.active_children():
    time.sleep(0.01)
print(multiprocessing.active_children()[0].pid, flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("ending", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_jobs_process_ends_with_its_server(ending, tmp_path):
    # Started as a terminal starts a server: Ctrl-C's SIGINT not ignored. (A suite started
    # in the background, `make test &`, ignores it, as a shell's background job does, and
    # a child inherits that: the server never heard the SIGINT, and this test waited its
    # 30 s, in two such runs.)
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        job = int(server.stdout.readline())
        assert alive(job)
        server.send_signal(ending)
        server.wait(30)
        assert gone_soon(job), "the job's process outlived its server"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_places_are_the_machines_shared_by_its_server_processes(tmp_path):
    # Another server process's job holds the one place: this process's is refused, until
    # that server has ended (however it ends, the kernel lets go of its place).
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        job = int(server.stdout.readline())
        kind = jobs.Jobs("test", 1, tmp_path)
        with pytest.raises(jobs.AllBusy):
            kind.run(operator.add, 1, 1, seconds=30)
        assert jobs.Jobs("other", 1, tmp_path).run(operator.add, 1, 1, seconds=30) == 2
        server.kill()
        server.wait(30)
        assert gone_soon(job)
        assert kind.run(operator.add, 2, 2, seconds=30) == 4
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
