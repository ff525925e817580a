"""A message's websocket frame, built once for every socket of the process.

Through ASGI, daphne sends a text to a socket by encoding it to UTF-8 and having
autobahn build its frame, with their checks and a debug log call on the way: for a turn
going out to 1,000 sockets, a thousand encodings and frames of the same text. A
server's frame of a text is the same bytes for every socket (unmasked, and here never
compressed nor fragmented), so the consumers build it once (per event, per opening)
and write it to each socket's connection: straight to the socket when nothing is
waiting to be sent on it (`_send_now`), else through autobahn's own `sendData`, which
keeps it in order with what autobahn sends itself (its pings, a close).

Only on a socket daphne serves whose connection is open, with no compression, no
automatic fragmentation and no message of autobahn's own half sent; any other (a
test's communicator, a socket closing) is sent through ASGI as before.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Any


def frame(text: str) -> bytes:
    """A final text frame of `text`, as a server sends it (RFC 6455, 5.2)."""
    payload = text.encode()
    size = len(payload)
    if size < 126:
        head = bytes((0x81, size))
    elif size < 1 << 16:
        head = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return head + payload


def framed(message: dict[str, Any]) -> bytes:
    """`frame(message["text"])`, kept in the message: each socket it goes to reuses it."""
    data = message.get("_frame")
    if data is None:
        data = message["_frame"] = frame(message["text"])
    return data


def connection(send) -> Any | None:
    """The daphne websocket connection behind an ASGI `send` (daphne's is its server's
    `handle_reply` bound to the connection), or None for any other server."""
    served = sys.modules.get("daphne.ws_protocol")  # (no daphne loaded: not daphne's)
    if served is None or not isinstance(send, partial) or not send.args:
        return None
    protocol = send.args[0]
    return protocol if isinstance(protocol, served.WebSocketProtocol) else None


def write(protocol, data: bytes) -> bool:
    """Write a frame on a daphne connection, if it takes one as it stands; False if not
    (then the message goes through ASGI)."""
    if (protocol.state != protocol.STATE_OPEN or protocol._perMessageCompress is not None
            or protocol.send_state != protocol.SEND_STATE_GROUND
            or 0 < protocol.autoFragmentSize < len(data)
            or 0 < protocol.maxMessagePayloadSize < len(data)):
        return False
    if protocol.send_queue or not _send_now(protocol.transport, data):
        protocol.sendData(data)
    return True


def _send_now(transport, data: bytes) -> bool:
    """Send `data` on the socket at once when its transport holds nothing unsent, as
    asyncio's transports do, rather than through Twisted's `write`: that one asks the
    reactor to watch the socket for writing and sends at its next turn, then stops
    watching (two epoll_ctl calls and an event for every socket, the most of a turn's
    fan-out). What the socket does not take at once is left to Twisted's `write`. False
    (nothing done) for a transport that is not a plain TCP one, or not idle."""
    sock = getattr(transport, "socket", None)
    if (sock is None or getattr(transport, "TLS", True) or not transport.connected
            or transport.disconnecting or transport._tempDataLen
            or len(transport.dataBuffer) > transport.offset):
        return False
    try:
        sent = sock.send(data)
    except BlockingIOError:
        sent = 0
    except OSError:  # the connection is gone: Twisted finds it its own way
        return False
    if sent < len(data):
        transport.write(data[sent:])
    return True


def spare_connection_dumps() -> None:
    """autobahn formats every new connection's forty-odd options with `pprint` for a
    debug log line, whether its log takes debug lines or not: a tenth of the loop's time
    in a storm of connects. Unless its log level is debug or trace, that text is never
    read, and is no longer made (a server calls this once, at its start)."""
    import txaio
    from autobahn.websocket import protocol

    try:
        level = txaio.get_global_log_level()
    except RuntimeError:  # no framework chosen yet: its default level, info
        level = "info"
    if level not in ("debug", "trace"):
        protocol.pformat = _unread


def _unread(_options: object) -> str:
    return ""
