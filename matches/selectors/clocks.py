"""Deadlines and an alternating game's chess clocks: when the open strategy step ends,
and each team's thinking time left (kept per turn: stored turns never change)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from matches.caches import Kept, identity
from matches.models import Match
from matches.rules import rules_for


def next_deadline(match: Match, now: datetime) -> datetime | None:
    """The deadline of the strategy step now open, or of the next one to open (an
    alternating game's: when the mover's thinking time runs out)."""
    if match.over:
        return None
    if match.alternating:
        return move_clock(match, now)["deadline"]
    turn = match.next_turn_to_open(now)
    return match.deadline(turn) if turn <= match.turns else None


def move_clock(match: Match, now: datetime, upto: int | None = None) -> dict[str, Any] | None:
    """An alternating game's chess clocks at `now` (None for a simultaneous game), or
    as they stood when turn `upto` was resolved: `to_move`, the team whose move it is
    (None once over); `remaining_ms`, each team's thinking time left; `deadline`, when
    the mover's runs out. The time from one turn's resolution (or the start) to the next
    is charged to that turn's mover."""
    if not match.alternating:
        return None
    rules = rules_for(match.game)
    latest = upto is None or upto >= match.resolved_turns
    upto = match.resolved_turns if upto is None else upto
    used, last = _time_used(match, upto)
    remaining = [match.clock_ms - spent for spent in used]
    to_move = None if latest and match.over else rules.mover(upto + 1)
    deadline = None
    if to_move is not None:
        credit = credited_ms(match, upto + 1)
        deadline = last + timedelta(milliseconds=remaining[to_move] + credit)
        moment = now if match.paused_at is None or not latest else min(now, match.paused_at)
        if latest and moment > last:
            remaining[to_move] -= (moment - last).total_seconds() * 1000 - credit
        if latest and match.paused_at is not None:
            deadline = None  # held by the judges: no time runs out
    elif (match.result or {}).get("decided_by") == "time":
        remaining[1 - match.result["winner"]] = 0
    return {"to_move": to_move, "remaining_ms": [max(0, round(left)) for left in remaining],
            "deadline": deadline}


# Each team's thinking time used up to a turn, per (match's identity, its start, turn):
# stored turns never change, and every message of a move asks for it several times.
TIME_USED = Kept("thinking time used", entries=1024)


def _time_used(match: Match, upto: int) -> tuple[tuple[float, float], datetime]:
    """The ms each team's moves of turns 1..upto took, and when turn `upto` was resolved
    (the start for 0): a turn's time runs from the previous one's resolution."""
    key = (identity(match), match.start_at, upto)
    kept = TIME_USED.peek(key)
    if kept is not None:
        return kept
    rules = rules_for(match.game)
    used, last, stored = [0.0, 0.0], match.start_at, 0
    for number, resolved_at in match.turn_rows.filter(number__lte=upto).order_by(
            "number").values_list("number", "resolved_at"):
        resolved_at += match.shown_late  # a delayed copy's turns come that much later
        used[rules.mover(number)] += ((resolved_at - last).total_seconds() * 1000
                                      - credited_ms(match, number))
        last, stored = resolved_at, number
    if stored == upto:  # every turn up to it is stored, for good
        TIME_USED.put(key, ((used[0], used[1]), last))
    return (used[0], used[1]), last


def paused_now(match: Match) -> dict[str, Any] | None:
    """A paused match's pause (docs/live-protocol.md): since when, why, and the time its
    open step had left (a timed game's: it has as much again once resumed); None while
    it runs."""
    if match.paused_at is None:
        return None
    left = None
    if not match.alternating and not match.protocol_played:
        deadline = next_deadline(match, match.paused_at)
        left = None if deadline is None else max(0, round(
            (deadline - match.paused_at).total_seconds() * 1000))
    return {"since": int(match.paused_at.timestamp() * 1000), "reason": match.pause_reason,
            "remaining_ms": left}


def credited_ms(match: Match, turn: int) -> float:
    """The thinking time the judges gave back to a turn's mover (a pause, an
    extension: services/control.py)."""
    return float((match.credits or {}).get(str(turn), 0))


def move_clock_fields(match: Match, now: datetime, upto: int | None = None) -> dict[str, Any]:
    """`to_move` and `clocks` (each team's thinking time left, ms) of an alternating
    game's moment (or after turn `upto`); both null for a simultaneous game."""
    clock = move_clock(match, now, upto)
    if clock is None:
        return {"to_move": None, "clocks": None}
    return {"to_move": clock["to_move"], "clocks": clock["remaining_ms"]}
