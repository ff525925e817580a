"""Two handed-in programs play a scrimmage with nobody at a keyboard (docs/programs.md):
built, queued, played by a Celery worker in sandboxes behind their doors on the real
server, their debug output kept, and the match verifies."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from matches.hosting import sandbox
from matches.models import HostedRun, Match, Submission
from matches.selectors import match_verify
from tests.conftest import ROOT, test_database_url

pytestmark = pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                or "the sandbox is available")

# A Kakomimasu program for the answer API, as a team writes it from docs/api.md: reads
# its match, answers each open step once, says what it did on standard error.
PLAYER = """
    import json, os, random, sys, time, urllib.error, urllib.request

    BASE, TOKEN, MATCH = (os.environ[name] for name in
                          ("SPECTATOR_URL", "SPECTATOR_TOKEN", "SPECTATOR_MATCH"))

    def call(method, path, body=None):
        request = urllib.request.Request(BASE + path, method=method, headers={
            "Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
            data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    answered = None
    while True:
        status, match = call("GET", f"/api/matches/{MATCH}")
        if match["status"] == "finished":
            break
        step = match.get("strategy_turn")
        if match["status"] == "running" and step and step != answered:
            board, state, me = match["board"], match["state"], match["you"]
            actions = [{"agent": agent, "type": "put",
                        "x": random.randrange(board["width"]),
                        "y": random.randrange(board["height"])}
                       for agent, cell in enumerate(state["agents"][me]) if cell is None]
            status, _ = call("POST", f"/api/matches/{MATCH}/actions",
                             {"turn": step, "actions": actions})
            print(f"turn {step}: {len(actions)} actions, {status}", file=sys.stderr,
                  flush=True)
            answered = step
        time.sleep(0.1)
"""


def start_worker(server: str, log: Path, concurrency: int = 2, **env) -> subprocess.Popen:
    """A Celery worker on the test database, its programs' doors to `server`, its jobs
    this test's alone (the queue's files or Redis database of this test process)."""
    from django.conf import settings

    if not os.environ.get("REDIS_URL"):  # what an earlier run left in the folder goes
        for left in settings.HOSTED_QUEUE_DIR.glob("*"):
            if left.is_file():  # (its folder of exchanges, control/, stays)
                left.unlink(missing_ok=True)
    with open(log, "w") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "spectator", "worker", "--pool", "threads",
             "--concurrency", str(concurrency), "--loglevel", "INFO", "--without-mingle",
             "--without-gossip"], cwd=ROOT, stdout=output, stderr=subprocess.STDOUT,
            env=dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1",
                     SPECTATOR_HOSTED_SERVER=server, **env), start_new_session=True)


def stop_worker(process: subprocess.Popen) -> None:
    """The worker ended at once, its plays with it (their sandboxes die with the thread
    that started them: bubblewrap's --die-with-parent). Not SIGQUIT, Celery's cold
    shutdown: it waits out the ticks of its event loop and its pool, 4-5 s each time.
    A test that asserts what the worker did waits for it first (played_out)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.fixture
def worker(live_server_process, tmp_path):
    process = start_worker(live_server_process, tmp_path / "worker.log")
    yield tmp_path / "worker.log"
    stop_worker(process)


def uploaded(tmp_path, capsys, text: str, teams: tuple[str, str], game: str) -> list[int]:
    """Two teams' programs handed in (the same Python source), as uploadprogram prints
    their ids."""
    source = tmp_path / "main.py"
    source.write_text(textwrap.dedent(text))
    ids = []
    for team in teams:
        call_command("uploadprogram", str(source), "--team", team, "--game", game,
                     "--language", "python")
        ids.append(int(capsys.readouterr().out.strip()))
    return ids


def scrimmaged(capsys, ids: list[int], *options: str) -> Match:
    call_command("scrimmage", *map(str, ids), *options)
    return Match.objects.get(pk=int(capsys.readouterr().out.strip()))


def played_out(match: Match, seconds: float = 90) -> bool:
    """Whether the match ended, and both its runs with it, within `seconds`."""
    return wait_for(lambda: Match.objects.get(pk=match.pk).over and set(
        HostedRun.objects.filter(match=match).values_list("status", flat=True))
        == {HostedRun.DONE}, seconds)


def test_two_uploaded_programs_play_a_scrimmage_unattended_and_it_verifies(
        worker, tmp_path, capsys):
    ids = uploaded(tmp_path, capsys, PLAYER, ("Kosen Nara", "Hà Nội"), "kakomimasu")
    match = scrimmaged(capsys, ids, "--board", "A-1", "--turns", "6", "--strategy-seconds", "1",
                       "--transition-seconds", "0.2")
    assert [team.seat.startswith("program:") for team in match.teams.all()] == [True, True]
    played_out(match)
    log = Path(worker).read_text()
    runs = list(HostedRun.objects.filter(match=match).order_by("team_index"))
    assert [run.status for run in runs] == ["done", "done"], log[-3000:]
    assert {run.ended_by for run in runs} <= {"match over", "exited"}, log[-3000:]
    for index in (0, 1):
        answers = Submission.objects.filter(match=match, team__index=index, status_code=202)
        assert answers.count() >= 1, log[-3000:]  # (a busy machine may start it late)
        said = Submission.objects.filter(match=match, team__index=index,
                                         detail__startswith="program output")
        assert said.exists() and " actions, 202" in bytes(said.first().body).decode()
    assert match_verify(Match.objects.get(pk=match.pk)).verified


def test_a_match_whose_worker_is_killed_is_void_and_not_played_again(
        tmp_path_factory, transactional_db, tmp_path, capsys):
    from tests.conftest import demo_server

    lost = {"SPECTATOR_HOSTED_LOST_SECONDS": "2"}
    with demo_server(tmp_path_factory, **lost) as server:
        ids = uploaded(tmp_path, capsys, PLAYER, ("Kosen Nara", "Hà Nội"), "kakomimasu")
        worker = start_worker(server, tmp_path / "worker.log", **lost)
        try:
            match = scrimmaged(capsys, ids, "--board", "A-1", "--turns", "60")
            assert wait_for(lambda: HostedRun.objects.filter(
                match=match, status=HostedRun.PLAYING).count() == 2, 60), \
                (tmp_path / "worker.log").read_text()[-3000:]
            os.killpg(worker.pid, signal.SIGKILL)  # the machine is gone, say
            worker.wait()
            assert wait_for(lambda: Match.objects.get(pk=match.pk).over, 30)
        finally:
            stop_worker(worker)
        ended = Match.objects.get(pk=match.pk)
        assert ended.result["decided_by"] == "void"
        assert "worker playing" in ended.result["reason"]
        runs = HostedRun.objects.filter(match=match)
        assert {(run.status, run.ended_by) for run in runs} == {("done", "its worker stopped")}


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False


# A Blokus Duo program as GPCC asked: its moves as 4-character codes on standard output,
# the other's read from standard input; which side it is from its environment. It plays
# its opening move, then nothing more (its clock runs out).
LINES = """
    import os, sys
    first = os.environ["SPECTATOR_FIRST"] == "1"
    mine = ["56u0"] if first else ["AAt0"]
    if first:
        print(mine.pop(), flush=True)
    for line in sys.stdin:
        print("heard", line.strip(), file=sys.stderr, flush=True)
        if mine:
            print(mine.pop(), flush=True)
"""


@pytest.mark.one_backend  # (the queue on Redis: the test above)
def test_programs_that_speak_lines_play_hosted_through_the_relay(worker, tmp_path, capsys):
    ids = uploaded(tmp_path, capsys, LINES, ("Blue team", "Orange team"), "blokus-duo")
    match = scrimmaged(capsys, ids, "--clock", "3")
    assert played_out(match, 60), Path(worker).read_text()[-3000:]
    ended = Match.objects.get(pk=match.pk)
    assert ended.result["decided_by"] == "time" and ended.result["winner"] == 1
    moves = {index: [row.actions[0]["move"] for row in Submission.objects.filter(
        match=match, team__index=index, status_code=202).exclude(actions=None)]
        for index in (0, 1)}
    assert moves == {0: ["56u0"], 1: ["AAt0"]}
    heard = {index: "".join(bytes(row.body).decode() for row in Submission.objects.filter(
        match=match, team__index=index, detail__startswith="program output"))
        for index in (0, 1)}
    assert "heard AAt0" in heard[0] and "heard 56u0" in heard[1]


# A Kakomimasu program that speaks the community server's v1 API, as its client library
# does (docs/dialects.md): joins with its token, reads the Game, acts with its pic.
V1 = """
    import json, os, random, sys, time, urllib.error, urllib.request

    BASE, TOKEN, MATCH = (os.environ[name] for name in
                          ("SPECTATOR_URL", "SPECTATOR_TOKEN", "SPECTATOR_MATCH"))

    def call(method, path, body=None, auth=None):
        request = urllib.request.Request(BASE + path, method=method, headers={
            "Authorization": auth or "Bearer " + TOKEN, "Content-Type": "application/json"},
            data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    status, joined = call("POST", f"/v1/matches/{MATCH}/players", {"spec": ""})
    print("joined", status, joined.get("index"), file=sys.stderr, flush=True)
    pic, me, acted = joined["pic"], joined["index"], None
    while True:
        status, game = call("GET", f"/v1/matches/{MATCH}", auth=pic)
        if game["status"] == "ended":
            break
        if game["status"] == "gaming" and game["turn"] != acted:
            width, height = game["field"]["width"], game["field"]["height"]
            agents = game["players"][me]["agents"]
            actions = [{"agentId": n, "type": "PUT", "x": random.randrange(width),
                        "y": random.randrange(height)}
                       for n, agent in enumerate(agents) if agent["x"] < 0]
            status, _ = call("PATCH", f"/v1/matches/{MATCH}/actions", {"actions": actions},
                             auth=pic)
            print(f"turn {game['turn']}: {status}", file=sys.stderr, flush=True)
            acted = game["turn"]
        time.sleep(0.1)
"""


def test_two_uploaded_programs_that_speak_the_v1_dialect_play_and_it_verifies(
        worker, tmp_path, capsys):
    ids = uploaded(tmp_path, capsys, V1, ("Kosen Nara", "Kushiro"), "kakomimasu")
    match = scrimmaged(capsys, ids, "--board", "A-1", "--turns", "6", "--strategy-seconds", "1",
                       "--transition-seconds", "0.2")
    assert played_out(match, 60), Path(worker).read_text()[-3000:]
    for index in (0, 1):
        answers = Submission.objects.filter(match=match, team__index=index, status_code=202,
                                            dialect="kakomimasu-v1").exclude(actions=None)
        # (a busy machine may start a program after the match's first turns: it answers
        # the rest)
        assert answers.count() >= 1, (list(Submission.objects.filter(match=match).values_list(
            "team__index", "status_code", "dialect", "detail", "note")),
            Path(worker).read_text()[-1500:])
    assert match_verify(Match.objects.get(pk=match.pk)).verified
