"""The first program in a hosted program's sandbox (docs/programs.md, "The way to its
match"): run by the system's Python 3 with its standard library alone, as
`python3 launch.py PORT=SOCKET|PORT@SOCKET ... -- PROGRAM ARGS...`.

The sandbox has no network but its own loopback. For each PORT=SOCKET, this listens on
127.0.0.1:PORT inside it and carries each connection to the socket file SOCKET, which
the worker outside serves (and which leads only to the program's own match). For each
PORT@SOCKET it hands each connection itself over through SOCKET instead (the socket's
descriptor, with one byte), and the server outside reads and writes the program's
connection directly: nothing carries its bytes (a CHaser seat, a line protocol whose
every line waits for its answer). Then it runs the program, with its standard streams,
and ends with it: its exit status is the program's (128 + the signal, for a program
ended by one).
"""

import contextlib
import socket
import subprocess
import sys
import threading

CHUNK = 65536


def carry(source: socket.socket, target: socket.socket) -> None:
    """Bytes from one side to the other until the source closes; then tell the target."""
    try:
        while chunk := source.recv(CHUNK):
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def no_delay(connection: socket.socket) -> None:
    """Each line goes at once (a protocol of small lines, one answered at a time: Nagle's
    wait for an acknowledgement held a line up to tens of milliseconds)."""
    with contextlib.suppress(OSError):
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def connection(client: socket.socket, path: str) -> None:
    no_delay(client)
    with client:
        try:
            outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            outside.connect(path)
        except OSError:
            return  # the client sees its connection closed
        with outside:
            back = threading.Thread(target=carry, args=(outside, client), daemon=True)
            back.start()
            carry(client, outside)
            back.join()


def hand_over(client: socket.socket, path: str) -> None:
    """The connection itself to the server behind SOCKET; this side's copy closed."""
    no_delay(client)
    with (client, contextlib.suppress(OSError),  # (the client sees its connection closed)
          socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as outside):
        outside.connect(path)
        socket.send_fds(outside, [b"\0"], [client.fileno()])


def door(listener: socket.socket, path: str, serve=connection) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: launch.py PORT=SOCKET ... -- PROGRAM ARGS...", file=sys.stderr)
        return 2
    split = argv.index("--")
    for pair in argv[:split]:
        handed = "@" in pair
        port, _, path = pair.partition("@" if handed else "=")
        listener = socket.create_server(("127.0.0.1", int(port)), backlog=64)
        threading.Thread(target=door, args=(listener, path, hand_over if handed else connection),
                         daemon=True).start()
    try:
        program = subprocess.Popen(argv[split + 1:])
    except OSError as error:
        print(f"the program could not start: {error}", file=sys.stderr)
        return 127
    status = program.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
