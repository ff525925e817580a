"""tests/databases.sh keeps the private PostgreSQL's and Redis's data where the user who
runs PostgreSQL can reach it, outside the checkout (which may be a 0700 folder, or under
/root): checked on the services this very run uses."""

import os
import pwd
import stat
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import ROOT


def data_dir() -> Path:
    port = urlparse(os.environ.get("DATABASE_URL", "")).port
    record = ROOT / "var" / "services" / f"data-dir.{port}"
    if port is None or not record.exists():
        pytest.skip("runs on the PostgreSQL that tests/databases.sh started (make test)")
    return Path(record.read_text().strip())


def reachable_by(user: pwd.struct_passwd, folder: Path) -> bool:
    """Whether the user may pass through every folder on the way to this one."""
    for step in [folder, *folder.parents]:
        mode = step.stat()
        if user.pw_uid == 0 or (mode.st_uid == user.pw_uid and mode.st_mode & stat.S_IXUSR):
            continue
        if mode.st_gid == user.pw_gid and mode.st_mode & stat.S_IXGRP:
            continue
        if not mode.st_mode & stat.S_IXOTH:
            return False
    return True


def test_the_data_is_outside_the_checkout_where_postgres_can_reach_it():
    data = data_dir()
    assert ROOT.resolve() not in data.resolve().parents
    runs_postgres = pwd.getpwuid((data / "pg").stat().st_uid)
    assert runs_postgres.pw_uid != 0  # PostgreSQL never runs as root
    assert reachable_by(runs_postgres, data / "pg")


def test_another_checkout_s_start_on_ports_in_use_says_so_and_touches_nothing(tmp_path):
    """A second checkout (a fresh clone) starting its services on the ports this run's
    occupy is refused with what to do, makes no data folder, and leaves them running:
    it used to run its tests on them silently, and its end stopped them."""
    import subprocess

    data_dir()  # (this run's services, started by tests/databases.sh)
    other = tmp_path / "clone"
    (other / "tests").mkdir(parents=True)
    (other / "tests" / "databases.sh").write_bytes((ROOT / "tests" / "databases.sh").read_bytes())
    ports = {"TEST_PG_PORT": str(urlparse(os.environ["DATABASE_URL"]).port),
             "TEST_REDIS_PORT": str(urlparse(os.environ["REDIS_URL"]).port),
             "SERVICES_TMP": str(tmp_path)}
    done = subprocess.run(["bash", str(other / "tests" / "databases.sh"), "start"],
                          env=dict(os.environ, **ports), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert f"Port {ports['TEST_PG_PORT']} is taken by a PostgreSQL of " in done.stderr
    assert "TEST_PG_PORT=" in done.stderr  # what to do instead
    assert not (other / "var").exists() and not list(tmp_path.glob("spectator-services.*"))
    ready = subprocess.run(["redis-cli", "-p", ports["TEST_REDIS_PORT"], "ping"],
                           capture_output=True, text=True, timeout=10)
    assert ready.stdout.strip() == "PONG"
