"""A command's output that outlives its reader.

`make demo 2>&1 | tee demo.log`, then Ctrl-C: the terminal sends SIGINT to the whole
pipeline, `tee` dies at once, and the command's next words ("Stopping…", a log line)
meet a closed pipe. Python ignores SIGPIPE and raises BrokenPipeError instead, wherever
the write happens: in a signal handler, before the handler had told anything to stop
(the demo then ran on for good), or in a thread. Here a standard stream whose reader is
gone is pointed at /dev/null, once, and the write that found it out counts as done: the
command goes on to its end, quietly, as it would have with nobody reading.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from typing import Any

_lock = threading.Lock()


class Outliving(io.TextIOBase):
    """A text stream that writes to `stream` until its reader is gone, then nowhere."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (BrokenPipeError, ConnectionResetError):
            self._reader_gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._reader_gone()

    def _reader_gone(self) -> None:
        """From now on the stream's descriptor is /dev/null's: what is still in its
        buffer, and all that follows, goes there."""
        with _lock:
            try:
                nowhere = os.open(os.devnull, os.O_WRONLY)
                os.dup2(nowhere, self._stream.fileno())
                os.close(nowhere)
            except (OSError, ValueError, io.UnsupportedOperation):
                return
        with contextlib.suppress(OSError):
            self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def outlive_readers() -> None:
    """Standard output and error outlive their readers (this process's, from now on)."""
    if not isinstance(sys.stdout, Outliving) and sys.stdout is not None:
        sys.stdout = Outliving(sys.stdout)
    if not isinstance(sys.stderr, Outliving) and sys.stderr is not None:
        sys.stderr = Outliving(sys.stderr)
