"""The one clock the levels read their budgets by (a monotonic clock, in seconds): one
place, so that a test can hand them a clock of its own and see a level keep its
deadline however busy the machine is (tests/bots)."""

import time


def now() -> float:
    return time.monotonic()
