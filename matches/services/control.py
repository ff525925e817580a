"""The judges' hand on a match (issue 27's control room starts here): voiding a match.

A void match has no result and counts nowhere: its result becomes
`{"winner": null, "decided_by": "void", "reason": …, "by": …}` (the result it had, if it
had one, kept under `"voided"`), it is closed at once if it was running (the clock
resolves nothing more, and teams are answered that it is over), every screen is told
its end, and a tournament's runner makes the fixture's next match at once
(docs/formats.md, "Results"; docs/tournaments.md, "The judges' hand"). Every game of a
match of several goes with it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from matches.live.broadcast import end_announce
from matches.models import Match
from matches.selectors import match_games
from matches.services.transition import match_ended

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
        for game in games:
            if is_void(game):
                continue
            game.result, game.closed = void_result(reason, judge, game.result), True
            Match.objects.filter(pk=game.pk).update(result=game.result, closed=True)
            transaction.on_commit(lambda game=game: end_announce(game), robust=True)
        transaction.on_commit(lambda: match_ended.send(match_void, match=first), robust=True)
    return first
