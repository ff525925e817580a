"""The layout of several hosts (docs/deployment.md, "Several hosts"), each a network
namespace of its own with its own address (tests/deploy/hosts.py):

    database host 10.77.0.1   PostgreSQL :5432, Redis :6379 (the run's, relayed), and
                              the balancer, nginx :80 (deploy/nginx.conf with
                              deploy/nginx-upstream.conf's upstream of the web hosts)
    web-a         10.77.0.11  daphne :8000
    web-b         10.77.0.12  daphne :8000
    clock         10.77.0.13  manage.py runclock

A match is played; viewers on web-a and on web-b each get every turn once and in order.
In the middle of the match web-b dies (every process on it killed at once, its
interface gone); its viewers reconnect through the balancer, which finds web-b
unreachable and sends them to web-a, with the last turn they have (`?since=N`), and
they lose no turn.

Namespaces are made as any user may where the kernel allows unprivileged user
namespaces (Debian's default); where it does not, the test is skipped with the reason,
as the hosted programs' sandbox tests are (tests/hosting/)."""

import os
import sys
from urllib.parse import urlparse

import pytest

from matches.models import Submission
from tests.conftest import ROOT, test_database_url
from tests.deploy import hosts
from tests.deploy.checks import (
    STEP,
    assert_every_turn_once_in_order,
    assert_resolved_once_and_replayed,
    resolved,
)
from tests.deploy.conftest import Player, Viewer, Watching, wait_until
from tests.deploy.test_scaled_sharded_layer import start_in
from tests.factories import make_match

WHY_NOT = hosts.available()

# (the PostgreSQL + Redis pass of make test only: it needs both)
pytestmark = [pytest.mark.once_on_postgres,
              pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT or "namespaces can be made")]

TURNS = 8
WEB_PORT = 8000


def moved(url: str, address: str) -> str:
    """`url` with its host and port replaced by `address` (host:port)."""
    place = urlparse(url)
    login = place.netloc.rpartition("@")[0]
    return place._replace(netloc=f"{login}@{address}" if login else address).geturl()


def answering(process, port: int | None, log) -> bool:
    """Whether the server answers HTTP at `port` (None: whether it runs); a process that
    ended fails the test with the end of its log."""
    if process.poll() is not None:
        pytest.fail(f"{log.name} ended ({process.returncode}):\n{log.read_text()[-3000:]}")
    return port is None or hosts.serving(port)


@pytest.fixture
def network(transactional_db, tmp_path):
    made = hosts.Network(tmp_path)
    try:
        yield made
    finally:
        made.close()


def test_web_hosts_behind_a_balancer_and_one_killed_mid_match(network, tmp_path):
    database = test_database_url()
    redis_url = os.environ["REDIS_URL"]
    # the database host: the run's PostgreSQL and Redis at its address
    env = dict(
        os.environ, PYTHONUNBUFFERED="1",
        DATABASE_URL=moved(database, network.serve_inside(5432, urlparse(database).port)),
        REDIS_URL=moved(redis_url, network.serve_inside(6379, urlparse(redis_url).port)),
        # (the viewers come from the database host's address)
        SPECTATOR_TRUSTED_NETWORKS=f"{hosts.NETWORK}.0/24")
    web_a, web_b, clock = (network.host(name) for name in ("web-a", "web-b", "clock"))
    assert len({web_a.address, web_b.address, clock.address, hosts.DATABASE_HOST}) == 4

    match, tokens = make_match(turns=TURNS, start_in=3600, **STEP)
    servers = {}  # each server's process, by the name of its log
    for web in (web_a, web_b):
        servers[f"daphne-{web.name}"] = web.run(
            [sys.executable, "-m", "daphne", "-b", web.address, "-p", str(WEB_PORT),
             "--proxy-headers", "spectator.asgi:application"], f"daphne-{web.name}",
            env=env, cwd=ROOT)
    runclock = clock.run([sys.executable, "manage.py", "runclock"], "runclock", env=env,
                         cwd=ROOT)
    port_a, port_b = (network.reach(web.address, WEB_PORT) for web in (web_a, web_b))
    (tmp_path / "nginx").mkdir()
    (tmp_path / "nginx.conf").write_text(hosts.balancer_conf(
        f"{hosts.DATABASE_HOST}:80", [f"{web.address}:{WEB_PORT}" for web in (web_a, web_b)],
        tmp_path / "nginx"))
    servers["nginx"] = network.run(
        [hosts.tool("nginx"), "-e", str(tmp_path / "nginx" / "error.log"),
         "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"], "nginx")
    balancer = network.reach(hosts.DATABASE_HOST, 80)
    waiting = dict(zip(servers, (port_a, port_b, balancer), strict=True))
    wait_until(lambda: answering(runclock, None, tmp_path / "runclock.log") and all(
        answering(servers[name], port, tmp_path / f"{name}.log")
        for name, port in waiting.items()), "both web hosts and the balancer")

    start_in(match, 2)
    on_a = [Viewer(port_a, match.pk, since) for since in (None, 0)]
    on_b = [Viewer(port_b, match.pk, since) for since in (None, 0)]
    with Player([port_a], match.pk, tokens[0]):
        watching = Watching(on_a + on_b, seconds=60)
        # web-b's viewers have had a few turns; then web-b dies with turns still to come
        wait_until(lambda: all(len(viewer.turns) >= 3 for viewer in on_b), "turn 3 on web-b")
        assert resolved(match) < TURNS - 2
        for viewer in on_b:  # their next connection through the balancer
            viewer.port = balancer
        web_b.kill()
        assert not web_b.alive and not os.path.exists(f"/proc/{web_b.pid}")
        viewers = watching.finish()
    assert_every_turn_once_in_order(viewers, TURNS)
    assert [viewer.connections for viewer in on_a] == [1, 1]
    assert [viewer.connections for viewer in on_b] == [2, 2]
    assert_resolved_once_and_replayed(match)
    assert Submission.objects.filter(match=match, status_code__lt=300).exists()
    # web-b's viewers came back through the balancer (two websockets, from their turns)
    upgrades = [line for line in (tmp_path / "nginx" / "access.log").read_text().splitlines()
                if "/ws/matches/" in line and '" 101 ' in line]
    assert len(upgrades) == 2 and all("?since=" in line for line in upgrades), upgrades
    # each server listened on its own host's address
    for web in (web_a, web_b):
        assert f"{web.address}:{WEB_PORT}" in (tmp_path / f"daphne-{web.name}.log").read_text()
