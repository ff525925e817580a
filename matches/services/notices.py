"""The judges' announcements and the teams' questions (README, "The contest day";
docs/api.md, "Announcements and questions"; docs/live-protocol.md, `notices`).

An announcement to everyone is a banner on every screen until a judge takes it down:
each change sends every running match's sockets the announcements up now. One to a
team reaches that team's API alone. A question is stored as it is asked; a judge
answers it privately or to everyone. Everything stays, for the audit."""

from __future__ import annotations

import contextlib
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from matches.live.broadcast import notices_announce, room_announce
from matches.models import Announcement, Entrant, Question, Team
from matches.models.notices import TEXT_LIMIT
from matches.selectors.notices import ACTIVE_KEY, holder_keys, local_forget

QUESTIONS_WAITING = 5  # a team's questions not yet answered, at most
QUESTIONS_PER_HOUR = 30  # a team's questions in the last hour, at most


class NoticeError(ValueError):
    """A post, question or answer that cannot be taken, in words for whoever sent it."""


class TooManyQuestions(NoticeError):
    """A team asking faster than the judges can answer."""


def _text(text: str, what: str) -> str:
    text = (text or "").strip().replace("\r\n", "\n")
    if not text:
        raise NoticeError(f"{what} is empty")
    if len(text) > TEXT_LIMIT:
        raise NoticeError(f"{what} has {len(text)} characters; at most {TEXT_LIMIT}")
    return text


def _changed(row: Announcement) -> None:
    """Every process reads the announcements afresh; the screens are sent them when
    theirs changed (one to a team alone never reaches a screen)."""
    with contextlib.suppress(Exception):  # the key times out within a minute anyway
        cache.delete(ACTIVE_KEY)
    local_forget()
    room_announce()
    if row.to_everyone:
        notices_announce()


def announcement_post(*, text: str, judge: str, to: Team | Entrant | None = None
                      ) -> Announcement:
    """Post an announcement to everyone, or to one team (a match's or a tournament's)."""
    text = _text(text, "the announcement")
    team, entrant = holder_keys(to) if to is not None else (None, None)
    with transaction.atomic():
        row = Announcement.objects.create(text=text, team_id=team, entrant_id=entrant,
                                          posted_at=timezone.now(), posted_by=judge)
        transaction.on_commit(lambda: _changed(row), robust=True)
    return row


def announcement_take_down(*, announcement_id: int, judge: str) -> Announcement:
    with transaction.atomic():
        row = Announcement.objects.select_for_update().filter(pk=announcement_id).first()
        if row is None:
            raise NoticeError(f"there is no announcement {announcement_id}")
        if row.taken_down_at is not None:
            raise NoticeError(f"announcement {announcement_id} is down already")
        row.taken_down_at, row.taken_down_by = timezone.now(), judge
        row.save(update_fields=["taken_down_at", "taken_down_by"])
        transaction.on_commit(lambda: _changed(row), robust=True)
    return row


def question_ask(*, holder: Team | Entrant, text: str, remote_addr: str | None = None
                 ) -> Question:
    """Store a team's question, for the judges to answer. TooManyQuestions while it has
    QUESTIONS_WAITING unanswered, or asked QUESTIONS_PER_HOUR in the last hour."""
    text = _text(text, "the question")
    team, entrant = holder_keys(holder)
    if team is None and entrant is None:  # a game's row whose match's first has gone
        raise NoticeError("this token's team has no match to ask about")
    own = Question.objects.filter(team_id=team) if team is not None else \
        Question.objects.filter(entrant_id=entrant)
    with transaction.atomic():  # the limits counted and the question kept in one step:
        # the asker's row locked (PostgreSQL; SQLite's transactions here are one at a
        # time), so that questions sent at once never pass the limits together
        asker = Team.objects.filter(pk=team) if team is not None else \
            Entrant.objects.filter(pk=entrant)
        list(asker.select_for_update().values_list("pk", flat=True))
        now = timezone.now()
        if own.filter(answered_at=None).count() >= QUESTIONS_WAITING:
            raise TooManyQuestions(f"{QUESTIONS_WAITING} of your questions wait for an "
                                   "answer; ask again once the judges have answered one")
        if own.filter(asked_at__gte=now - timedelta(hours=1)).count() >= QUESTIONS_PER_HOUR:
            raise TooManyQuestions(f"at most {QUESTIONS_PER_HOUR} questions an hour")
        room_announce()
        return Question.objects.create(team_id=team, entrant_id=entrant, asker=holder.name,
                                       text=text, asked_at=now, remote_addr=remote_addr)


def question_answer(*, question_id: int, text: str, judge: str, public: bool) -> Question:
    """Answer a question, to its team alone or to everyone (its question shown with it,
    not who asked). An answer may be given again: the new one replaces it."""
    text = _text(text, "the answer")
    with transaction.atomic():
        row = Question.objects.select_for_update().filter(pk=question_id).first()
        if row is None:
            raise NoticeError(f"there is no question {question_id}")
        row.answer, row.answered_at, row.answered_by = text, timezone.now(), judge
        row.public = public
        row.save(update_fields=["answer", "answered_at", "answered_by", "public"])
        room_announce()
    return row
