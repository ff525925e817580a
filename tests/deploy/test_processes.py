"""Several processes as one system (two daphne servers, two clocks, one Redis, one
PostgreSQL), and two faults: a clock killed, everything stopped and started again."""

import signal

from django.utils import timezone

from tests.deploy.checks import (
    STEP,
    assert_every_turn_once_in_order,
    assert_resolved_once_and_replayed,
    resolved,
    viewers_of,
)
from tests.deploy.conftest import Player, Viewer, Watching, started, wait_until
from tests.factories import make_match


def test_viewers_on_two_servers_get_every_turn_once_in_order(venue):
    ports = started(venue, servers=2, clocks=2)
    match, tokens = make_match(turns=6, start_in=3, **STEP)
    with Player(ports, match.pk, tokens[0]):
        viewers = Watching(viewers_of(match, ports)).finish()
    assert_every_turn_once_in_order(viewers, 6)
    assert_resolved_once_and_replayed(match)


def test_a_clock_killed_mid_match_leaves_the_rest_to_the_other(venue):
    ports = started(venue, servers=2, clocks=0)
    victim, survivor = venue.clock(), venue.clock()
    match, tokens = make_match(turns=8, start_in=3, **STEP)
    with Player(ports, match.pk, tokens[0]):
        watching = Watching(viewers_of(match, ports))
        wait_until(lambda: resolved(match) >= 3, "turn 3")
        venue.stop(victim, signal.SIGKILL)
        killed_at = resolved(match)
        viewers = watching.finish()
    assert killed_at < match.turns and survivor.poll() is None
    assert_every_turn_once_in_order(viewers, 8)
    assert_resolved_once_and_replayed(match)


def test_a_restart_of_everything_resumes_and_viewers_get_what_they_missed(venue):
    ports = started(venue, servers=2, clocks=2)
    # Longer turns: the match must outlast stopping and starting every process.
    match, tokens = make_match(turns=14, start_in=3, strategy=0.8, transition=0.2)
    with Player(ports, match.pk, tokens[0]):
        watching = Watching(viewers_of(match, ports))
        wait_until(lambda: resolved(match) >= 2, "turn 2")
        venue.stop_all()
        stopped_at = resolved(match)
        missed = stopped_at + 2  # deadlines that pass while nothing runs
        wait_until(lambda: timezone.now() > match.deadline(missed), f"turn {missed}'s deadline")
        assert resolved(match) == stopped_at
        for port in ports:
            venue.server(port)
        venue.clock()
        venue.clock()
        # And one that comes back only now, with the last turn it had before the stop.
        late = Watching([Viewer(ports[1], match.pk, since=stopped_at)])
        viewers = watching.finish()
        [late] = late.finish()
    assert stopped_at < match.turns
    assert all(viewer.connections >= 2 for viewer in viewers), viewers  # each came back
    assert_every_turn_once_in_order(viewers, 14)
    assert late.ended and late.turns == list(range(stopped_at + 1, 15)), late
    assert_resolved_once_and_replayed(match)


def test_healthz_and_metrics_speak_for_the_whole_venue(venue, tmp_path):
    """/healthz on each server sees the clock's heartbeat through Redis; /metrics on one
    server sums what every process counted: the answers both servers took, and the
    turns the clock (a process of its own) resolved."""
    import json
    import urllib.error
    import urllib.request

    folder = tmp_path / "metrics"
    folder.mkdir()
    venue.env["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    ports = started(venue, servers=2, clocks=1)

    def health(port: int) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read())

    wait_until(lambda: all(health(port)[0] == 200 for port in ports), "both servers healthy")
    assert health(ports[1])[1]["checks"]["channel_layer"]["ok"]
    match, tokens = make_match(turns=4, start_in=2, **STEP)
    with Player(ports, match.pk, tokens[0]):  # its answers go to each server in turn
        wait_until(lambda: resolved(match) == 4, "the match's four turns", seconds=60)
    with urllib.request.urlopen(f"http://127.0.0.1:{ports[0]}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    samples = dict(line.rsplit(" ", 1) for line in text.splitlines()
                   if line and not line.startswith("#"))
    assert float(samples['spectator_turns_resolved_total{game="kakomimasu"}']) == 4
    assert float(samples['spectator_requests_total{kind="answer",status="2xx"}']) == 4
    assert float(samples['spectator_answer_seconds_count{team="Alpha"}']) == 4


def test_a_pause_holds_both_clocks_and_a_resume_lets_them_go_on_exactly_once(venue):
    """Two servers, two clocks: while the judges hold the match no clock resolves a turn,
    however many deadlines pass; after the resume each turn is resolved once, and every
    viewer gets every turn once and in order."""
    from matches.services.control import match_pause, match_resume

    ports = started(venue, servers=2, clocks=2)
    match, tokens = make_match(turns=8, start_in=3, **STEP)
    with Player(ports, match.pk, tokens[0]):
        watching = Watching(viewers_of(match, ports))
        wait_until(lambda: resolved(match) >= 2, "turn 2")
        match_pause(match_id=match.pk, reason="a fire drill", judge="judy")
        held = resolved(match)
        match.refresh_from_db()
        paused_at = match.paused_at
        wait_until(lambda: timezone.now() > paused_at + 4 * match.period, "four steps' time")
        assert resolved(match) == held  # no deadline passes while it is held
        match_resume(match_id=match.pk, judge="judy")
        viewers = watching.finish()
    assert_every_turn_once_in_order(viewers, 8)
    assert_resolved_once_and_replayed(match)
    match.refresh_from_db()
    assert [entry["action"] for entry in match.control_log] == ["pause", "resume"]


def test_a_venue_s_servers_have_their_pictures_drawn_by_the_machine_s_one_worker(venue):
    """deploy/serve.sh's layout: one `rundrawing` for the machine, each server handed its
    socket: both servers' pictures are drawn there, and no server starts a worker."""
    import urllib.request
    from pathlib import Path

    from tests.e2e.conftest import wait_for_port

    match, _ = make_match()
    address = str(venue.logs / "drawing.sock")
    drawer = venue._start("drawing", "manage.py", "rundrawing", "--socket", address)
    venue.env["SPECTATOR_DRAWING_SOCKET"] = address
    wait_until(lambda: Path(address).exists(), "the drawing worker's socket")
    servers = [venue.server() for _ in range(2)]

    def children(process) -> list[str]:
        found = []
        for task in Path(f"/proc/{process.pid}/task").iterdir():
            try:  # a thread of the server may end between the listing and the reading
                found += (task / "children").read_text().split()
            except FileNotFoundError:
                continue
        return found

    for server, port in servers:
        wait_for_port(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/matches/{match.pk}/board.png",
                                    timeout=30) as answer:
            assert answer.headers["Content-Type"] == "image/png"
            assert answer.read(8) == b"\x89PNG\r\n\x1a\n"
        assert children(server) == []  # drawn by the machine's worker, not one of its own
    assert drawer.poll() is None
