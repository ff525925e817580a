"""A process starts with what it needs: on the embedded default (SQLite, the in-memory
layer) Django's setup loads neither PostgreSQL's nor Redis's client, nor scipy (only a
Procon 2020 field's score needs it). Every command, server and clock process pays its
imports at start; the test suite starts a hundred of them."""

import os
import subprocess
import sys

from tests.conftest import ROOT

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
                           "scipy"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
