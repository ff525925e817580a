"""What a long-running process (a server, a clock) does once its code is loaded, so that
its time-critical threads — the turn clock, the teams' answers, the event loop — are not
held up by the heavy work of other threads in the same interpreter
(docs/architecture.md, "Time apart from reads").
"""

from __future__ import annotations

import gc
import sys

# How long a thread may hold the interpreter while another waits for it (Python's
# default is 5 ms). A team's answer takes the interpreter back some ten times (after each
# query, each read of its socket); behind a thread building a large read, each of those
# waited up to the whole interval: bench/attack.py's team POST p99 went from 23–116 ms
# to 15–31 ms with 1 ms.
SWITCH_SECONDS = 0.001


def keep_responsive() -> None:
    """Keep what is loaded by now (Django, the rules, the routes) out of the garbage
    collector's full passes, which otherwise scan it all and stop every thread for 50 ms
    or more when one comes (what is made later is collected as ever); and let a waiting
    thread take the interpreter after SWITCH_SECONDS."""
    gc.freeze()
    sys.setswitchinterval(SWITCH_SECONDS)
