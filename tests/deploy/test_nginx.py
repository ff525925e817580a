"""deploy/nginx.conf, rendered by `make serve`'s script for two daphne processes: it
balances websockets and HTTP over them, serves /static/ itself, and passes on the
client's own address."""

import http.client
import json
import os
import shutil
import subprocess

import pytest

from matches.models import Submission
from tests.conftest import ROOT
from tests.deploy.checks import (
    STEP,
    assert_every_turn_once_in_order,
    assert_resolved_once_and_replayed,
)
from tests.deploy.conftest import Viewer, Watching, started
from tests.e2e.conftest import free_port, wait_for_port
from tests.factories import make_match, put

NGINX = shutil.which("nginx", path=os.environ.get("PATH", "") + os.pathsep + "/usr/sbin")
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (make serve "
                                "installs Debian's nginx-light)")


@pytest.fixture
def nginx(tmp_path):
    """Start nginx on a free port in front of the given daphne ports; its port."""
    processes = []

    def start(upstreams: list[int]) -> int:
        port = free_port()
        rendered = subprocess.run(
            ["bash", "deploy/serve.sh", "nginx-conf", str(port), str(ROOT / "static"),
             str(tmp_path), *map(str, upstreams)],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout
        (tmp_path / "nginx.conf").write_text(rendered)
        (tmp_path / "nginx-temp").mkdir()
        processes.append(subprocess.Popen(
            [NGINX, "-e", str(tmp_path / "nginx-error.log"), "-c", str(tmp_path / "nginx.conf"),
             "-g", "daemon off;"]))
        wait_for_port(port)
        return port

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def test_the_sample_is_valid_as_it_stands(tmp_path):
    checked = subprocess.run([NGINX, "-t", "-e", str(tmp_path / "error.log"),
                              "-c", str(ROOT / "deploy/nginx.conf")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_nginx_balances_websockets_and_http_over_the_servers(venue, nginx):
    ports = started(venue, servers=2, clocks=1)
    front = nginx(ports)
    match, tokens = make_match(turns=5, start_in=3, **STEP)
    viewers = Watching([Viewer(front, match.pk, since) for since in (None, 0, None, 0)])

    # A team's request from another address, claiming a third one: the stored address is
    # the one nginx saw.
    connection = http.client.HTTPConnection("127.0.0.1", front, source_address=("127.0.0.2", 0))
    connection.request("POST", f"/api/matches/{match.pk}/actions",
                       body=json.dumps({"actions": [put(0, 0, 0)]}),
                       headers={"Authorization": f"Bearer {tokens[0]}",
                                "Content-Type": "application/json",
                                "X-Forwarded-For": "203.0.113.9"})
    answer = connection.getresponse()
    assert answer.status == 409 and json.loads(answer.read())["error"] == "not_running"
    assert Submission.objects.get(match=match).remote_addr == "127.0.0.2"

    connection = http.client.HTTPConnection("127.0.0.1", front)
    connection.request("GET", "/static/matches/live.js")
    answer = connection.getresponse()
    assert answer.status == 200 and answer.getheader("Server", "").startswith("nginx")
    assert answer.read() == (ROOT / "static/matches/live.js").read_bytes()

    assert_every_turn_once_in_order(viewers.finish(), 5)
    for port in ports:  # least_conn spread the four sockets over both servers
        assert "WSCONNECT /ws/matches/" in venue.log(f"daphne-{port}")
    assert_resolved_once_and_replayed(match)
