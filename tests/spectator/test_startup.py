"""A process starts with what it needs: on the embedded default (SQLite, the in-memory
layer) Django's setup loads neither PostgreSQL's nor Redis's client, nor scipy (only a
Procon 2020 field's score needs it), nor Twisted (daphne's app, which only `runserver`
loads). Every command, server and clock process pays its imports at start; the test
suite starts a hundred of them."""

import os
import subprocess
import sys
import urllib.request

from tests.conftest import ROOT, free_port, wait_for_port

PROGRAM = """
import os, sys
import django
django.setup()
print(" ".join(sorted({name.split(".")[0] for name in sys.modules} & set(sys.argv[1:]))))
"""


def test_the_embedded_default_loads_no_client_it_does_not_use():
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "spectator.settings"
    done = subprocess.run([sys.executable, "-c", PROGRAM, "psycopg", "redis", "channels_redis",
                           "scipy", "twisted"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def test_runserver_still_serves_through_daphne(spawn, tmp_path):
    """`manage.py runserver` (docs/api.md's example) is daphne's ASGI server, websockets
    and all, not Django's WSGI one."""
    port = free_port()
    spawn("runserver", "--noreload", f"127.0.0.1:{port}", log_to=tmp_path / "server.log")
    wait_for_port(port)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=20) as answer:
        assert answer.headers["Server"] == "daphne"


def test_a_server_keeps_its_loaded_code_out_of_full_collections_and_switches_quickly():
    """A server (spectator.asgi, as daphne loads it) freezes what it loaded and lets a
    waiting thread (the answers', the event loop) take the interpreter after 1 ms: behind a
    thread building a large read, a team's answer otherwise waited 5 ms at each of its
    turns (bench/attack.py)."""
    program = ("import gc, sys, spectator.asgi; "
               "print(sys.getswitchinterval(), gc.get_freeze_count() > 10_000)")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.001", "True"]
