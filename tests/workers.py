"""Loaded before Django's settings (`-p tests.workers` in pyproject.toml): each process of
a parallel run (pytest-xdist's gw0, gw1, …) gets Redis to itself.

pytest-django already gives each worker its own test database (test.sqlite3_gw0, …), and
both hand out match ids from 1, so two workers would meet in the channel layer's groups
("match-1") and the cache, and one test's `cache.clear()` would empty the other's. Each
worker therefore takes Redis database number 1 + its index, and a channel prefix of its
own (the pub/sub layer ignores the database number). The servers a test starts inherit
both through the environment.

The places of the jobs a visitor starts (matches/jobs.py: a what-if's, shared by every
process of the machine) are a worker's own too, or one worker's what-if would find the
places taken by another's and be refused as too busy."""

import os
from urllib.parse import urlparse, urlunparse

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # set by pytest-xdist in its workers

if WORKER.startswith("gw") and os.environ.get("REDIS_URL"):
    index = int(WORKER[2:])
    shared = urlparse(os.environ["REDIS_URL"])
    os.environ["REDIS_URL"] = urlunparse(shared._replace(path=f"/{1 + index % 15}"))
    os.environ["CHANNEL_LAYER_PREFIX"] = f"asgi-{WORKER}"

if WORKER:
    var = os.environ.get("SPECTATOR_VAR_DIR") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "var")
    os.environ["SPECTATOR_JOBS_DIR"] = os.path.join(var, f"jobs-{WORKER}")
    os.environ["SPECTATOR_QUEUE_DIR"] = os.path.join(var, f"queue-{WORKER}")  # its own jobs

# The servers the tests start play no hosted scrimmages of their own (`demo`'s worker):
# tests/hosting starts the workers it needs.
os.environ.setdefault("SPECTATOR_DEMO_HOSTED", "0")
# Nor ladder matches between the programs a test hands in (tests/hosting/
# test_ladder_of_programs.py sets the ladder's pace itself).
os.environ.setdefault("SPECTATOR_LADDER_GAMES_AN_HOUR", "0")
