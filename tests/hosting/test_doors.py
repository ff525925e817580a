"""A hosted program reaches its own match and nothing else (matches/hosting/doors.py,
launch.py; docs/programs.md, "The way to its match"): through the doors of its sandbox
it reads its match and answers on the real server, while every other address, and the
network itself, stays shut."""

import json
import textwrap
from urllib.parse import urlsplit

import pytest

from matches.hosting import sandbox
from matches.hosting.doors import Doors, hosted_command, match_doors
from matches.models import Submission
from tests.factories import make_match

pytestmark = pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                or "the sandbox is available")


def test_the_doors_of_a_match_let_through_its_own_requests_only():
    allowed = match_doors(7)
    for method, path in (("GET", "/api/matches/7"), ("POST", "/api/matches/7/actions"),
                         ("POST", "/api/matches/7/output"), ("GET", "/v1/matches/7"),
                         ("POST", "/v1/matches/7/players"), ("PATCH", "/v1/matches/7/actions"),
                         ("GET", "/procon30/matches/7"), ("POST", "/procon31/matches/7/action"),
                         ("GET", "/procon30/matches"), ("GET", "/procon31/teams/me"),
                         ("GET", "/procon30/ping"), ("GET", "/version")):
        assert allowed(method, path), (method, path)
    for method, path in (("GET", "/api/matches/70"), ("GET", "/api/matches/8"),
                         ("POST", "/api/practice"), ("POST", "/v1/matches/ai/players"),
                         ("POST", "/v1/matches/free/players"), ("GET", "/judges/"),
                         ("GET", "/admin/"), ("GET", "/api/matches/7/../8"),
                         ("GET", "/api/matches/7//x"), ("POST", "/procon30/matches"),
                         ("GET", "/matches/7/"), ("GET", "/metrics")):
        assert not allowed(method, path), (method, path)


PROGRAM = """
    import json, os, socket, sys, urllib.error, urllib.request

    base, token, match = (os.environ[name] for name in
                          ("SPECTATOR_URL", "SPECTATOR_TOKEN", "SPECTATOR_MATCH"))

    def call(method, path, body=None):
        request = urllib.request.Request(base + path, method=method, data=body, headers={
            "Authorization": "Bearer " + token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=20) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    said = {}
    status, state = call("GET", f"/api/matches/{match}")
    said["own"] = [status, state.get("turn") if isinstance(state, dict) else None]
    said["other"] = call("GET", f"/api/matches/{int(match) + 1}")
    said["judges"] = call("GET", "/judges/")[0]
    said["practice"] = call("POST", "/api/practice", b"{}")[0]
    body = json.dumps({"actions": [{"agent": 0, "type": "put", "x": 0, "y": 0}]}).encode()
    said["answer"] = call("POST", f"/api/matches/{match}/actions", body)[0]
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()
        said["server_port"] = "reached"
    except OSError as error:
        said["server_port"] = type(error).__name__
    print(json.dumps(said))
"""


def test_a_hosted_program_answers_its_own_match_and_reaches_nothing_else(
        live_server_process):
    match, tokens = make_match(start_in=-1.0, strategy=3600.0, turns=3)
    server_port = urlsplit(live_server_process).port
    with sandbox.workspace() as folder, Doors(folder) as doors:
        (folder / "main.py").write_text(textwrap.dedent(PROGRAM))
        sandbox.handed_over(folder)
        doors.http(8000, live_server_process, match_doors(match.pk))
        argv, ro_binds = hosted_command(doors, ["python3", "main.py", str(server_port)])
        ran = sandbox.run(argv, folder, sandbox.Limits(), wall_seconds=60, env={
            "SPECTATOR_URL": "http://127.0.0.1:8000", "SPECTATOR_TOKEN": tokens[0],
            "SPECTATOR_MATCH": str(match.pk)}, binds=doors.binds(), ro_binds=ro_binds)
    assert ran.returncode == 0, ran.stderr.decode()
    said = json.loads(ran.stdout)
    assert said["own"] == [200, 0]
    assert said["other"] == [403, {"error": "not_your_match", "detail":
                                   "a hosted program reaches only its own match "
                                   "(docs/programs.md)"}]
    assert said["judges"] == 403 and said["practice"] == 403
    assert said["answer"] == 202
    assert said["server_port"] == "ConnectionRefusedError"  # its own loopback: nothing there
    stored = Submission.objects.get(match=match, team__index=0)
    assert stored.status_code == 202 and stored.actions[0]["type"] == "put"
