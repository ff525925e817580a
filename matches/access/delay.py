"""The spectator delay (docs/live-protocol.md, "The spectator delay"): a match with
`delay_s` is shown to everyone but the judges and its own teams that many seconds
behind, as a broadcast of a chess game is, so that nobody in the hall can coach a team
from the screens.

`delayed(match)` is the match as the public sees it now: a copy, never saved, whose
turns are those resolved at least `delay_s` ago and whose times (its start, its pause,
every deadline computed from them) are `delay_s` later than the match's own. Every read
of a match honours its `resolved_turns` and `shown_late`, so each page, socket, picture
and API read built from the copy shows the match as it stood then, and nothing after.
`access.as_seen` chooses between the match and its copy for a viewer.
"""

from __future__ import annotations

import copy
from bisect import bisect_right
from datetime import datetime, timedelta

from django.utils import timezone

from matches.caches import Kept, identity
from matches.models import Match, Turn
from matches.models.hand import hand_at

DELAY_MAX_S = 3600  # an hour behind at most

# Each match's turns' resolution times so far, in turn order: a stored turn never
# changes, so a copy is made from these and one query for the turns stored since.
RESOLUTIONS = Kept("turns' resolution times", entries=1024)


class DelayedCopy(Exception):
    """A delayed copy of a match was asked to be saved: it is only ever read."""


def read_only_copy(instance):
    """A copy of a model instance as the public sees it late (a match, a fixture): it
    is only ever read; saving, deleting or refreshing it raises DelayedCopy."""
    def refused(*args, **kwargs):
        raise DelayedCopy(f"a {type(instance).__name__.lower()} as the public sees it late "
                          "is never saved")
    shown = copy.copy(instance)
    shown.__dict__.pop("_prefetched_objects_cache", None)  # its own reads, like the row's
    shown.save = shown.delete = shown.refresh_from_db = refused
    return shown


def delayed(match: Match, now: datetime | None = None) -> Match:
    """The match as the public sees it at `now` (the match itself when it has no delay)."""
    if not match.delay_s or match.shown_late:
        return match
    now = now or timezone.now()
    late = timedelta(seconds=match.delay_s)
    moment = now - late
    shown = read_only_copy(match)
    shown.shown_late = late
    _judges_hand_then(shown, match, moment)
    shown.start_at += late
    if shown.paused_at is not None:
        shown.paused_at += late
    turns = turns_resolved_by(match, moment)
    ended = match.ended_at is None or match.ended_at <= moment
    if turns < match.resolved_turns or (match.over and not ended):
        # its last turns, or its end without one (a time-out, a void), are still to come
        shown.resolved_turns, shown.result, shown.ended_early = turns, None, False
    return shown


def _judges_hand_then(shown: Match, match: Match, moment: datetime) -> None:
    """The pause, start and credits of the match as they stood at `moment`: the hand its
    control log gave then (models/hand.py, the one source, which the judges' actions
    also store from), its start moved back by what the actions since moved it."""
    movable = not match.alternating and not match.protocol_played
    then = hand_at(match.control_log or (), moment, start_movable=movable)
    since = hand_at(match.control_log or (), start_movable=movable).start_moved - \
        then.start_moved
    shown.start_at -= since
    shown.credits = then.credits
    shown.paused_at, shown.pause_reason = then.paused_at, then.pause_reason


def turns_resolved_by(match: Match, moment: datetime) -> int:
    """How many of the match's turns were resolved at `moment` or before."""
    return bisect_right(resolution_times(match), moment)


def resolution_times(match: Match) -> list[datetime]:
    """When each of the match's stored turns 1..resolved_turns was resolved."""
    key = (identity(match), match.start_at - match.shown_late)
    times = RESOLUTIONS.peek(key) or []
    if len(times) < match.resolved_turns:
        times = [*times, *Turn.objects.filter(
            match_id=match.pk, number__gt=len(times), number__lte=match.resolved_turns,
        ).order_by("number").values_list("resolved_at", flat=True)]
        RESOLUTIONS.put(key, times)
    return times[:match.resolved_turns]


def due_times(match: Match, now: datetime | None = None) -> list[tuple[datetime, int]]:
    """The turns the public has still to see, each with when it comes to them: its
    resolution `delay_s` later (a delayed socket's first minute, before its delay line
    has heard of them: matches/live/delay.py)."""
    if not match.delay_s:
        return []
    now = now or timezone.now()
    late = timedelta(seconds=match.delay_s)
    return [(at + late, number) for number, at in enumerate(resolution_times(match), 1)
            if at + late > now]
