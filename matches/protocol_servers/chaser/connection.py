"""CHaser's line protocol over TCP: one connected program, read a line at a time
(each line bounded in size and time) and written to with blocking sockets from the
game's thread. A line that breaks the protocol is a `Fault`, which loses the game for
its side (game.py); what the lines mean is the game driver's concern, not this module's.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from matches.rules import chaser
from matches.rules.reasons import Reason
from matches.rules.words import gettext_noop

LINE_LIMIT = 1024  # bytes of one line, its end included
SEND_WAIT = 10.0  # seconds a send may block on a program that does not read

# What a fault says, in English, worded on screens in their language (rules/reasons.py).
NOT_NAME = Reason(gettext_noop("the name is neither UTF-8 nor Shift_JIS text"))
NOT_TEXT = Reason(gettext_noop("the line is not UTF-8 text"))
CLOSED = Reason(gettext_noop("the connection closed"))
FAILED = Reason(gettext_noop("the connection failed"))
NO_LINE = Reason(gettext_noop("no line within {seconds} s"))
NO_NAME = Reason(gettext_noop("no name within {seconds} s"))
TOO_LONG = Reason(gettext_noop("a line over {limit} bytes"))
EXPECTED = Reason(gettext_noop("expected {wanted}, got {got}"))


class Fault(Exception):
    """A program broke the protocol: `code` names the fault, the message says what."""

    def __init__(self, code: str, detail: str, raw: bytes | None = None) -> None:
        super().__init__(detail)
        self.code, self.detail, self.raw = code, detail, raw


@dataclass
class Line:
    raw: bytes  # as received, its line end included
    text: str  # decoded, without the line end and surrounding spaces
    at: datetime


def decode_sent_name(raw: bytes) -> str:
    """A name line in UTF-8 or, failing that, Shift_JIS (the Ruby library sends its
    name in Shift_JIS): the whole name, without its line end and surrounding spaces."""
    body = raw.rstrip(b"\r\n")
    for encoding in ("utf-8", "cp932"):
        try:
            return body.decode(encoding).strip()
        except UnicodeDecodeError:
            continue
    raise Fault("not_text", NOT_NAME(), raw)


class Program:
    """One connected client, played from the game's thread with blocking reads (each
    bounded in size and time) and writes."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.lines = connection.makefile("rb")
        peer = connection.getpeername()
        self.address = peer[0] if peer else None
        self.name = ""  # as shown
        self.sent = ""  # the whole name it sent
        self.name_line: Line | None = None  # stored with the game it plays
        self.gone = False
        self.seat = ""  # "level-N" for the server's own practice program
        self.arrived = time.monotonic()
        self.seated = threading.Event()  # set when its game takes it (or the server stops)

    def read(self, timeout: float) -> Line:
        raw = self._raw(timeout, NO_LINE)
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise Fault("not_text", NOT_TEXT(), raw) from None
        return Line(raw, text, timezone.now())

    def read_name(self, timeout: float) -> str:
        """The first line: the program's name, in UTF-8 or Shift_JIS (as shown; the
        whole name in `sent`)."""
        raw = self._raw(timeout, NO_NAME)
        self.name_line = Line(raw, "", timezone.now())
        self.sent = decode_sent_name(raw)
        return chaser.shown_name(self.sent)

    def _raw(self, timeout: float, late: Reason) -> bytes:
        """The next line with its end; a Fault when it does not come whole in time."""
        if self.gone:
            raise Fault("disconnected", CLOSED())
        try:
            self.connection.settimeout(timeout)
            raw = self.lines.readline(LINE_LIMIT + 1)
        except TimeoutError:
            raise Fault("timeout", late(seconds=f"{timeout:g}")) from None
        except OSError:
            self.gone = True
            raise Fault("disconnected", FAILED()) from None
        if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
            raise Fault("line_too_long", TOO_LONG(limit=LINE_LIMIT), raw[:LINE_LIMIT])
        if not raw.endswith(b"\n"):
            self.gone = True
            raise Fault("disconnected", CLOSED(), raw or None)
        return raw

    def send(self, text: str) -> None:
        if self.gone:
            return
        try:
            self.connection.settimeout(SEND_WAIT)
            self.connection.sendall(text.encode() + b"\r\n")
        except OSError:
            self.gone = True

    def close(self) -> None:
        self.gone = True
        with contextlib.suppress(OSError):
            self.lines.close()
            self.connection.close()

