"""The task engine of hosted programs (docs/programs.md, "Workers"): Celery, on the
Redis of REDIS_URL, or in the embedded default a queue of files under var/ (one
machine). A worker: `celery -A spectator worker --concurrency N` (`make serve` and
`make demo` start theirs); each hosted play of a team is one job."""

import logging
import os

from celery import Celery
from celery.signals import worker_init, worker_process_init, worker_ready

from matches.responsive import keep_responsive

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")

app = Celery("spectator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.include = ["matches.hosted.tasks"]


@worker_init.connect
@worker_process_init.connect
def _responsive(**_kwargs) -> None:
    """A worker plays matches (a hosted CHaser match's server runs in it): once its code
    is loaded, keep it out of the collector's full passes and let a waiting thread take
    the interpreter after 1 ms, as the servers and clocks do (matches/responsive.py)."""
    keep_responsive()


@worker_ready.connect
def _journals(**_kwargs) -> None:
    """A worker starting again on a machine where one died mid-game: the lines its
    journal kept (matches/services/local_journal.py) move into the database now, not at
    the next game's first line."""
    from matches.services import local_journal

    try:
        if local_journal.wanted():
            local_journal.recover()
    except Exception:  # (the database is not there yet: the next game's first line does)
        logging.getLogger(__name__).exception("journals of dead processes not moved")
