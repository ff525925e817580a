"""What the management commands share: reading their input files."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import CommandError

from matches.rules.files import record_from_bytes
from matches.rules.records import MatchRecord, RecordError


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
