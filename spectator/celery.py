"""The task engine of hosted programs (docs/programs.md, "Workers"): Celery, on the
Redis of REDIS_URL, or in the embedded default a queue of files under var/ (one
machine). A worker: `celery -A spectator worker --concurrency N` (`make serve` and
`make demo` start theirs); each hosted play of a team is one job."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")

app = Celery("spectator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.include = ["matches.hosted.tasks"]
