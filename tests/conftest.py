import contextlib
import gc
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Every server the tests start, and this process, take loopback for a venue's trusted
# network: the browser tests open page after page from one address. The tests of the
# caps themselves start their servers without it (UNTRUSTED).
os.environ["SPECTATOR_TRUSTED_NETWORKS"] = "127.0.0.0/8,::1/128"
UNTRUSTED = {"SPECTATOR_TRUSTED_NETWORKS": ""}


# Tests whose outcome cannot depend on the database or the channel layer: `make test`
# runs them on the embedded default only, not again on PostgreSQL and Redis (CI time).
# The rule: a test runs once if nothing it checks goes through the database, the cache
# or the channel layer (what the second pass swaps for PostgreSQL and Redis), in this
# process or in a server it starts. Pure rules and documents, the settings a fresh process
# reads, the replay command (a record in, a timeline out), the structure of the code
# (its layers, the front end's modules, the routes' declared costs), the CPU jobs'
# processes, and the browser tests of what pages do with what the server sends. Whatever
# stores, reads, locks, broadcasts or counts in the shared cache runs on both. The
# browser tests of the live path itself are marked `live_stack` and run on both: the
# venue screen following turns, the list's socket, a CHaser game step by step (and
# tests/deploy/ drives pages through Redis restarts and two servers).
ONE_BACKEND_FOLDERS = ("rules", "conformance", "i18n")
ONE_BACKEND_FILES = ("test_docs.py", "tournaments/test_pairing.py",
                     "tournaments/test_standings.py", "spectator/test_startup.py",
                     "spectator/test_settings.py", "spectator/test_settings_scaled.py",
                     "commands/test_replay.py", "commands/test_game_commands.py",
                     # the levels played against each other in-process, on the pure rules
                     "bots/test_blokus_duo_levels.py", "bots/test_level4.py",
                     # what a message, an origin or a route's cost is made of
                     "live/test_step_message.py", "live/test_origins.py",
                     "live/test_batches.py", "spectator/test_route_costs.py",
                     "protocol_servers/test_registry.py",
                     # the code's structure, and the suite's own helpers
                     "test_layers.py", "services/test_layers.py", "test_front_end.py",
                     "test_jobs.py", "test_test_helpers.py")


# Folders whose tests start servers and browsers, and the longest other files (each
# over half a minute): collected first, so that the test processes of a parallel run
# (make test hands the files out in this order) take these long files early and share
# the short ones out at the end, instead of one waiting while the other plays a browser
# file. First of all the hosted programs' tests, which wait for sandboxes, workers and
# clocks of seconds far more than they compute: beside the browser tests, which keep
# both cores busy, instead of at the end, where three of them together left the cores
# idle half the last minute of a pass.
WAITING_FOLDERS = ("hosting",)
SLOW_FOLDERS = ("e2e", "deploy", "dialects", "protocol_servers")
SLOW_FILES = ("services/test_clock.py", "spectator/test_settings.py", "api/test_fuzz.py",
              "api/test_client_example.py", "tournaments/test_runs.py",
              "rules/test_procon2020_properties.py", "rules/test_blokus_duo_properties.py",
              "rules/test_kakomimasu_properties.py")


# The test modules that use the shared server (SharedServer, below).
SERVER_MODULES: set[Path] = set()


def pytest_collection_modifyitems(config, items):
    def slow_first(item) -> int:  # (sorted stably: each file's tests keep their order)
        path = Path(item.path).relative_to(ROOT / "tests")
        if path.parts[0] in WAITING_FOLDERS:
            return 0
        return 1 if path.parts[0] in SLOW_FOLDERS or path.as_posix() in SLOW_FILES else 2

    SERVER_MODULES.update(Path(item.path) for item in items
                          if "server_process" in item.fixturenames)
    # and in each part the modules that use the shared server first: a test process
    # takes them one after the other, its server started once (it is stopped before a
    # module that does not use it: 28 starts a run, about 2 s of CPU each, when they
    # were handed out mixed)
    items.sort(key=lambda item: (slow_first(item), Path(item.path) not in SERVER_MODULES))
    for item in items:
        path = Path(item.path).relative_to(ROOT / "tests")
        pure = path.parts[0] in ONE_BACKEND_FOLDERS or path.as_posix() in ONE_BACKEND_FILES
        drawn = item.get_closest_marker("e2e") and not item.get_closest_marker("live_stack")
        if pure or drawn:
            item.add_marker(pytest.mark.one_backend)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test process's last test, its session's fixtures end, the test database
    with them: garbage collected first. A thread that has ended leaves its database
    connection open until its wrapper is collected, and PostgreSQL refuses to drop a
    database a session is still open on (after waiting 5 s for it, and leaving it in the
    cluster). A thread still running keeps its own: django_db_setup, below."""
    if nextitem is None:
        gc.collect()
    return (yield)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's, and before it drops the test database, the other sessions on it
    ended: a thread of this process still running (the announcer, the seats' driver,
    asgiref's executor) holds a connection out of the pool, which the pool's closing
    leaves open, and PostgreSQL waited 5 s, then refused to drop the database."""
    yield
    from django.db import connection

    database = connection.settings_dict
    if connection.vendor != "postgresql":
        return
    import psycopg

    own = connection.connection.info.backend_pid if connection.connection else 0
    with psycopg.connect(dbname="postgres", user=database["USER"], host=database["HOST"],
                         port=database["PORT"] or None, password=database["PASSWORD"] or None,
                         autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                      " WHERE datname = %s AND pid <> %s", [database["NAME"], own])


@pytest.fixture(autouse=True)
def _test_hosts(settings):
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
    settings.PASSWORD_HASHERS = ["tests.hashers.QuickPBKDF2"]  # tests/hashers.py: why


@pytest.fixture(autouse=True)
def _no_tarpit(monkeypatch):
    """Refusals are sent at once in the tests' own process (a server's holds each for a
    second: bench/attack.py shows why)."""
    from matches import admission

    monkeypatch.setattr(admission, "TARPIT_SECONDS", 0.0)


@pytest.fixture(autouse=True)
def _fresh_process_state():
    """Each test starts as a new process would: no kept values, counts or schedule of
    another test's (matches/caches.py keys its values so that none could mislead it;
    the counts and the schedule would)."""
    from django.core.cache import cache
    from django.utils import translation

    from matches.caches import caches_reset

    caches_reset()
    cache.clear()
    translation.deactivate()  # a request of an earlier test (?lang=vi) left its language on


def test_database_url() -> str:
    """A DATABASE_URL that reaches the database this test run uses."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}/{db['NAME']}"


test_database_url.__test__ = False  # a helper, not a test


def manage_start(*args, log_to=None, **more_env) -> subprocess.Popen:
    """A manage.py command as a process of its own on the test database."""
    env = dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1", **more_env)
    output = open(log_to, "w") if log_to else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                            stdout=output, stderr=subprocess.STDOUT)


def processes_stop(started: list[subprocess.Popen]) -> None:
    for process in started:
        if process.poll() is None:
            process.terminate()
    for process in started:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def spawn(transactional_db):
    """Start manage.py commands as real processes on the test database; stop them after."""
    started = []

    def start(*args, log_to=None, **more_env):
        started.append(manage_start(*args, log_to=log_to, **more_env))
        return started[-1]

    yield start
    processes_stop(started)


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port nothing listens on, and never one this process was given before: the
    kernel hands out a port it just gave again about once in 300 calls, and two servers
    asked for at once got the same one (a CHaser server refused '--ports 42389,42389')."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def wait_for_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port}")


def clock_idle_args() -> list[str]:
    """A test server's clock on the embedded default looks at the matches every 0.3 s
    when nothing wakes it: it hears of nothing the tests' process makes (SQLite has no
    NOTIFY, and the in-memory layer is each process's own), so it would find a test's
    new match, or its moved start, at its next idle tick only, 5 s away at most, which
    the browser tests waiting for a turn or an end waited out. (On PostgreSQL the
    NOTIFY wakes it, as in a venue: the default stays.)"""
    from django.db import connection

    return ["--idle-seconds", "0.3"] if connection.vendor == "sqlite" else []


@pytest.fixture
def untrusted_server_process(spawn, tmp_path):
    """As live_server_process, but loopback is no trusted network: a visitor's caps."""
    port = free_port()
    spawn("demo", "--no-bots", "--port", str(port), *clock_idle_args(),
          log_to=tmp_path / "server.log", **UNTRUSTED)
    wait_for_port(port)
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def live_server_process(server_process, transactional_db):
    """The whole system in one process (pages, API, sockets, clock) on the test database:
    the one the test process shares between its modules (below), reading the rows this
    test commits."""
    return server_process


@pytest.fixture(scope="module")
def server_process(shared_server, tmp_path_factory):
    """As live_server_process, for all the tests of a module, and for the modules that
    follow it in this test process while they ask for one too: each test still makes its
    own rows (transactional_db: committed, so the server reads them, and flushed after
    it). Nothing the server keeps can mislead the next test: its caches key every value
    by the match's identity (matches/caches.py), and a flushed id is not given again.
    (A server a module started about 35 a pass, a second of CPU each, on a machine the
    suite keeps busy.)"""
    return shared_server.base(tmp_path_factory)


class SharedServer:
    """`demo --no-bots` started at the first test that asks for it, stopped before the
    first test of a module that does not (whose own clocks must be the only ones to
    claim its turns), and at the end."""

    running: contextlib.ExitStack | None = None

    def base(self, tmp_path_factory) -> str:
        if self.running is None:
            self.running = contextlib.ExitStack()
            self.address = self.running.enter_context(demo_server(tmp_path_factory))
        return self.address

    def stop(self) -> None:
        if self.running is not None:
            self.running.close()
            self.running = None


SHARED_SERVER = SharedServer()


@pytest.fixture(scope="session")
def shared_server(django_db_setup):
    """(Stopped before the test database is dropped: PostgreSQL refuses to drop a database
    a server is still connected to.)"""
    yield SHARED_SERVER
    SHARED_SERVER.stop()


@pytest.fixture(autouse=True)
def _shared_server_only_where_asked(request):
    if Path(request.node.path) not in SERVER_MODULES:
        SHARED_SERVER.stop()


@contextlib.contextmanager
def demo_server(tmp_path_factory, **env):
    """`manage.py demo --no-bots` on a free port (with `env` besides the tests'), its
    address while it runs; stopped after."""
    port = free_port()
    server = manage_start("demo", "--no-bots", "--port", str(port), *clock_idle_args(),
                          log_to=tmp_path_factory.mktemp("server") / "server.log", **env)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        processes_stop([server])


@pytest.fixture
def judge_client(client):
    """The test client, logged in as a user with the judge permission."""
    from django.contrib.auth.models import Permission, User

    user = User.objects.create_user("judy", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    return client
