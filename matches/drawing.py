"""Board pictures drawn, and other heavy pure work done, in a process of their own.

Drawing a large board takes a second or more of pure Python; in a server's own process
it would hold the interpreter's lock against the turn clock and the teams' answers.
So `draw` hands the drawing (`picture.board_png`, pure) to one worker process, started
on the first picture (or forked at a venue server's start: `start_early`) and kept: the
server's threads only wait for its bytes. One worker draws one picture at a time; the
heavy reads' gate (matches/admission.py) bounds how many requests wait for it, and
`picture.DRAWN` keeps what it drew.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)
DRAW_SECONDS = 60  # the longest a picture is waited for

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


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
    by the worker: work too heavy for a server's own process (a what-if's built-in
    players, say), which only waits for its answer; its exceptions come back raised."""
    return _in_worker(function, *arguments)


def _in_worker(work: Any, *arguments: Any) -> Any:
    for attempt in (1, 2):  # a worker that died is started again once
        try:
            return _executor().submit(_done_lightly, work, *arguments).result(DRAW_SECONDS)
        except BrokenProcessPool:
            _forget()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


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


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = _new_pool("spawn")
        return _pool


def _new_pool(start_method: str) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=1, initializer=_worker_setup,
                               mp_context=multiprocessing.get_context(start_method))


def start_early() -> None:
    """Start the worker now, as a fork of this process, if this process has no other
    thread yet (a server's, at its start): the worker then shares every page of what the
    server loaded (Django, the rules) instead of loading its own copy, some 70 MB less.
    Otherwise (threads running: a fork is unsafe) the worker is spawned on the first
    picture, as ever."""
    global _pool
    if threading.active_count() != 1:
        return
    with _lock:
        if _pool is not None:
            return
        _pool = _new_pool("fork")
    try:
        _pool.submit(int).result(DRAW_SECONDS)  # (a fork pool starts its worker at its first job)
    except Exception as error:  # the server starts all the same: a spawned worker later
        log.warning("the drawing worker could not be forked: %r", error)
        _forget()


def _forget() -> None:
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """End the worker (a server that stops)."""
    _forget()


def _worker_setup() -> None:
    """The worker: Django's settings and translations (a picture's words are in the
    viewer's language); a Ctrl-C at the terminal is the server's to handle, not its; and
    it ends with its server, however that one ended (killed, say)."""
    import django

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = os.getppid()
    threading.Thread(target=_end_with, args=(server,), daemon=True).start()
    django.setup()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


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
