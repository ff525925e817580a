"""What a request costs the server before and in its view: python bench/requests.py [--count 200]

In this process, on a scratch SQLite database with a public Kakomimasu match: the CPU
time (and wall time) of a request sent through the whole ASGI application
(`spectator.asgi.application`: the gates, the answer door, Django's handler with its
middleware chain), through our handler alone (spectator/handler.py: the chain in one
hop) and through Django's own ASGIHandler (two hops a middleware), for a match's state,
a page of no route (the project's 404) and a missing static file; then the same read
through Django's test client (no ASGI at all). The difference is what serving costs beside
the view (issue "Work in proportion to what happens": one hop to a thread a request).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    count = parser.parse_args().count
    os.environ.update(SPECTATOR_VAR_DIR=tempfile.mkdtemp(prefix="bench-requests-"),
                      LOG_LEVEL="ERROR", SPECTATOR_TRUSTED_NETWORKS="127.0.0.0/8")
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django

    django.setup()
    from django.core.handlers.asgi import ASGIHandler
    from django.core.management import call_command
    from django.test import Client

    from matches.models import Match
    from spectator.asgi import application, django_asgi
    from tests.asgi import asgi_get

    logging.getLogger("django.request").setLevel(logging.ERROR)  # (the 404s, each logged)

    call_command("migrate", verbosity=0)
    call_command("creatematch", "--board", "A-1", "--teams", "A", "B", "--start-in", "0",
                 "--strategy-seconds", "100", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    match = Match.objects.get()
    Match.objects.update(public_live=True)
    paths = [f"/api/matches/{match.pk}", "/no-such-page", "/static/no-such-file"]

    async def run() -> None:
        for name, app in (("whole ASGI application", application),
                          ("our handler alone", django_asgi),
                          ("Django's own ASGIHandler", ASGIHandler())):
            for path in paths:
                status, _, _ = await asgi_get(app, path)
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in range(count):
                    await asgi_get(app, path)
                print(f"{name:24s} {path:24s} {status}  "
                      f"{(time.process_time() - cpu) / count * 1000:5.2f} ms CPU, "
                      f"{(time.perf_counter() - wall) / count * 1000:5.2f} ms wall")

    asyncio.run(run())
    client = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="127.0.0.1")
    client.get(paths[0])
    cpu = time.process_time()
    for _ in range(count):
        client.get(paths[0])
    print(f"{'test client (no ASGI)':24s} {paths[0]:24s} 200  "
          f"{(time.process_time() - cpu) / count * 1000:5.2f} ms CPU")


if __name__ == "__main__":
    main()
