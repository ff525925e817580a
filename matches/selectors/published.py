"""The published matches' list (/matches/): newest first, filtered by game, team, board
and dates, as the viewer may see it, with each match's final scores read in one query."""

from __future__ import annotations

import itertools
from datetime import date, datetime
from typing import Any

from django.db.models import F

from matches.access import published_seen
from matches.models import Match, Turn


def published_matches(chosen: dict[str, str], *, judge: bool, now: datetime,
                      limit: int) -> tuple[list[Match], dict[int, list[dict[str, Any]]]]:
    """Up to `limit` published matches that the filters `chosen` keep (`game`, a part of
    a `team`'s or the `board`'s name, `since` and `until` as ISO dates; a malformed date
    is set to "" in `chosen` and filters nothing), and each one's final scores by id. A
    viewer who is no judge sees none whose end is still behind its delay."""
    matches = Match.objects.filter(published=True).select_related("board")
    if chosen["game"]:
        matches = matches.filter(game=chosen["game"])
    if chosen["team"]:
        matches = matches.filter(teams__name__icontains=chosen["team"]).distinct()
    if chosen["board"]:
        matches = matches.filter(board__name__icontains=chosen["board"])
    for key, lookup in (("since", "start_at__date__gte"), ("until", "start_at__date__lte")):
        try:
            matches = matches.filter(**{lookup: date.fromisoformat(chosen[key])})
        except ValueError:
            chosen[key] = ""
    matches = matches.prefetch_related("teams").order_by("-start_at")
    if not judge:
        matches = (match for match in matches.iterator(chunk_size=limit)
                   if published_seen(match, own=False, now=now))
    found = list(itertools.islice(matches, limit))
    finals = {row.match_id: row.scores for row in Turn.objects.filter(
        match__in=found, number=F("match__resolved_turns")).only("match_id", "scores")}
    return found, finals
