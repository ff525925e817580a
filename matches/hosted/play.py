"""A hosted program plays one team of one match (docs/programs.md, "Hosted play"): its
built version started in a sandbox behind the doors to its match, with a token made for
this run (the team's earlier one stops working, so no secret travels through the task
queue); what it prints on standard error kept as its debug output; ended with every
process in it when its match is over, when it exits, or at the match's last moment."""

from __future__ import annotations

import contextlib
import io
import logging
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from matches.hosting import sandbox
from matches.hosting.doors import Doors, hosted_command, match_doors
from matches.hosting.languages import LANGUAGES
from matches.hosting.lines import LineRelay, RelayError, Server
from matches.models import HostedRun, Match, ProgramVersion, Team
from matches.rules import rules_for
from matches.services.programs import program_unpacked
from matches.services.submissions import submission_output
from matches.services.tokens import token_reissue

log = logging.getLogger(__name__)

PLAY_LIMITS = sandbox.Limits(cpu_seconds=600, memory_mb=1024, processes=64, file_mb=64,
                             open_files=128, tmp_mb=64)
PORT = 8000  # where the server is, inside the sandbox
DEBUG_LIMIT = 64 << 10  # debug output kept a match
DEBUG_EVERY = 1.0  # seconds between two stores of it
MATCH_MARGIN = timedelta(seconds=30)  # after the match's last deadline
WATCH_SECONDS = 0.5  # how often the match is looked at


@dataclass
class Played:
    """How a hosted program's run ended."""
    returncode: int | None  # None: it was still running when it was ended
    reason: str  # "match over", "exited", "out of time", "not ready"
    debug_bytes: int = 0

    @property
    def said(self) -> str:
        if self.returncode is None or self.returncode == 0:
            return self.reason
        signal = sandbox.Ran(self.returncode, b"", b"", 0).signal
        return f"{self.reason} ({signal or f'exit {self.returncode}'})"


def last_moment(match: Match) -> timezone.datetime:
    """When a run for `match` is ended whatever happens."""
    if match.alternating:
        return match.start_at + timedelta(milliseconds=2 * (match.clock_ms or 0)) \
            + MATCH_MARGIN * 2
    return match.deadline(match.turns) + MATCH_MARGIN


def hosted_play(version_id: int, match_id: int, team_index: int, server: str, *,
                run_id: int | None = None) -> Played:
    """Play team `team_index` of match `match_id` with a built version, the server
    reached at `server` (its base URL, as this machine sees it), moving hosted run
    `run_id`'s heartbeat on while it plays. Returns when the run is over."""
    version = ProgramVersion.objects.get(pk=version_id)
    match = Match.objects.get(pk=match_id)
    team = Team.objects.get(match_id=match_id, index=team_index)
    if version.status != ProgramVersion.READY:
        return Played(None, "not ready")
    if match.over:  # (its job waited in the queue longer than the match lasted)
        return Played(None, "match over before it started")
    language = LANGUAGES[version.language]
    token = token_reissue(team)
    ends = last_moment(match)
    if rules_for(match.game).speaks_lines:
        return _lines_play(version, match, team_index, token, server, ends, run_id)
    with sandbox.workspace() as folder, Doors(folder) as doors:
        program_unpacked(version, folder)
        sandbox.handed_over(folder)
        doors.http(PORT, server, match_doors(match_id))
        argv, ro_binds = hosted_command(doors, language.run())
        process = sandbox.start(argv, folder, language.limits(PLAY_LIMITS), env={
            "SPECTATOR_URL": f"http://127.0.0.1:{PORT}", "SPECTATOR_TOKEN": token,
            "SPECTATOR_MATCH": str(match_id), "SPECTATOR_TEAM": str(team_index)},
            binds=doors.binds(), ro_binds=ro_binds)
        debug = Debug(team)
        reading = threading.Thread(target=debug.read, args=(process.stderr,), daemon=True)
        reading.start()
        process.stdin.close()
        threading.Thread(target=_drop, args=(process.stdout,), daemon=True).start()
        try:
            reason = _watch(process, match_id, ends, run_id)
        finally:
            returncode = process.poll()
            sandbox.end(process)
            reading.join(5)
            debug.flush()
    return Played(returncode, reason, debug.kept)


def protocol_play(runs: list[HostedRun], server_module) -> dict[int, Played]:
    """Play a match of a game with its own protocol server (CHaser over TCP) whose two
    teams are hosted runs `runs`: the server is this worker's (`server_module.
    HostedServer`, on its loopback), and each game's two programs start in sandboxes
    with a door to their own seats (the contest's ports inside, both leading there).
    How each team's run ended, by team."""
    match = runs[0].match
    ends = last_moment(match)
    served = server_module.HostedServer(match)
    served.start()
    played = {run.team_index: Played(None, "match over") for run in runs}
    beating = threading.Event()
    threading.Thread(target=_beat, args=([run.pk for run in runs], beating),
                     daemon=True).start()
    debugs = {run.team_index: Debug(Team.objects.get(match=match, index=run.team_index))
              for run in runs}
    try:
        for number in range(1, server_module.GAMES + 1):
            if served.over.is_set():
                break
            with contextlib.ExitStack() as stack:
                processes = {run.team_index: _seat_play(stack, run, served, number,
                                                        server_module, debugs[run.team_index])
                             for run in runs}
                reason = _game_watch(served, number, processes, ends)
                for team, process in processes.items():
                    code = process.poll()
                    if reason != "game over" or (code not in (None, 0)):
                        played[team] = Played(code, reason if reason != "game over"
                                              else "exited")
            if reason in ("out of time", "no show"):
                break
    finally:
        beating.set()
        served.stop()
        for debug in debugs.values():
            debug.flush()
    return played


def _seat_play(stack: contextlib.ExitStack, run: HostedRun, served, number: int,
               server_module, debug: Debug) -> sandbox.Sandboxed:
    """Start team `run.team_index`'s program for game `number`, its doors to its seat."""
    version = run.version
    language = LANGUAGES[version.language]
    folder = stack.enter_context(sandbox.workspace())
    doors = stack.enter_context(Doors(folder))
    program_unpacked(version, folder)
    sandbox.handed_over(folder)
    listener = served.seat_listen(number, run.team_index,
                                  doors.own(server_module.INSIDE_PORTS, "seat"))
    stack.callback(listener.close)
    sandbox.handed_over(doors.folder, folder)  # (its user connects to the seat)
    side = served.side_name(number, run.team_index)
    port = server_module.INSIDE_PORTS[0 if side == "cool" else 1]
    # Its seat as the contests' programs are told it: `--host 127.0.0.1 --port N` after
    # its command (as the Maizuru server starts a .py), and, for a client library that
    # asks on its standard input (port, name, "connect locally? y"), the answers there.
    argv, ro_binds = hosted_command(doors, [*language.run(), "--host", "127.0.0.1",
                                            "--port", str(port)])
    process = sandbox.start(argv, folder, language.limits(PLAY_LIMITS), env={
        "SPECTATOR_TEAM": str(run.team_index), "SPECTATOR_GAME": str(number),
        "SPECTATOR_SIDE": side, "CHASER_HOST": "127.0.0.1", "CHASER_PORT": str(port),
        # a Python program's own libraries in its lib/ folder, as the Maizuru server has
        "PYTHONPATH": f"{sandbox.HOME}/lib"},
        binds=doors.binds(), ro_binds=ro_binds)
    stack.callback(sandbox.end, process)
    with contextlib.suppress(OSError):  # (a program that never reads may have exited)
        process.stdin.write(f"{port}\n{run.version.program.name}\ny\n127.0.0.1\n".encode())
    with contextlib.suppress(OSError):
        process.stdin.close()
    threading.Thread(target=debug.read, args=(process.stderr,), daemon=True).start()
    threading.Thread(target=_drop, args=(process.stdout,), daemon=True).start()
    return process


CONNECT_SECONDS = 20.0  # a game's two programs are at their seats by then, or it ends


def _game_watch(served, number: int, processes: dict[int, sandbox.Sandboxed],
                ends) -> str:
    """Wait for game `number` to end: "game over", "match over" (the server stopped),
    "no show" (a program never came to its seat) or "out of time"."""
    started_by = time.monotonic() + CONNECT_SECONDS
    while True:
        if served.ended(number).wait(WATCH_SECONDS):
            return "game over"
        if served.over.is_set():
            return "match over"
        if timezone.now() >= ends:
            return "out of time"
        if not served.started(number).is_set() and (
                time.monotonic() >= started_by
                or any(process.poll() is not None for process in processes.values())):
            return "no show"


def _beat(run_ids: list[int], stop: threading.Event) -> None:
    """Move the runs' heartbeats on until `stop` (a line program's run, or both runs of
    a match its worker serves)."""
    while not stop.wait(settings.HOSTED_LOST_SECONDS / 4):
        close_old_connections()
        HostedRun.objects.filter(pk__in=run_ids).update(heartbeat_at=timezone.now())
    close_old_connections()


def _lines_play(version: ProgramVersion, match: Match, team_index: int, token: str,
                server: str, ends, run_id: int | None) -> Played:
    """A program that speaks lines (its game's convention: Blokus Duo's GPCC codes) on
    its standard streams, relayed by this worker through the answer API as playprogram
    relays a team's own (matches/hosting/lines.py); no doors: it reaches nothing."""
    language = LANGUAGES[version.language]
    relay = LineRelay(Server(server, match.pk, token), rules_for(match.game), team_index)
    with sandbox.workspace() as folder:
        program_unpacked(version, folder)
        sandbox.handed_over(folder)
        process = sandbox.start(language.run(), folder, language.limits(PLAY_LIMITS), env={
            "SPECTATOR_TEAM": str(team_index),
            "SPECTATOR_FIRST": "1" if relay.rules.mover(1) == team_index else "0"})
        streams = TextStreams(process)
        beating = threading.Event()
        if run_id is not None:
            threading.Thread(target=_beat, args=([run_id], beating), daemon=True).start()
        try:
            code = relay.relay(streams, poll=0.1,
                               until=time.monotonic() + (ends - timezone.now()).total_seconds())
        except (RelayError, OSError) as error:
            log.warning("hosted run %s: %s", run_id, error)
            code = 3
        finally:
            beating.set()
            returncode = process.poll()  # (before it is ended, if it was not yet)
            sandbox.end(process)
    reason = {0: "match over", 1: "exited", 2: "out of time"}.get(code, "the server failed")
    return Played(returncode if code == 1 else None, reason)


class TextStreams:
    """A sandboxed process's pipes as the line relay reads and writes them (text)."""

    def __init__(self, process: sandbox.Sandboxed) -> None:
        self.process = process
        self.stdin = io.TextIOWrapper(process.stdin, encoding="utf-8", write_through=True)
        self.stdout = io.TextIOWrapper(process.stdout, encoding="utf-8", errors="replace")
        self.stderr = io.TextIOWrapper(process.stderr, encoding="utf-8", errors="replace")

    def poll(self) -> int | None:
        return self.process.poll()

    def wait(self) -> int:
        return self.process.wait()

    def terminate(self) -> None:
        sandbox.end(self.process)


def _watch(process: sandbox.Sandboxed, match_id: int, ends, run_id: int | None) -> str:
    beaten = 0.0
    while True:
        if process.poll() is not None:
            return "exited"
        close_old_connections()
        if run_id is not None and time.monotonic() - beaten >= settings.HOSTED_LOST_SECONDS / 4:
            beaten = time.monotonic()
            HostedRun.objects.filter(pk=run_id).update(heartbeat_at=timezone.now())
        if Match.objects.filter(pk=match_id).first() is None or \
                Match.objects.get(pk=match_id).over:
            return "match over"
        if timezone.now() >= ends:
            return "out of time"
        time.sleep(WATCH_SECONDS)


def _drop(stream) -> None:
    """Read and forget what the program prints on standard output (it plays through its
    doors; a line program is played by the line relay instead)."""
    while stream.read(65536):
        pass


class Debug:
    """A program's standard error, kept as its debug output (the team's `/output`: shown
    beside its replay), DEBUG_LIMIT a match at most, stored each DEBUG_EVERY."""

    def __init__(self, team: Team) -> None:
        self.team, self.kept = team, 0
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.stored_at = time.monotonic()

    def read(self, stream) -> None:
        for raw in iter(stream.readline, b""):
            with self.lock:
                if self.kept < DEBUG_LIMIT:
                    line = raw[:DEBUG_LIMIT - self.kept].decode("utf-8", "replace")
                    self.kept += len(raw)
                    self.lines.append(line.rstrip("\n"))
            if time.monotonic() - self.stored_at >= DEBUG_EVERY:
                self.flush()

    def flush(self) -> None:
        with self.lock:
            lines, self.lines = self.lines, []
            self.stored_at = time.monotonic()
        if lines:
            close_old_connections()
            submission_output(self.team, "\n".join(lines), timezone.now())
