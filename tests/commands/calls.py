"""Calling a management command as a test does: its output, or its one-line refusal."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def run(*args) -> str:
    """What the command wrote to its stdout."""
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def refusal(*args) -> str:
    """The command's refusal: exit status 2 and one line."""
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert caught.value.returncode == 2
    message = str(caught.value)
    assert "\n" not in message
    return message
