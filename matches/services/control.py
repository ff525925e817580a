"""The judges' hand on a match: pausing, resuming, extending and voiding it
(`manage.py pausematch`, `resumematch`, `extendmatch`, `voidmatch`; docs/api.md,
"Held by the judges"). Each acts on the match's row locked, so that it is done once
whichever process asks, and is kept in the match's `control_log` for the audit.

A pause holds the match where it is: its clock resolves nothing (the claim of a turn
requires a running match), every team's request is answered 409 `paused`, and each
screen shows "Paused by the judges: <reason>". Resuming gives the time back: a timed
game's deadlines, its later games' starts with them, all move by the pause's length
(the open step keeps what it had left); an alternating game's mover is credited the
pause on its chess clock. Extending moves a timed game's deadlines by N seconds, or
gives the mover N seconds more. A game played step by step over its own protocol
(CHaser) is held by its server, which looks before each step and waits while the match
is paused (and ends the game when it is void); it has no deadline to extend.

A void match has no result and counts nowhere: its result becomes
`{"winner": null, "decided_by": "void", "reason": …, "by": …}` (the result it had, if it
had one, kept under `"voided"`), it is closed at once if it was running (the clock
resolves nothing more, and teams are answered that it is over), every screen is told
its end, and a tournament's runner makes the fixture's next match at once
(docs/formats.md, "Results"; docs/tournaments.md, "The judges' hand"). Every game of a
match of several goes with it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from matches.live.broadcast import control_announce, end_announce
from matches.models import Match, Submission, Team
from matches.models.hand import hand_at
from matches.selectors import epoch_ms, match_games
from matches.services.clock import clock_wake
from matches.services.transition import match_ended

EXTEND_LIMIT = 3600  # seconds a single extension may give

VOID = "void"


class ControlError(ValueError):
    """A judge's request that cannot be carried out, in words for them."""


def is_void(match: Match) -> bool:
    return (match.result or {}).get("decided_by") == VOID


def void_result(reason: str, judge: str, had: dict[str, Any] | None) -> dict[str, Any]:
    result = {"winner": None, "decided_by": VOID, "reason": reason, "by": judge}
    if had and had.get("decided_by") != VOID:
        result["voided"] = had
    return result


def match_void(*, match_id: int, reason: str, judge: str) -> Match:
    """Void a match (any of its games names it), with the reason the screens show."""
    reason = " ".join(reason.split())[:200]
    if not reason:
        raise ControlError("a void match needs a reason saying why")
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        first = match.first_game or match
        games = match_games(first)
        if all(is_void(game) for game in games):
            raise ControlError(f"match {first.pk} is void already")
        now = timezone.now()
        for game in games:
            if is_void(game):
                continue
            game.result, game.ended_early = void_result(reason, judge, game.result), True
            game.ended_at = game.ended_at or now
            _noted(game, now, "void", judge, reason=reason)
            Match.objects.filter(pk=game.pk).update(result=game.result, ended_early=True,
                                                    paused_at=None, control_log=game.control_log,
                                                    ended_at=game.ended_at)
            end_announce(game)
        transaction.on_commit(lambda: match_ended.send(match_void, match=first), robust=True)
    return first


def _held(match_id: int, *, timed_only: bool = False) -> Match:
    """The match, its row locked, if the judges may hold it: running or to come (and,
    for what moves deadlines, one that has them: not a game played step by step over
    its own protocol, whose server holds it between two steps)."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.over:
        raise ControlError(f"match {match.pk} is over")
    if timed_only and match.protocol_played:
        raise ControlError(f"match {match.pk} is played step by step over its own protocol: "
                           "it has no deadline to move (pause it instead)")
    return match


def _noted(match: Match, now: datetime, action: str, judge: str, **said: Any) -> None:
    """The action written to the match's log, and the match given the hand its whole log
    says (models/hand.py, the one source: the public's copy behind a delay reads the
    same log at its moment): its start moved and its turns credited. (Its pause, which
    the log gives to the millisecond, the caller keeps to the microsecond.)"""
    movable = _start_movable(match)
    planned = match.start_at - hand_at(match.control_log, start_movable=movable).start_moved
    match.control_log = [*match.control_log,
                         {"at": epoch_ms(now), "action": action, "by": judge, **said}]
    hand = hand_at(match.control_log, start_movable=movable)
    match.start_at = planned + hand.start_moved
    match.credits = hand.credits


def _start_movable(match: Match) -> bool:
    """Whether the judges' time given before the start moves it (a timed game's)."""
    return not match.alternating and not match.protocol_played


def _said(reason: str, problem: str) -> str:
    said = " ".join(reason.split())[:200]
    if not said:
        raise ControlError(problem)
    return said


def match_pause(*, match_id: int, reason: str, judge: str,
                now: datetime | None = None) -> Match:
    """Hold the match now, with the reason the screens show."""
    reason = _said(reason, "a pause needs a reason saying why")
    now = now or timezone.now()
    with transaction.atomic():
        match = _held(match_id)
        if match.paused_at is not None:
            raise ControlError(f"match {match.pk} is paused already")
        match.paused_at, match.pause_reason = now, reason  # to the microsecond: the log's ms
        _noted(match, now, "pause", judge, reason=reason)
        match.save(update_fields=["paused_at", "pause_reason", "control_log"])
        control_announce(match, "paused")
    return match


def match_resume(*, match_id: int, judge: str, now: datetime | None = None) -> Match:
    """Let a paused match go on, the pause's length given back."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _held(match_id)
        if match.paused_at is None:
            raise ControlError(f"match {match.pk} is not paused")
        held = now - match.paused_at
        credited = _given_to(match, held, paused_at=match.paused_at)
        match.paused_at, match.pause_reason = None, ""
        _noted(match, now, "resume", judge, seconds=round(held.total_seconds(), 3),
               **credited)
        match.save(update_fields=["paused_at", "pause_reason", "control_log", "start_at",
                                  "credits"])
        control_announce(match, "resumed")
        transaction.on_commit(clock_wake, robust=True)
    return match


def match_extend(*, match_id: int, seconds: float, judge: str, reason: str = "",
                 now: datetime | None = None) -> Match:
    """Give the open step (or an alternating game's mover) `seconds` more."""
    if not 0 < seconds <= EXTEND_LIMIT:
        raise ControlError(f"an extension is more than 0 and at most {EXTEND_LIMIT} seconds")
    now = now or timezone.now()
    with transaction.atomic():
        match = _held(match_id, timed_only=True)
        credited = _given_to(match, timedelta(seconds=seconds), extended=now)
        _noted(match, now, "extend", judge, seconds=seconds, reason=" ".join(reason.split()),
               **credited)
        match.save(update_fields=["control_log", "start_at", "credits"])
        control_announce(match, "extended")
        transaction.on_commit(clock_wake, robust=True)
    return match


def match_close_answered(match: Match, turn: int, now: datetime) -> bool:
    """Fast play (`Match.fast_play`): once every team has answered timed turn `turn`,
    its strategy step closes now (a "close" entry of its log takes the time it had
    left), so that the clock resolves it and the next turn opens after its transition.
    Called with the match's row locked (the answer path's); whether it closed."""
    left = match.deadline(turn) - now
    if left <= timedelta(0) or match.paused_at is not None:
        return False
    answered = Submission.objects.filter(match_id=match.pk, turn=turn, status_code=202,
                                         team__isnull=False).values("team").distinct().count()
    if answered < Team.objects.filter(match_id=match.pk).count():
        return False
    full = Match.objects.get(pk=match.pk)
    _later_games_move(full, -left)  # (a match's next game starts as much earlier)
    _noted(full, now, "close", "fast play", turn=turn,
           seconds=-round(left.total_seconds(), 3))
    full.save(update_fields=["control_log", "start_at", "credits"])
    match.credits = full.credits
    control_announce(full, "answered")
    transaction.on_commit(clock_wake, robust=True)
    return True


def _given_to(match: Match, given: timedelta, extended: datetime | None = None,
              paused_at: datetime | None = None) -> dict[str, int]:
    """Where time given (an extension made at `extended`) or given back (the resume of a
    pause begun at `paused_at`) goes, said for the log ({"turn": the turn credited}, or
    nothing: the start moves), which gives the match its hand (`_noted`):
    - an alternating game's mover is credited it;
    - a timed game's step is credited it: on an extension, the step open then, or the
      next to open (between steps); on a resume, the step open when the pause began (or,
      begun between steps, the one that had just closed, so that the next opens later).
      That step closes `given` later and every later step follows, while the turns
      before keep their times: the open turn a program reads never goes back, and each
      past turn's answers are still timed from when it really opened;
    - a pause begun before the start moves the start;
    - a later game's start moves too (here: it is another match's row).
    A game played step by step has nothing to move (its server simply waited)."""
    if match.protocol_played:
        return {}
    if match.alternating:
        return {"turn": match.resolved_turns + 1}
    _later_games_move(match, given)
    if extended is not None:
        return {"turn": match.next_turn_to_open(extended)}
    if paused_at is not None and match.last_opened(paused_at) >= 1:
        return {"turn": match.last_opened(paused_at)}
    return {}


def _later_games_move(match: Match, given: timedelta) -> None:
    first = match.first_game or match
    Match.objects.filter(pk__in=[game.pk for game in match_games(first)],
                         start_at__gt=match.start_at).update(start_at=F("start_at") + given)
