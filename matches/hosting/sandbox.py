"""The sandbox a hosted program is built and run in (docs/programs.md, "The sandbox").

A program runs under Debian's bubblewrap (`bwrap`) in namespaces of its own: no network
(its own loopback only; the way to its match is handed in as a socket file), its own
process numbering (it sees and signals nothing else, and its whole tree ends with it),
the system's programs and libraries read-only, its own folder, a private /tmp, and
nothing of the server's (its files, database, secret key, `var/`, other programs').
Limits, set with `prlimit` before the sandbox starts, hold every process in it: CPU
seconds, address space, processes, file size and open files; the wall-clock limit is
the caller's (`run`'s `wall_seconds`, or the play driver's per move and per match),
which ends the whole tree.

When the server runs as root, each sandbox runs as an unprivileged user of its own (one
of a range from `SPECTATOR_SANDBOX_UID`, 600000, held by one workspace at a time), so
that the process limit counts its processes only; otherwise as the server's user, whose
processes then count towards it (the limit is raised by as many as that user runs
already).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# The system the programs see, read-only: the programs and libraries, and the few files
# under /etc the language runtimes read (no passwords, hosts or anything of the server).
SYSTEM = ("/usr",)
MERGED = (("usr/bin", "/bin"), ("usr/sbin", "/sbin"), ("usr/lib", "/lib"),
          ("usr/lib64", "/lib64"))
SYSTEM_ETC = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
              "/etc/ld.so.conf.d", "/etc/java-17-openjdk", "/etc/ssl/certs/java")
HOME = "/program"  # the program's folder, as the program sees it
PATH = "/usr/local/bin:/usr/bin:/bin"
PIPE_BYTES = 65536  # what a pipe holds: `run`'s input at most
END_SECONDS = 5.0  # how long the end of a sandbox's processes may take


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing, or this machine does not let it make its namespaces."""


@dataclass(frozen=True)
class Limits:
    """What every process of a sandbox may use."""
    cpu_seconds: int = 60  # each process's CPU time
    memory_mb: int = 1024  # each process's address space
    processes: int = 64  # processes and threads at once
    file_mb: int = 64  # the largest file it may write
    open_files: int = 64
    output_kb: int = 256  # what `run` keeps of each of stdout and stderr
    tmp_mb: int = 64  # its private /tmp (in memory)


@dataclass(frozen=True)
class Ran:
    """How a sandboxed command ended."""
    returncode: int | None  # None: ended by the wall-clock limit
    stdout: bytes
    stderr: bytes
    seconds: float
    cut: bool = False  # its output went past `output_kb` (the rest was read and dropped)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def signal(self) -> str:
        """The signal that ended it ('' if none): SIGKILL for a breach of a hard limit
        or of the memory a process could map, SIGXCPU for its CPU time, SIGXFSZ for a
        file too large."""
        if self.returncode is None or not 128 < self.returncode < 128 + 65:
            return ""  # (bubblewrap exits with 128 + the signal that ended the program)
        try:
            return signal.Signals(self.returncode - 128).name
        except ValueError:
            return f"signal {self.returncode - 128}"


def available() -> str:
    """'' when sandboxes can be made here, else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    if shutil.which("prlimit") is None:
        return "prlimit (util-linux) is not installed"
    try:
        # in a workspace, as every sandbox: probes at once (each test process asks) as
        # one user shared its process limit, and one was refused a fork now and then
        with workspace() as folder:
            probe = subprocess.run(command(["/bin/true"], folder, Limits()),
                                   capture_output=True, timeout=10)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as error:  # (every user taken)
        return f"bubblewrap could not start: {error}"
    if probe.returncode != 0:
        return ("bubblewrap could not make its namespaces (unprivileged user namespaces "
                f"may be off): {probe.stderr.decode(errors='replace').strip()}")
    return ""


# When the server is root, each workspace (and the sandboxes that run in it) is a user's
# of its own, one of USERS from SPECTATOR_SANDBOX_UID (600000): the kernel counts the
# process limit per user, so sandboxes running at once must not share one (a fork bomb
# in one would leave the others no process to start). A user is held, across the
# machine's processes, by a lock on its file in the workspaces' folder. The search for a
# free one starts at a random place: a user just let go was taken again at once by the
# next sandbox, and its start was refused a fork ("Resource temporarily unavailable")
# now and then, as if the processes that had just ended still counted.
USERS = 512


def first_uid() -> int:
    return int(os.environ.get("SPECTATOR_SANDBOX_UID", "600000"))


def sandbox_uid(folder: Path | None = None) -> int | None:
    """The user a sandbox runs as when the server is root: its workspace's (`folder`'s
    owner), or the first of the range for one without a folder; None when the server
    is not root (it runs as the server's user)."""
    if os.geteuid() != 0:
        return None
    if folder is not None:
        return os.stat(folder).st_uid
    return first_uid()


@contextlib.contextmanager
def _user() -> Iterator[int | None]:
    """A user no other workspace of this machine holds now (None: not root)."""
    if os.geteuid() != 0:
        yield None
        return
    root = workspaces()
    start = random.randrange(1, USERS)
    for slot in [*range(start, USERS), *range(1, start)]:
        with open(root / f"user-{slot}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # another workspace's
            try:
                yield first_uid() + slot
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
            return
    raise RuntimeError(f"all {USERS - 1} sandbox users are taken on this machine")


def _own_processes() -> int:
    """How many processes and threads the server's user runs now."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue  # it ended meanwhile
    return count


def command(argv: list[str], folder: Path | None, limits: Limits, *,
            env: dict[str, str] | None = None, writable: bool = True,
            binds: tuple[tuple[str, str], ...] = (), ro_binds: tuple[tuple[str, str], ...] = (),
            info_fd: int | None = None) -> list[str]:
    """The whole command line that runs `argv` in a sandbox whose folder is `folder`
    (read-write unless `writable` is False; None: none), with only `env` in its
    environment (and PATH, HOME), `binds` (outside path, inside path) read-write (the
    folder of the sockets that lead to its match, say) and `ro_binds` read-only."""
    uid = sandbox_uid(folder)
    processes = limits.processes if uid is not None else limits.processes + _own_processes()
    line: list[str] = []
    if uid is not None:
        line += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    line += ["prlimit", f"--cpu={limits.cpu_seconds}", f"--as={limits.memory_mb << 20}",
             f"--nproc={processes}", f"--fsize={limits.file_mb << 20}",
             f"--nofile={limits.open_files}", "--core=0", "--"]
    line += ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
             "--cap-drop", "ALL", "--hostname", "sandbox"]
    for path in SYSTEM:
        line += ["--ro-bind", path, path]
    for target, link in MERGED:
        if os.path.islink(link):
            line += ["--symlink", target, link]
        elif os.path.isdir(link):
            line += ["--ro-bind", link, link]
    for path in SYSTEM_ETC:
        if os.path.exists(path):
            line += ["--ro-bind", path, path]
    line += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_mb << 20),
             "--tmpfs", "/tmp"]
    if folder is not None:
        line += ["--bind" if writable else "--ro-bind", str(folder), HOME, "--chdir", HOME]
    for outside, inside in binds:
        line += ["--bind", outside, inside]
    for outside, inside in ro_binds:
        line += ["--ro-bind", outside, inside]
    line += ["--remount-ro", "/"]  # (the root bwrap made: nothing is written there)
    if info_fd is not None:
        line += ["--info-fd", str(info_fd)]
    line += ["--clearenv", "--setenv", "PATH", PATH, "--setenv", "HOME", HOME,
             "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8"]
    for name, value in (env or {}).items():
        line += ["--setenv", name, value]
    return line + ["--", *argv]


def workspaces() -> Path:
    """Where the programs' folders are made: `SPECTATOR_SANDBOX_DIR`, or a folder of the
    system's temporary one. The sandbox's user may pass through it (to bind a folder of
    its own), not list it."""
    root = Path(os.environ.get("SPECTATOR_SANDBOX_DIR")
                or Path(tempfile.gettempdir()) / f"spectator-sandboxes-{os.getuid()}")
    root.mkdir(mode=0o711, parents=True, exist_ok=True)
    os.chmod(root, 0o711)
    return root


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    """A fresh folder for one program (its build, or one match of it), the sandbox's
    user's own, removed with all it holds afterwards."""
    with _user() as uid:
        folder = Path(tempfile.mkdtemp(dir=workspaces(), prefix="program-"))
        try:
            if uid is not None:
                os.chown(folder, uid, uid)
            yield folder
        finally:
            shutil.rmtree(folder, onerror=_writable_again)


def _writable_again(function, path, error) -> None:
    """A folder the program made unwritable: made writable, then removed."""
    with contextlib.suppress(OSError):
        os.chmod(os.path.dirname(path), 0o700)
        os.chmod(path, 0o700)
        function(path)


def handed_over(folder: Path, workspace: Path | None = None) -> None:
    """Give `folder` and what it holds to its workspace's user (`workspace`: the
    workspace it serves, when it is not one itself), when the server is root."""
    if os.geteuid() != 0:
        return
    uid = os.stat(workspace or folder).st_uid
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), uid, uid)
    os.chown(folder, uid, uid)


class Sandboxed(subprocess.Popen):
    """A program running in a sandbox: `sandbox_pid` is the first process inside it (the
    one whose end ends every process there)."""
    sandbox_pid: int | None = None


def start(argv: list[str], folder: Path | None, limits: Limits, *,
          env: dict[str, str] | None = None, writable: bool = True,
          binds: tuple[tuple[str, str], ...] = (),
          ro_binds: tuple[tuple[str, str], ...] = ()) -> Sandboxed:
    """Start `argv` in a sandbox with pipes for its standard streams (a program that
    plays on them); `end` it when done."""
    info_read, info_write = os.pipe()
    try:
        process = Sandboxed(command(argv, folder, limits, env=env, writable=writable,
                                    binds=binds, ro_binds=ro_binds, info_fd=info_write),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            pass_fds=(info_write,))
    finally:
        os.close(info_write)
    with os.fdopen(info_read, "rb") as info:  # bwrap writes it once the sandbox stands
        try:                                 # (and closes it: at once if it failed)
            process.sandbox_pid = json.loads(info.read() or b"{}").get("child-pid")
        except ValueError:
            process.sandbox_pid = None
    return process


def end(process: Sandboxed) -> None:
    """End a sandbox and every process in it, however it behaves, and wait until they
    are all gone: the sandbox's first process is killed (the kernel then kills every
    other one there, and its end waits for theirs), and bubblewrap with it."""
    if process.poll() is None:  # (once reaped, its numbers may be another's)
        if process.sandbox_pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(process.sandbox_pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(END_SECONDS)  # bubblewrap ends once they all have
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    process.wait()


def run(argv: list[str], folder: Path | None, limits: Limits, *, wall_seconds: float,
        stdin: bytes = b"", env: dict[str, str] | None = None, writable: bool = True,
        binds: tuple[tuple[str, str], ...] = (),
        ro_binds: tuple[tuple[str, str], ...] = ()) -> Ran:
    """Run `argv` in a sandbox to its end or to `wall_seconds`, whichever comes first
    (a build, a test of a program); its output kept up to `limits.output_kb` a stream,
    the rest read and dropped so that it never blocks on a full pipe. `stdin`: a small
    input, PIPE_BYTES at most (written before its output is read)."""
    began = time.monotonic()
    process = start(argv, folder, limits, env=env, writable=writable, binds=binds,
                    ro_binds=ro_binds)
    keep = limits.output_kb << 10
    out, err = process.stdout.fileno(), process.stderr.fileno()
    kept = {out: bytearray(), err: bytearray()}
    cut, returncode = False, None
    try:
        with contextlib.suppress(OSError):  # (one that stops reading gets no more)
            process.stdin.write(stdin[:PIPE_BYTES])
            process.stdin.close()
        with selectors.DefaultSelector() as waiting:
            for fd in kept:
                os.set_blocking(fd, False)
                waiting.register(fd, selectors.EVENT_READ)
            while waiting.get_map():
                left = began + wall_seconds - time.monotonic()
                if left <= 0:
                    break
                for key, _ in waiting.select(min(left, 0.5)):
                    try:
                        chunk = os.read(key.fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        waiting.unregister(key.fd)
                        continue
                    room = max(keep - len(kept[key.fd]), 0)
                    kept[key.fd] += chunk[:room]
                    cut = cut or len(chunk) > room
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    returncode = process.wait(max(began + wall_seconds - time.monotonic(), 0))
    finally:
        end(process)  # whatever it left behind goes with it
    return Ran(returncode, bytes(kept[out]), bytes(kept[err]), time.monotonic() - began, cut)
