"""Reading the judges' announcements and the teams' questions (matches/models/notices.py):
what the screens show, what a team's API answers, what the control room and the audit
list. The announcements up are few and read on every snapshot and team's read: they are
kept on the shared cache, which every change empties (services/notices.py)."""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Q

from matches.caches import Fresh
from matches.models import Announcement, Entrant, Match, Question, Team
from matches.selectors import epoch_ms

ACTIVE_KEY = "notices:active"
ACTIVE_SECONDS = 60  # a safety net: every change empties the key at once
_DAY = timedelta(days=1)


def holder_keys(holder: Team | Entrant) -> tuple[int | None, int | None]:
    """The (team, entrant) an announcement or a question of this token's holder names: a
    tournament's team by its entrant (all its matches), a match's team by its first
    game's row (its token's, for every game of the match)."""
    if isinstance(holder, Entrant):
        return None, holder.pk
    if holder.entrant_id:
        return None, holder.entrant_id
    first = holder.match.first_game_id if holder.match_id else None
    if first is not None:
        return Team.objects.filter(match_id=first, index=holder.index).values_list(
            "pk", flat=True).first(), None
    return holder.pk, None


def _said(row: Announcement) -> dict[str, Any]:
    return {"id": row.pk, "text": row.text, "at": epoch_ms(row.posted_at),
            "to": "everyone" if row.to_everyone else "you",
            "team": row.team_id, "entrant": row.entrant_id}


# A team's program reads its match's state several times a second, each read carrying
# the announcements: this process keeps what the shared cache said for LOCAL_SECONDS, so
# that a read costs no round trip to the cache (a change here forgets it at once).
LOCAL_SECONDS = 1.0
LOCAL = Fresh("announcements up", LOCAL_SECONDS)


def local_forget() -> None:
    LOCAL.expire()


def active() -> list[dict[str, Any]]:
    """Every announcement up (not taken down), newest first, with whom it is for."""
    return LOCAL.get(_shared)


def _shared() -> list[dict[str, Any]]:
    """What the shared cache says is up, read from the database where it says nothing."""
    try:
        kept = cache.get(ACTIVE_KEY)
    except Exception:  # a cache that fails never stops a screen or a team
        kept = None
    if kept is None:
        kept = [_said(row) for row in Announcement.objects.filter(taken_down_at=None)]
        with contextlib.suppress(Exception):
            cache.set(ACTIVE_KEY, kept, timeout=ACTIVE_SECONDS)
    return kept


def _public(notice: dict[str, Any]) -> dict[str, Any]:
    return {key: notice[key] for key in ("id", "text", "at", "to")}


def for_everyone() -> list[dict[str, Any]]:
    """The announcements the screens show: those to everyone, newest first."""
    return [_public(notice) for notice in active() if notice["to"] == "everyone"]


def for_holder(holder: Team | Entrant | None) -> list[dict[str, Any]]:
    """The announcements a token's holder reads: everyone's and its own, newest first."""
    notices = active()
    if holder is None or all(notice["to"] == "everyone" for notice in notices):
        return for_everyone()
    team, entrant = holder_keys(holder)
    return [_public(notice) for notice in notices if notice["to"] == "everyone"
            or (team is not None and notice["team"] == team)
            or (entrant is not None and notice["entrant"] == entrant)]


def _asked(row: Question, own: bool) -> dict[str, Any]:
    said = {"id": row.pk, "question": row.text, "asked_at": epoch_ms(row.asked_at),
            "answer": row.answer or None, "answered_at": epoch_ms(row.answered_at),
            "to_everyone": row.public}
    if own:
        said["yours"] = True
    return said


def questions_for(holder: Team | Entrant | None) -> list[dict[str, Any]]:
    """A team's own questions (answered or not) and every answer given to everyone,
    newest first; without a team, the answers given to everyone."""
    shown = Q(public=True, answered_at__isnull=False)
    team, entrant = holder_keys(holder) if holder is not None else (None, None)
    mine = Q(team_id=team) if team is not None else \
        Q(entrant_id=entrant) if entrant is not None else Q(pk__in=[])
    rows = Question.objects.filter(shown | mine)[:200]
    return [_asked(row, own=(team is not None and row.team_id == team)
                   or (entrant is not None and row.entrant_id == entrant)) for row in rows]


def for_room() -> dict[str, Any]:
    """The control room's part: the questions waiting (oldest first), the latest
    answered ones and the announcements up."""
    waiting = Question.objects.filter(answered_at=None).order_by("asked_at", "pk")
    answered = Question.objects.exclude(answered_at=None).order_by("-answered_at")[:10]
    up = Announcement.objects.filter(taken_down_at=None).select_related("team", "entrant")
    return {"waiting": list(waiting[:50]), "answered": list(answered), "up": list(up)}


def for_match(match: Match) -> dict[str, Any]:
    """The audit's part: every announcement posted while the match was on the day (to
    everyone, or to one of its teams) and its teams' questions, oldest first."""
    first = match.first_game or match
    teams = list(first.teams.all())
    team_ids = [team.pk for team in teams]
    entrants = [team.entrant_id for team in teams if team.entrant_id]
    to_it = Q(team_id__in=team_ids) | Q(entrant_id__in=entrants)
    day = Q(posted_at__gte=first.created_at - _DAY)
    notices = Announcement.objects.select_related("team", "entrant").filter(
        to_it | (Q(team=None, entrant=None) & day))
    questions = Question.objects.filter(Q(team_id__in=team_ids) | Q(entrant_id__in=entrants))
    return {"announcements": list(notices.order_by("posted_at", "pk")[:100]),
            "questions": list(questions.order_by("asked_at", "pk")[:100])}
