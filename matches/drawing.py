"""Board pictures and clips drawn in a process of their own.

Drawing a large board takes a second or more of pure Python; in a server's own process
it would hold the interpreter's lock against the turn clock and the teams' answers.
So `draw` hands the drawing (`picture.board_png`, pure) to a worker process, and the
server's threads only wait for its bytes. The worker is either

- **the machine's** (`manage.py rundrawing`, deploy/serve.sh starts it): one process
  draws for every server of the machine, which reach it at the Unix socket named by
  `SPECTATOR_DRAWING_SOCKET` (`serve`). So a venue's pictures take one core at most,
  whatever the number of servers, and one copy of Django is in memory for them all; or
- **the server's own**, started on the first picture and kept: where no socket is
  set (the demo, one server), or while the machine's cannot be reached (it is logged).

A worker draws one picture at a time; the heavy reads' gate (matches/admission.py)
bounds how many requests of a server wait for it, and `picture.DRAWN` keeps what it drew.
Work a visitor can make as long as it likes (a what-if's built-in players) is not done
here, where a picture would wait behind it and a job cannot be stopped once begun: it
runs in a process of its own under a budget (matches/jobs.py).

The socket is made readable and writable by its owner only: whoever may use it may
already run anything as the servers' user, so the work it carries (pickled) is trusted.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import socket
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from django.conf import settings

from matches.workers import Worker

log = logging.getLogger(__name__)
DRAW_SECONDS = 60  # the longest a picture is waited for
CONNECT_SECONDS = 2.0  # the longest the machine's worker is waited for to take a job
WARN_EVERY = 60.0  # seconds between two warnings that the machine's worker is unreachable

_warned_at = -WARN_EVERY


def draw(game: str, board: dict[str, Any], state: dict[str, Any], language: str,
         **what: Any) -> bytes:
    """The PNG of `state` on `board`, drawn by the worker in `language`; `what` is
    `picture.board_png`'s keywords (title, teams, turns, taken, previous, result)."""
    return _in_worker(_draw, game, board, state, language, what)


def clip(game: str, board: dict[str, Any], states: list[dict[str, Any]], language: str,
         **what: Any) -> bytes:
    """The GIF of `states` on `board`, drawn by the worker in `language`; `what` is
    `clips.clip_gif`'s keywords (teams, turns, frame_ms, theme, taken)."""
    return _in_worker(_clip, game, board, states, language, what)


def work(function: Any, *arguments: Any) -> Any:
    """`function(*arguments)` (a module's pure function, its arguments plain data) done
    by the worker, as a picture is: work of bounded length, too heavy for a server's own
    process, which only waits for its answer; its exceptions come back raised. (Work of
    unbounded length is a job: matches/jobs.py.)"""
    return _in_worker(function, *arguments)


def _in_worker(work: Any, *arguments: Any) -> Any:
    address = settings.DRAWING_SOCKET
    if address:
        try:
            done, value = _at_machine_worker(address, work, arguments)
        except (FileNotFoundError, ConnectionError, EOFError) as error:  # gone, or going
            _warn_unreachable(address, error)
        else:
            if not done:
                raise value
            return value
    return WORKER.run(_done_lightly, work, *arguments, seconds=DRAW_SECONDS)


def _at_machine_worker(address: str, work: Any, arguments: tuple) -> tuple[bool, Any]:
    """`work(*arguments)` done by the machine's worker (`serve`): (True, its value) or
    (False, its exception). A worker that ends during the work: EOFError or a
    ConnectionError."""
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        raw.settimeout(CONNECT_SECONDS)
        raw.connect(address)
        raw.setblocking(True)
        link = Connection(raw.detach())
    finally:
        raw.close()
    with link:
        link.send((work, arguments))
        if not link.poll(DRAW_SECONDS):
            raise TimeoutError(f"the drawing worker did not answer in {DRAW_SECONDS} s")
        return link.recv()


def _warn_unreachable(address: str, error: Exception) -> None:
    global _warned_at
    if time.monotonic() - _warned_at >= WARN_EVERY:
        _warned_at = time.monotonic()
        log.warning("the machine's drawing worker (%s) cannot be reached (%s): this server "
                    "draws in a worker of its own meanwhile", address, error)


def _done_lightly(work: Any, *arguments: Any) -> Any:
    """In the worker: the work, then the memory its images took handed back to the
    system (the C allocator keeps freed memory otherwise: some 20 MB a large board),
    so that a worker idle between pictures costs what it did before them."""
    try:
        return work(*arguments)
    finally:
        _trim()


def _trim() -> None:
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to hand back
        ctypes.CDLL(None).malloc_trim(0)


def shutdown() -> None:
    """End the worker (a server that stops)."""
    WORKER.forget()


def serve(address: str) -> None:
    """The machine's drawing worker: listen at the Unix socket `address` and do each job
    a server sends (a connection, a job), one at a time, until KeyboardInterrupt (its
    command turns SIGTERM into one). Refuses to start if another worker answers there."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with probe, contextlib.suppress(FileNotFoundError, ConnectionRefusedError):
        probe.connect(address)
        raise OSError(f"another drawing worker is listening at {address}")
    for path in (address, address + ".new"):  # left by a worker that was killed
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)  # the socket: its owner's alone
    try:
        listener.bind(address + ".new")
    finally:
        os.umask(mask)
    one_at_a_time = threading.Lock()
    try:
        with listener:
            listener.listen(128)
            os.rename(address + ".new", address)  # there once it takes jobs, not before
            while True:
                raw, _ = listener.accept()
                threading.Thread(target=_answer, args=(Connection(raw.detach()), one_at_a_time),
                                 name="drawing-job", daemon=True).start()
    finally:
        for path in (address, address + ".new"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _answer(link: Connection, one_at_a_time: threading.Lock) -> None:
    """One server's job, done and answered: (True, its value) or (False, its exception)."""
    with link:
        try:
            work, arguments = link.recv()
        except (EOFError, OSError):
            return  # the server left before it asked
        except Exception as error:  # something that is no job: said so, and nothing done
            reply: tuple[bool, Any] = (False, ValueError(f"not a drawing job: {error!r}"))
        else:
            with one_at_a_time:
                if link.poll():  # the server closed it while it waited: gave up on it
                    return
                try:
                    reply = (True, _done_lightly(work, *arguments))
                except Exception as error:
                    reply = (False, error)
        try:
            link.send(reply)
        except OSError:
            pass  # the server left (it gave up waiting)
        except Exception:  # an exception that cannot be pickled: its words instead
            link.send((False, RuntimeError(repr(reply[1]))))


def _worker_setup() -> None:
    """The worker's own start (after matches/workers.py's): Django's settings and
    translations (a picture's words are in the viewer's language)."""
    import django

    django.setup()


# This server's own worker, when the machine has none (a server of the demo's kind)
WORKER = Worker("drawing", _worker_setup)


def _draw(game: str, board: dict[str, Any], state: dict[str, Any], language: str,
          what: dict[str, Any]) -> bytes:
    from django.utils import translation

    from matches import picture
    from matches.rules import rules_for

    with translation.override(language):
        return picture.board_png(rules_for(game), board, state, **what)


def _clip(game: str, board: dict[str, Any], states: list[dict[str, Any]], language: str,
          what: dict[str, Any]) -> bytes:
    from django.utils import translation
    from django.utils.translation import gettext

    from matches import clips
    from matches.rules import rules_for

    with translation.override(language):
        # Translators: the turn in a clip's strip, e.g. "turn 12 / 30"
        return clips.clip_gif(rules_for(game), board, states, turn_word=gettext("turn"), **what)
