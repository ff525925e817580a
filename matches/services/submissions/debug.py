"""A team's debug channel (docs/api.md, "Your program's debug output"): with any
submission its program may send `debug`, a text of at most DEBUG_BYTES, and `marks`,
cells with a colour and a short label and lines between cells, drawn over the board in
its replay for the team itself and the judges (and for everyone once a judge publishes
the match with its debug). They never change what the actions do: a debug part that
cannot be read is dropped and the answer says why, the actions still count."""

from __future__ import annotations

from typing import Any

from matches.rules.marks import MarkError, read_marks
from matches.services.submissions.answers import Refusal
from matches.services.submissions.parsing import UNSTORABLE, json_read

DEBUG_BYTES = 4096  # of a submission's debug text, UTF-8


class DebugProblem(ValueError):
    """Why a debug part was dropped, in one line."""


def debug_read(body: bytes) -> tuple[str, list[dict[str, Any]] | None] | None:
    """The debug text and marks of a submission's body (None: it sends neither).
    DebugProblem says what is wrong with them."""
    if b'"debug"' not in body and b'"marks"' not in body:
        return None  # the common case, without reading the JSON a second time
    try:
        data = json_read(body)
    except Refusal:
        return None  # a body that is no JSON was refused for its actions already
    if not isinstance(data, dict) or ("debug" not in data and "marks" not in data):
        return None
    try:
        marks = read_marks(data.get("marks"))
    except MarkError as error:
        raise DebugProblem(str(error)) from None
    return _text(data.get("debug", "")), marks


def _text(text: Any) -> str:
    if not isinstance(text, str):
        raise DebugProblem("debug: expected a string")
    if len(text.encode("utf-8", "surrogatepass")) > DEBUG_BYTES:
        raise DebugProblem(f"debug: at most {DEBUG_BYTES} bytes of UTF-8")
    if UNSTORABLE.search(text):
        raise DebugProblem("debug: a NUL character or a lone surrogate")
    return text
