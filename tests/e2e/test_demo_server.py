"""`manage.py demo` as a visitor meets it: one process serving pages and static files,
with DEBUG off as everywhere by default."""

import socket
import urllib.request

import pytest


@pytest.fixture(scope="module")
def demo(server_process) -> int:
    """The port of the test process's `demo --no-bots` server (tests/conftest.py):
    nothing here writes."""
    return int(server_process.rsplit(":", 1)[1])


def raw_get(port: int, path: str) -> tuple[int, bytes]:
    """The path sent exactly as written (as curl --path-as-is does): no client tidies it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     "Connection: close\r\n\r\n".encode())
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@pytest.mark.parametrize("path", [
    "/static/../spectator/settings.py", "/static/matches/../../spectator/settings.py",
    "/static/%2e%2e/spectator/settings.py", "/static/..%2fspectator/settings.py",
    "/static//etc/passwd", "/static/../../../../etc/passwd"])
def test_a_path_out_of_the_static_files_is_a_404(demo, path):
    status, body = raw_get(demo, path)
    assert status == 404, body[:300]
    assert b"SECRET_KEY" not in body and b"root:" not in body
    assert b"Not found" in body and b"Traceback" not in body


def test_static_files_and_pages_are_served_with_debug_off(demo):
    status, body = raw_get(demo, "/static/matches/app.css")
    assert status == 200 and b"--team-a" in body
    with urllib.request.urlopen(f"http://127.0.0.1:{demo}/") as page:
        assert page.status == 200 and b"Matches" in page.read()
    status, body = raw_get(demo, "/no-such-page/")
    assert status == 404 and b"All matches" in body and b"URLconf" not in body
