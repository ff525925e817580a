"""The ways out of a hosted program's sandbox (docs/programs.md, "The way to its match").

The sandbox has no network. A program that plays over HTTP (the answer API, a dialect)
or TCP (CHaser) is given doors instead: socket files bound into its sandbox, which its
launcher (launch.py) offers it as ports on its own loopback, and which the worker
serves from outside. An HTTP door takes one request a connection and carries it to the
server only when it is for the program's own match (its reads, its answers, its debug
output, its dialect's joining and its token's own list); any other is answered 403
there. A CHaser program's door is its seat itself: a socket file the worker's CHaser
server listens on (`own`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import socket
import tempfile
import threading
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from matches.hosting import sandbox
from matches.paths import API, DIALECT_PREFIXES

log = logging.getLogger(__name__)

INSIDE = "/spectator/doors"  # where the doors are, inside the sandbox
LAUNCHER = Path(__file__).with_name("launch.py")
LAUNCHER_INSIDE = "/spectator/launch.py"
HEAD_LIMIT = 16 << 10  # a request's line and headers
BODY_LIMIT = 1 << 20  # a request's body (the API's own limits are smaller)
CHUNK = 65536
IDLE_SECONDS = 120.0  # a connection that sends nothing for this long is closed
HOP_HEADERS = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
               "host"}
# The general reads a program may make with its token besides its match's: a dialect's
# list of its matches, its team, the server's liveness.
GENERAL = re.compile(r"(matches|ping|teams/me|teams/\d+/matches)")


def match_doors(match_id: int) -> Callable[[str, str], bool]:
    """Whether a request (method, path) is one a program of match `match_id` may make."""
    own = f"matches/{match_id}"

    def allowed(method: str, path: str) -> bool:
        if any(part in (".", "..") for part in path.split("/")) or "//" in path:
            return False
        for prefix in (API, *DIALECT_PREFIXES):
            if path.startswith(prefix):
                rest = path[len(prefix):]
                if rest == own or rest.startswith(own + "/"):
                    return True
                return method in ("GET", "HEAD") and GENERAL.fullmatch(rest) is not None
        return method in ("GET", "HEAD") and path == "/version"
    return allowed


class Doors:
    """The doors of one sandbox, served while it plays; `close` when it is over."""

    def __init__(self, workspace: Path) -> None:
        """The doors of the sandbox whose folder is `workspace` (its user's, to use)."""
        self.workspace = workspace
        self.folder = Path(tempfile.mkdtemp(dir=sandbox.workspaces(), prefix="doors-"))
        self.pairs: list[str] = []  # the launcher's PORT=SOCKET arguments
        self.listeners: list[socket.socket] = []
        self.closed = threading.Event()

    def _listener(self, port: int, serve: Callable[[socket.socket], None]) -> None:
        path = self.folder / f"{port}.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(64)
        sandbox.handed_over(self.folder, self.workspace)  # its user connects to it
        self.listeners.append(listener)
        self.pairs.append(f"{port}={INSIDE}/{port}.sock")
        threading.Thread(target=self._accept, args=(listener, serve), daemon=True,
                         name=f"door {port}").start()

    def http(self, port: int, upstream: str, allowed: Callable[[str, str], bool]) -> None:
        """Port `port` inside leads to the server at `upstream` (its base URL), for the
        requests `allowed` lets through."""
        parts = urllib.parse.urlsplit(upstream)
        address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._listener(port, lambda client: _http(client, address, parts.netloc, allowed))

    def own(self, ports: tuple[int, ...], name: str) -> Path:
        """Ports `ports` inside all lead to a socket file the caller listens on itself
        (a hosted CHaser server's seat): its path, to bind before the program starts
        (then `sandbox.handed_over(doors.folder, workspace)`). The launcher hands each
        connection itself over through it (`handed_connection`): no relay between."""
        self.pairs += [f"{port}@{INSIDE}/{name}.sock" for port in ports]
        return self.folder / f"{name}.sock"

    def binds(self) -> tuple[tuple[str, str], ...]:
        return ((str(self.folder), INSIDE),)

    def launcher(self) -> list[str]:
        """The command that starts a program behind these doors (its own after it)."""
        return ["python3", LAUNCHER_INSIDE, *self.pairs, "--"]

    def _accept(self, listener: socket.socket, serve: Callable[[socket.socket], None]) -> None:
        while not self.closed.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            client.settimeout(IDLE_SECONDS)
            threading.Thread(target=_guarded, args=(serve, client), daemon=True).start()

    def close(self) -> None:
        self.closed.set()
        for listener in self.listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Doors:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


HAND_WAIT = 10.0  # seconds a door's launcher has to hand over a connection


def handed_connection(door: socket.socket) -> socket.socket | None:
    """The program's own connection, which the launcher in its sandbox (launch.py) hands
    over through a connection to an `own` door: one byte and the connection's
    descriptor. The server reads and writes it directly, nothing carrying its bytes.
    None for anything else that comes (no descriptor, several, one that is not a TCP
    connection, which the launcher's always is): what came is closed. The door's
    connection is closed either way."""
    with door:
        try:
            door.settimeout(HAND_WAIT)
            _, descriptors, flags, _ = socket.recv_fds(door, 1, 1)
        except OSError:
            return None
    # (more than one sent: the kernel closed those beyond the first, and says so)
    if len(descriptors) != 1 or flags & socket.MSG_CTRUNC:
        for descriptor in descriptors:
            os.close(descriptor)
        return None
    try:
        handed = socket.socket(fileno=descriptors[0])
    except OSError:  # not a socket
        os.close(descriptors[0])
        return None
    try:
        connected = handed.type == socket.SOCK_STREAM and handed.family in (
            socket.AF_INET, socket.AF_INET6) and handed.getpeername()
    except OSError:  # not connected (a listener, say)
        connected = False
    if not connected:
        handed.close()
        return None
    return handed


def _guarded(serve: Callable[[socket.socket], None], client: socket.socket) -> None:
    with client:
        try:
            serve(client)
        except (OSError, ValueError) as error:  # a program that hangs up, or talks nonsense
            log.debug("a door's connection ended: %r", error)


def _refuse(client: socket.socket, status: int, reason: str, code: str, detail: str) -> None:
    body = json.dumps({"error": code, "detail": detail}).encode()
    client.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def _read_head(client: socket.socket) -> tuple[bytes, bytes] | None:
    """The request's head (up to its blank line) and what came after it; None if the
    connection closed before a request began."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            raise ValueError("head too large")
        chunk = client.recv(CHUNK)
        if not chunk:
            if data:
                raise ValueError("the request ended in its head")
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _http(client: socket.socket, address: tuple[str, int], host: str,
          allowed: Callable[[str, str], bool]) -> None:
    """One request from the sandbox: checked, carried to the server, its answer back."""
    read = _read_head(client)
    if read is None:
        return
    head, rest = read
    line, *header_lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, version = line.split(" ")
    except ValueError:
        _refuse(client, 400, "Bad Request", "bad_request", "not an HTTP request")
        return
    if not version.startswith("HTTP/1."):
        _refuse(client, 400, "Bad Request", "bad_request", "HTTP/1.x only")
        return
    headers = []
    length = 0
    for header in header_lines:
        name, _, value = header.partition(":")
        lower = name.strip().lower()
        if lower == "transfer-encoding":
            _refuse(client, 411, "Length Required", "length_required",
                    "send the body with a Content-Length")
            return
        if lower == "content-length":
            length = int(value.strip())
            if not 0 <= length <= BODY_LIMIT:
                _refuse(client, 413, "Content Too Large", "too_large",
                        f"a request's body is at most {BODY_LIMIT >> 10} KiB here")
                return
        if lower not in HOP_HEADERS:
            headers.append(f"{name.strip()}: {value.strip()}")
    parts = urllib.parse.urlsplit(target)
    path = urllib.parse.unquote(parts.path or "/")
    if not allowed(method.upper(), path):
        _refuse(client, 403, "Forbidden", "not_your_match",
                "a hosted program reaches only its own match (docs/programs.md)")
        return
    body = rest
    while len(body) < length:
        chunk = client.recv(min(CHUNK, length - len(body)))
        if not chunk:
            return
        body += chunk
    request = (f"{method} {parts.path or '/'}{'?' + parts.query if parts.query else ''} "
               f"HTTP/1.1\r\nHost: {host}\r\n" + "".join(f"{h}\r\n" for h in headers)
               + "Connection: close\r\n\r\n").encode("latin-1") + body[:length]
    with socket.create_connection(address, timeout=IDLE_SECONDS) as server:
        server.sendall(request)
        while chunk := server.recv(CHUNK):
            client.sendall(chunk)


def hosted_command(doors: Doors, argv: list[str]) -> tuple[list[str], tuple]:
    """The command and the read-only binds that start `argv` behind `doors`."""
    return doors.launcher() + argv, ((str(LAUNCHER), LAUNCHER_INSIDE),)

