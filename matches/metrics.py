"""The server's metrics for Prometheus (GET /metrics; README, "Operations"), summed over
every process of the venue layout that runs on the machine: each process (daphne, a
clock) writes its numbers to files of its own in PROMETHEUS_MULTIPROC_DIR (set in the
settings: var/metrics), and whichever process answers /metrics adds them all up, as
prometheus_client's multiprocess mode does.

- `spectator_requests_total{kind, status}`: HTTP requests answered, by kind (`answer`
  a team's actions, `api`, `dialect`, `page`, `static`, `operations`) and status class;
- `spectator_sockets_open`: websockets open, over the live processes;
- `spectator_turns_resolved_total{game}` and `spectator_turn_lateness_seconds{game}`:
  the turns the clocks resolved, and how long after its deadline each was;
- `spectator_answer_seconds{team}`: a team's accepted answer, from its step's opening to
  its arrival (practice matches' teams together as "practice").

Counting costs a few microseconds (a write to a memory-mapped file); nothing here ever
holds up a request or a turn.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from datetime import datetime

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from matches.paths import DIALECT_PREFIXES

REQUESTS = Counter("spectator_requests_total", "HTTP requests answered, by kind and status class",
                   ["kind", "status"])
SOCKETS = Gauge("spectator_sockets_open", "Websockets open", multiprocess_mode="livesum")
TURNS = Counter("spectator_turns_resolved_total", "Turns resolved by the clocks", ["game"])
LATENESS = Histogram("spectator_turn_lateness_seconds",
                     "How long after its deadline a timed turn was resolved", ["game"],
                     buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
ANSWERS = Histogram("spectator_answer_seconds",
                    "A team's accepted answer, from its step's opening to its arrival", ["team"],
                    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0))
CONTENT_TYPE = CONTENT_TYPE_LATEST

# the paths' kinds, by their first part (the dialects' from where they are served)
KINDS = {"api": "api", **{prefix.strip("/"): "dialect" for prefix in DIALECT_PREFIXES},
         "static": "static", "healthz": "operations", "metrics": "operations"}


def request_kind(path: str) -> str:
    first = path.lstrip("/").split("/", 1)[0]
    if first == "api" and path.endswith("/actions"):
        return "answer"
    return KINDS.get(first, "page")


def request_counted(path: str, status: int) -> None:
    REQUESTS.labels(request_kind(path), f"{status // 100}xx" if status else "none").inc()


def turn_resolved(game: str, lateness_seconds: float | None) -> None:
    TURNS.labels(game).inc()
    if lateness_seconds is not None:
        LATENESS.labels(game).observe(max(0.0, lateness_seconds))


def answer_taken(team: str, opened: datetime | None, received: datetime) -> None:
    if opened is not None:
        ANSWERS.labels(team).observe(max(0.0, (received - opened).total_seconds()))


def exposition() -> bytes:
    """Every process's numbers, summed, in Prometheus's text format."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry)


class Counted:
    """ASGI middleware: each HTTP request counted once answered (its status from the
    response's start), the lean answer path's too."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.application(scope, receive, send)
        status = 0

        async def sending(message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.application(scope, receive, sending)
        finally:
            request_counted(scope.get("path", ""), status)


def dead_forgotten() -> None:
    """Forget the numbers of processes that have ended (the demo calls it as it starts,
    so that its /metrics counts from then; `make serve` empties the folder before its
    processes start). A live process's files are never touched: another server (or test)
    sharing the folder keeps counting."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        return
    for name in os.listdir(folder):
        pid = name.removesuffix(".db").rpartition("_")[2]
        if name.endswith(".db") and pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True


@atexit.register
def _gone() -> None:
    """This process's live gauges stop counting once it ends (however it stops cleanly)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(os.getpid())
