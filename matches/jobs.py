"""CPU work a visitor starts (a what-if's built-in players), each job in a process of its
own that cannot outlive its budget, its caller or its server.

A server's threads share one interpreter with the turn clock and the teams' answers, so
seconds of pure Python are spent in another process. Pictures have the drawing worker
(matches/drawing.py), which draws one at a time; a job here has a process to itself
instead, so that no picture waits behind it, and so that a job that runs too long can
be ended, by killing its process (a thread cannot be stopped, nor a shared worker's job).

- **Places.** A kind of job (`Jobs`) has a few places on the machine, shared by all its
  server processes (a venue runs several): each place a file in a folder of the
  server's, taken by locking it (flock, which the kernel lets go of when the process
  holding it ends, however it ends). A job asked for while they are all taken is
  refused at once (`AllBusy`), never queued. Each job costs a core and its memory
  (tens of MiB on the largest boards), so it is the machine that has a budget of them.
- **Budget.** The caller waits at most the job's `seconds` for its answer. When the
  wait ends, however it ends (the answer, the budget spent, an exception in the
  caller's thread), the process is killed if it still runs, and reaped. Its CPU time is
  limited to the budget too (RLIMIT_CPU, a little above), should its caller's thread
  never get to kill it.
- **Quick to start.** Each job's process is forked by multiprocessing's fork server, a
  process started once that has imported the jobs' pure modules (`PRELOAD`, no
  Django): a job starts in milliseconds (bench/jobs.py), where a fresh interpreter
  would take a second.
- **Nothing left behind.** A job's process watches its server and ends the moment the
  server does, however that ends (killed, say: a pidfd of the server, which the kernel
  makes readable when it ends); a server that exits normally kills its jobs first (they
  are daemonic), and one that is told to stop kills them at once (`stop_all`), so that
  it never waits for the requests that wait for them. A Ctrl-C at the terminal is the
  server's to handle: the job ignores it, and ends with the server. (The fork server
  ends once the server and its jobs have.)

Only pure functions of plain data are jobs: a job's function and arguments are pickled
to its process, and its answer, or the exception it raised, is pickled back.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import multiprocessing
import os
import resource
import select
import signal
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

# What the fork server imports once, so that no job imports it again: the server's main
# module (multiprocessing imports it in every process it starts: daphne's brings
# Twisted), this module, and the pure play of a what-if (its rules and players, numpy).
PRELOAD = ("__main__", "matches.jobs", "matches.variations")
CPU_SPARE = 1  # CPU seconds a job may use past its budget before the backstop ends it
_context_lock = threading.Lock()
_context: Any = None
_running: set[Any] = set()  # the processes of the jobs under way (`stop_all`)
_running_lock = threading.Lock()


class AllBusy(Exception):
    """Every place of a kind of job is taken on this machine: ask again shortly."""


class BudgetSpent(Exception):
    """The job needed more than its budget: its process was ended."""


class JobFailed(Exception):
    """The job's process ended without an answer (killed from outside, out of memory)."""


class Jobs:
    """A kind of job: at most `at_once` at a time on the machine, among all the processes
    that name the same `places` folder (made if missing)."""

    def __init__(self, name: str, at_once: int, places: Path | str) -> None:
        self.name = name
        self.at_once = at_once
        self.places = Path(places)

    def run(self, function: Any, *arguments: Any, seconds: float) -> Any:
        """`function(*arguments)` in a process of its own, waited for `seconds` at most:
        its answer, or the exception it raised. AllBusy when every place is taken,
        BudgetSpent past `seconds`, JobFailed when its process ended without answering."""
        with self._place():
            done, answer = _in_process(self.name, function, arguments, seconds)
        if not done:
            raise answer
        return answer

    @contextlib.contextmanager
    def _place(self) -> Any:
        """A free place, held (locked) until the job has ended; AllBusy if none is."""
        self.places.mkdir(parents=True, exist_ok=True)
        for number in range(self.at_once):
            # A file of its own each time: flock's locks belong to an opened file, so
            # two threads of one process exclude each other as two processes do.
            handle = os.open(self.places / f"{self.name}-{number}.place",
                             os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(handle)
                continue
            try:
                yield number
            finally:
                os.close(handle)  # (closing it lets go of the lock)
            return
        raise AllBusy(f"every place for a {self.name} is taken")


def _in_process(name: str, function: Any, arguments: tuple, seconds: float) -> tuple[bool, Any]:
    context = _fork_server()
    ours, theirs = context.Pipe(duplex=False)
    cpu = math.ceil(seconds) + CPU_SPARE
    process = context.Process(target=_job, args=(theirs, os.getpid(), cpu, function, arguments),
                              name=f"{name}-job", daemon=True)
    try:
        process.start()
        with _running_lock:
            _running.add(process)
        theirs.close()
        if not ours.poll(seconds):
            raise BudgetSpent(f"more than {seconds:g} s")
        try:
            return ours.recv()
        except EOFError:  # it ended without a word: its exit code says why
            process.join(5)
            if process.exitcode == -signal.SIGXCPU:
                raise BudgetSpent(f"more than {cpu} s of CPU") from None
            raise JobFailed(f"its process ended ({process.exitcode})") from None
    finally:
        _end(process)
        ours.close()
        theirs.close()
        with _running_lock:
            _running.discard(process)


def _end(process: Any) -> None:
    """Kill the job's process if it still runs, and reap it."""
    with contextlib.suppress(ValueError, AssertionError):  # never started, or closed
        if process.is_alive():
            process.kill()
        process.join(5)
        process.close()


def stop_all() -> None:
    """Kill every job under way (a server that stops: their callers, waiting, are
    answered at once, and the server need not wait for them). Never blocks."""
    with _running_lock:
        processes = list(_running)
    for process in processes:
        with contextlib.suppress(ValueError, AttributeError, ProcessLookupError):
            process.kill()


def _fork_server() -> Any:
    """The fork server's context, its modules to preload named before its start."""
    global _context
    with _context_lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(PRELOAD))
            _context = context
        return _context


def _job(answer: Connection, server: int, cpu_seconds: int, function: Any,
         arguments: tuple) -> None:
    """In the job's process: its limits, then the work, its answer sent back."""
    threading.Thread(target=_end_with, args=(server,), daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the server's
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file when its CPU is spent
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    try:
        reply: tuple[bool, Any] = (True, function(*arguments))
    except Exception as error:
        reply = (False, error)
    try:
        answer.send(reply)
    except (BrokenPipeError, OSError):
        pass  # its caller gave up
    except Exception:  # an answer that cannot be pickled: its words instead
        answer.send((False, RuntimeError(repr(reply[1]))))


def _end_with(server: int) -> None:
    """In the job's process: end it as soon as the process `server` has ended. (Not the
    job's parent, the fork server, which lives on while any job does.)"""
    try:
        handle = os.pidfd_open(server)
    except ProcessLookupError:
        os._exit(1)  # ended already
    except (OSError, AttributeError):  # no pidfd here (Linux < 5.3): ask twice a second
        while _exists(server):
            time.sleep(0.5)
        os._exit(1)
    select.select([handle], [], [])  # readable once the server has ended
    os._exit(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone (or its id another user's now)
        return False
    return True
