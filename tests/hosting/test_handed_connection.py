"""A CHaser seat's door (matches/hosting/doors.py's `handed_connection`): the launcher in
a sandbox hands the program's connection itself over through it, and the server reads
and writes that connection directly; whatever else comes through the door (no
descriptor, several, one that is not a stream socket: a program that connects to the
socket file itself and tries it) is turned away, and nothing it sent stays open in the
server."""

import os
import socket

from matches.hosting.doors import handed_connection


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def door_pair() -> tuple[socket.socket, socket.socket]:
    """The server's end of a door connection and the sender's."""
    server_end, sender = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return server_end, sender


def test_a_handed_over_connection_is_the_programs_own():
    listener = socket.create_server(("127.0.0.1", 0))
    program = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()  # the launcher's end of the program's connection
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [accepted.fileno()])
    accepted.close()  # the launcher keeps no copy
    handed = handed_connection(server_end)
    assert handed is not None and handed.type == socket.SOCK_STREAM
    program.sendall(b"gr\r\n")
    assert handed.recv(16) == b"gr\r\n"  # straight from the program, nothing between
    handed.sendall(b"1000000000\r\n")
    assert program.recv(16) == b"1000000000\r\n"
    for end in (handed, program, sender, listener):
        end.close()


def test_a_door_that_hands_over_nothing_or_too_much_or_no_socket_is_turned_away(tmp_path):
    before = open_descriptors()
    server_end, sender = door_pair()
    sender.sendall(b"Hunter\r\n")  # a program at the socket file itself, no descriptor
    assert handed_connection(server_end) is None
    sender.close()

    readable, writable = os.pipe()
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [readable])  # a pipe's end: not a socket
    assert handed_connection(server_end) is None
    sender.close()

    file = open(tmp_path / "secret", "w")  # noqa: SIM115
    first, second = socket.socketpair()
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [first.fileno(), second.fileno(), file.fileno()])
    assert handed_connection(server_end) is None  # several: none taken
    sender.close()

    datagram = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [datagram.fileno()])
    assert handed_connection(server_end) is None  # not a stream
    sender.close()

    named = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    named.bind(str(tmp_path / "its.sock"))  # its peer's "address" would be a path
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [named.fileno()])
    assert handed_connection(server_end) is None  # not a TCP connection
    sender.close()

    unconnected = socket.create_server(("127.0.0.1", 0))  # a listener: no peer
    server_end, sender = door_pair()
    socket.send_fds(sender, [b"\0"], [unconnected.fileno()])
    assert handed_connection(server_end) is None
    sender.close()

    server_end, sender = door_pair()
    sender.close()  # gone before it sent anything
    assert handed_connection(server_end) is None

    for kept in (first, second, file, datagram, named, unconnected):
        kept.close()
    os.close(readable)
    os.close(writable)
    assert open_descriptors() == before  # nothing that came through stays open here
