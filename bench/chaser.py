"""CHaser over TCP: python bench/chaser.py [--turns 150] [--games 3] [--chsr PATH]

Starts `manage.py chaserserver --once` on the embedded default (SQLite, in-memory
channel layer) in a scratch folder, and plays games of `--turns` turns between two
clients on loopback that answer at once (each reads: look and search only, so that the
game runs to its last turn), with no step delay. Both clients run in this one thread
with blocking sockets, whichever the server talks to taking its step: an asyncio client
added 2 ms a turn of its own (6 round trips a turn through its loop), which is the
clients' time, not the server's. Prints, for each game, its time from
the first `@` to the last reply, and over all games the server's per-step latency: from
a client's line to the server's next line to it (its `gr` to the ready digits, its
command to the reply), p50 and p99. Every line is stored and every step broadcast, as
in a contest.

With `--chsr PATH/chsr.rb` (the public Ruby server, MIT: github.com/t-akisato/CHaser-
Server; Ruby installed), the same games are played on it too, by the same clients, in
the same run (on its fixed ports 2009 and 2010, started with `-w 0`, no display wait,
the shipped map with its turns set): the figure to compare with. It stores nothing.
Each game's line also gives the server process's processor time a turn (all its
threads), which a busy machine changes less than the wall clock's.
Measured so (2026-11-29 evening, 5 games of 125 turns, two runs, both servers slower than
that afternoon): ours 0.143-0.217 s a game (medians 0.186 and 0.180 s), chsr.rb
0.158-0.187 s (medians 0.163 and 0.169 s); a line's answer p50 0.18 ms against chsr.rb's
0.20, p99 3.9-4.3 ms against 0.6: six batches of turns a game, 5-6 ms each, stored in
three queries a batch. That afternoon (quiet 2-core machine, two runs): ours
0.091-0.124 s a game (medians 0.097 and 0.117 s), chsr.rb 0.094-0.170 s in the same runs
(medians 0.099 and 0.124 s): chsr.rb's pace, every line stored before its answer. The
bench watches no game: its steps and turns are built for no socket, and its turns are
stored together, 20 ms apart (a line waits up to 14 ms then). Before those: 0.20-0.23 s
that afternoon, 0.26-0.29 s that morning, 0.67-0.72 s the morning before. Parts switched
off by hand then (400-turn games, not kept): storing only the lines, 0.71 ms a turn; a
transaction a turn 0.57 ms more; the announcements the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ["lu", "sr", "ld", "sl", "su", "lr", "sd", "ll"]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_ports() -> tuple[int, int]:
    probes = [socket.socket() for _ in range(2)]
    for probe in probes:
        probe.bind(("127.0.0.1", 0))
    ports = tuple(probe.getsockname()[1] for probe in probes)
    for probe in probes:
        probe.close()
    return ports


def connect(port: int, name: bytes) -> socket.socket:
    for _ in range(200):
        try:
            connection = socket.create_connection(("127.0.0.1", port))
            break
        except ConnectionRefusedError:
            time.sleep(0.05)
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.sendall(name + b"\r\n")
    return connection


def cpu_seconds(pid: int) -> float:
    """A process's processor time so far (user and system, all its threads), s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def game(ports: tuple[int, int], waits: list[float], server: int) -> tuple[float, float]:
    """Both programs in one thread with blocking sockets (the server talks to one at a
    time): whichever has a line to read takes its whole step. The game's time, from the
    first `@` to the last reply, and the processor time the `server` process (its pid)
    spent meanwhile (a figure a busy machine does not change much)."""
    programs = [connect(ports[0], b"Cool"), connect(ports[1], b"Hot")]
    cpu = 0.0
    lines = {program: program.makefile("rb") for program in programs}
    steps = dict.fromkeys(programs, 0)
    span = [0.0, 0.0]  # the first `@`, the last reply
    playing = list(programs)
    while playing:
        ready, _, _ = select.select(playing, [], [], 30)
        if not ready:
            raise SystemExit("the server said nothing for 30 s")
        program = ready[0]
        cpu = cpu or cpu_seconds(server)
        if not step(program, lines[program], steps, waits, span):
            playing.remove(program)
            program.close()
    return span[1] - span[0], cpu_seconds(server) - cpu


def step(program: socket.socket, lines, steps: dict, waits: list[float],
         span: list[float]) -> bool:
    """One step (`@`, `gr`, the ready digits, a read, the reply, `#`); False once the
    game is over for this program."""
    if lines.readline().rstrip() != b"@":  # (chsr.rb ends its lines with LF alone)
        return False
    asked = time.perf_counter()
    span[0] = span[0] or asked
    program.sendall(b"gr\r\n")
    ready = lines.readline()
    waits.append(time.perf_counter() - asked)
    if ready.startswith(b"0"):
        return False
    asked = time.perf_counter()
    program.sendall(READS[steps[program] % len(READS)].encode() + b"\r\n")
    reply = lines.readline()
    span[1] = time.perf_counter()
    waits.append(span[1] - asked)
    program.sendall(b"#\r\n")
    steps[program] += 1
    return not reply.startswith(b"0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--chsr", help="the path of chsr.rb, to play the same games on it")
    options = parser.parse_args()
    waits: list[float] = []
    with tempfile.TemporaryDirectory(prefix="spectator-bench-") as scratch:
        env = dict(os.environ, SPECTATOR_VAR_DIR=scratch, DJANGO_DEBUG="0", LOG_LEVEL="WARNING")
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                       check=True)
        print(f"CHaser over TCP, {options.turns} turns a game, clients answering at once, "
              "no step delay (SQLite, in-memory channel layer):")
        for number in range(1, options.games + 1):
            ports = free_ports()
            server = subprocess.Popen(
                [sys.executable, "manage.py", "chaserserver", "--map", "akisato_m01",
                 "--turns", str(options.turns), "--once", "--host", "127.0.0.1",
                 "--ports", f"{ports[0]},{ports[1]}"],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            try:
                seconds, cpu = game(ports, waits, server.pid)
                out, _ = server.communicate(timeout=60)
            finally:
                server.kill()
            print(f"  game {number}: {seconds:.3f} s ({seconds / options.turns * 1000:.2f} ms "
                  f"a turn; the server's processor {cpu / options.turns * 1000:.2f} ms a "
                  f"turn); {out.splitlines()[-2] if out else 'no output'}")
    ms = [wait * 1000 for wait in waits]
    print(f"  the server's answer to a line: p50 {percentile(ms, 0.5):.2f} ms, "
          f"p99 {percentile(ms, 0.99):.2f} ms, max {max(ms):.2f} ms ({len(ms)} lines)")
    if options.chsr:
        chsr(Path(options.chsr), options)


def chsr(path: Path, options) -> None:
    """The same games on the public Ruby server, by the same clients."""
    text = (ROOT / "matches" / "boards" / "chaser" / "akisato_m01.map").read_text()
    waits: list[float] = []
    print(f"chsr.rb ({path}), the same {options.turns}-turn games, stores nothing:")
    with tempfile.TemporaryDirectory(prefix="bench-chsr-") as scratch:
        map_file = Path(scratch) / "bench.map"
        map_file.write_text("\n".join(f"T:{options.turns}" if line.startswith("T:") else line
                                      for line in text.splitlines()) + "\n")
        for number in range(1, options.games + 1):
            server = subprocess.Popen(["ruby", str(path), "-w", "0", "-m", str(map_file)],
                                      cwd=path.parent, stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            def begin(server=server) -> None:  # its Enter, once both are connected
                time.sleep(1.0)
                with contextlib.suppress(OSError):
                    server.stdin.write(b"\n")
                    server.stdin.flush()
            threading.Thread(target=begin, daemon=True).start()
            try:
                seconds, cpu = game((2009, 2010), waits, server.pid)
            finally:
                server.kill()
                server.wait()
            print(f"  game {number}: {seconds:.3f} s ({seconds / options.turns * 1000:.2f} ms "
                  f"a turn; its processor {cpu / options.turns * 1000:.2f} ms a turn)")
    ms = [wait * 1000 for wait in waits]
    print(f"  its answer to a line: p50 {percentile(ms, 0.5):.2f} ms, "
          f"p99 {percentile(ms, 0.99):.2f} ms ({len(ms)} lines)")


if __name__ == "__main__":
    main()
