"""What the management commands share: reading their input files, writing their output."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.access.delay import DELAY_MAX_S
from matches.rules.files import record_from_bytes
from matches.rules.records import MatchRecord, RecordError


def page_address(path: str) -> str:
    """A page's whole address, to open or hand on as it is: SPECTATOR_BASE_URL (the
    address the teams and the hall reach the server at, e.g. http://10.0.0.5:8000) and
    the path; by default the demo's, http://127.0.0.1:8000."""
    base = os.environ.get("SPECTATOR_BASE_URL", "").strip().rstrip("/") or \
        "http://127.0.0.1:8000"
    return f"{base}{path}"


def said_time(moment) -> str:
    """A time as a person reads it: to the second, in the server's time zone (TIME_ZONE
    or the environment's TZ), named."""
    from django.utils import timezone

    shown = timezone.localtime(moment, _zone())
    return shown.strftime("%Y-%m-%d %H:%M:%S %Z")


def _zone():
    import zoneinfo

    name = os.environ.get("TZ", "").strip()
    try:
        return zoneinfo.ZoneInfo(name) if name else None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def read_input(path: str) -> bytes:
    """A file's bytes, or standard input's for "-"; exit 2 when it cannot be read."""
    try:
        return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}", returncode=2) from None


def read_record(path: str) -> MatchRecord:
    """A match-record/1, or a Blokus Duo game record (anything that is not JSON)."""
    raw = read_input(path)
    try:
        return record_from_bytes(raw, path)
    except RecordError as error:
        raise CommandError(f"{path}: {error}", returncode=2) from None


def write_output(command: BaseCommand, output: str | None, text: str) -> None:
    """A command's text, exactly as given (line ends included), to the file `output`
    or else to the command's stdout (so that call_command(stdout=...) captures it)."""
    if output:
        file_replace(Path(output), text.encode("utf-8"))
    else:
        command.stdout.write(text, ending="")


def file_replace(path: Path, data: bytes) -> None:
    """Write a whole file or nothing: into a temporary file beside it, renamed over it
    once complete, so that a failure never leaves an empty or partial file."""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}", returncode=2) from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise CommandError(f"{path}: {error.strerror}", returncode=2) from None


def delay_seconds(text: str) -> int:
    """--delay, the spectator delay: whole seconds, 0 to DELAY_MAX_S."""
    if not (text.isascii() and text.isdigit() and len(text) <= 6) or int(text) > DELAY_MAX_S:
        raise argparse.ArgumentTypeError(f"whole seconds from 0 to {DELAY_MAX_S}")
    return int(text)
