"""Importing a match record: a finished match whose turns the rules compute.

The record's actions become counted submissions entered by the import, so exporting
it again (`selectors.match_export`) gives the same record.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from matches.models import Board, Match, Submission, Team, Turn, token_hash
from matches.rules.records import MatchRecord
from matches.rules.timeline import compute_timeline
from matches.services.matches import team_names_check

IMPORTED = "import"  # Submission.entered_by of an imported record's actions
IMPORT_PERIOD_MS = (1000, 0)  # strategy and transition of an imported match: nominal


@transaction.atomic
def match_import(record: MatchRecord, published: bool = False) -> Match:
    """Store a parsed record as a finished (closed) match; all or nothing."""
    # (no clock to wake: an imported match is finished)
    team_names_check([team["name"] for team in record.teams])
    timeline = compute_timeline(record)
    played = len(record.actions)
    strategy_ms, transition_ms = IMPORT_PERIOD_MS
    now = timezone.now()
    match = Match.objects.create(
        game=record.game, title=record.title, board=_board(record), agents=record.agents,
        turns=record.turns, strategy_ms=strategy_ms, transition_ms=transition_ms,
        start_at=now - timedelta(milliseconds=(strategy_ms + transition_ms) * played),
        resolved_turns=played, result=timeline.get("result"), closed=True,
        published=published,
    )
    teams = [Team.objects.create(match=match, index=index, name=team["name"],
                                 token_hash=token_hash(secrets.token_urlsafe(32)))
             for index, team in enumerate(record.teams)]
    Submission.objects.bulk_create(
        _submission(match, teams[index], turn, actions, match.deadline(turn))
        for turn, lists in enumerate(record.actions, 1)
        for index, actions in enumerate(lists) if actions
    )
    Turn.objects.bulk_create(
        Turn(match=match, number=state["turn"], cells=state["cells"], agents=state["agents"],
             outcomes=state["outcomes"], scores=state["scores"], resolved_at=now)
        for state in timeline["states"][1:]
    )
    return match


def _board(record: MatchRecord) -> Board:
    """The board row of an imported record: one per distinct board, named by its hash."""
    data = json.dumps(record.board, sort_keys=True)
    digest = hashlib.sha256(f"{record.game}:{data}".encode()).hexdigest()[:12]
    board, _ = Board.objects.get_or_create(
        name=f"imported-{digest}",
        defaults={"game": record.game, "width": record.board["width"],
                  "height": record.board["height"], "data": record.board,
                  "source": f"imported record: {record.title}"[:200]},
    )
    return board


def _submission(match: Match, team: Team, turn: int, actions: list, at) -> Submission:
    body = json.dumps({"actions": actions}).encode()
    return Submission(
        match=match, team=team, turn=turn, received_at=at, content_type="application/json",
        body=body, body_size=len(body), actions=actions, status_code=202, counted=True,
        entered_by=IMPORTED, note="imported from a match record",
    )
