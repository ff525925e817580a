"""The judges' hand on a match at a moment, read from its control log alone: the one
source of what their pauses, resumes and extensions did (docs/api.md, "When the day goes
wrong").

The control service (services/control.py) writes an entry for each action and stores
the hand the whole log gives (the match's start moved, its turns credited, its pause);
the public's copy behind a spectator delay (access/delay.py) takes the hand the log
gave at the moment the public sees, from the same function: neither applies nor undoes
an action on its own, so the two cannot disagree.

An entry is {"at": epoch ms, "action": "pause" | "resume" | "extend" | "close" | "void",
...}:
- a resume or an extension that names a "turn" credited that turn (a timed game's step
  closes that much later, the steps after it follow; an alternating game's mover thinks
  that much longer) with its "seconds";
- a close (fast play: every team had answered, by "fast play" not a judge) took from its
  "turn" the "seconds" (negative) its step had left: it closed then, the steps after it
  follow;
- one that names no turn moved the start by its "seconds" (a pause begun before the
  start), in a game with a start to move (timed, not played step by step by its
  protocol server);
- a pause holds the match from its "at", with its "reason", until a resume or a void.

Pure: no query, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Hand:
    """What the judges' actions up to a moment did to a match."""

    start_moved: timedelta = timedelta(0)  # its start, later by this
    credits: dict[str, int] = field(default_factory=dict)  # {"turn": ms given}
    paused_at: datetime | None = None  # held since then, and why
    pause_reason: str = ""


def hand_at(log: Iterable[Mapping[str, Any]], moment: datetime | None = None, *,
            start_movable: bool = True) -> Hand:
    """The hand the entries of `log` at `moment` or before gave (all of them: None).
    `start_movable`: the match has a start an action can move (a timed game not played
    by a protocol server)."""
    until = None if moment is None else moment.timestamp() * 1000
    moved, credits = timedelta(0), {}
    paused_at, reason = None, ""
    for entry in log:
        if until is not None and entry.get("at", 0) > until:
            continue
        action, seconds = entry.get("action"), entry.get("seconds") or 0
        if action == "pause":
            paused_at = datetime.fromtimestamp(entry["at"] / 1000, tz=UTC)
            reason = entry.get("reason", "")
        elif action in ("resume", "void"):
            paused_at, reason = None, ""
        if action in ("resume", "extend", "close"):
            if "turn" in entry:
                key = str(entry["turn"])
                credits[key] = credits.get(key, 0) + round(seconds * 1000)
            elif start_movable:
                moved += timedelta(seconds=seconds)
    return Hand(moved, credits, paused_at, reason)
