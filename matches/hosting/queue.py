"""Handing work to the hosted programs' workers (spectator/celery.py): by the jobs'
names, through the project's engine, once the caller's transaction commits. Imports
nothing of the jobs themselves (matches/hosted/tasks.py), so that what makes a match
or a version never imports what plays it."""

from __future__ import annotations

from django.db import transaction


def build_soon(version_id: int) -> None:
    """Hand a version's build to the workers once the caller's transaction commits."""
    def send() -> None:
        from spectator.celery import app

        app.send_task("hosted.build", (version_id,))
    transaction.on_commit(send, robust=True)


def enqueue(run_ids: list[int]) -> None:
    """Hand the runs to the workers once the caller's transaction commits (by the task's
    name, through the project's engine: loaded here, not by every server process)."""
    def send() -> None:
        from spectator.celery import app

        for run_id in run_ids:
            app.send_task("hosted.play", (run_id,))
    transaction.on_commit(send, robust=True)
