"""Importing a match record: a finished match whose turns the rules compute.

The record's actions become counted submissions entered by the import, so exporting
it again (`selectors.match_export`) gives the same record.
"""

from __future__ import annotations

import itertools
import json
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from matches.models import Board, Match, Submission, Team, Turn, token_hash
from matches.rules import rules_for
from matches.rules.records import MatchRecord
from matches.rules.timeline import compute_timeline
from matches.services.matches import team_names_check

IMPORTED = "import"  # Submission.entered_by of an imported record's actions
IMPORT_PERIOD_MS = (1000, 0)  # strategy and transition of an imported match: nominal


@transaction.atomic
def match_import(record: MatchRecord, published: bool = False) -> Match:
    """Store a parsed record as a finished match (no turn after its last); all or nothing."""
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
        resolved_turns=played, result=timeline.get("result"), ended_early=True,
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
    """The board row of an imported record: a stored board of the same game with the
    same data if there is one (a named public board keeps its name), else a new one
    named for people, "<game> board W×H" (then " #2", " #3" for other boards of that
    size)."""
    width, height = record.board["width"], record.board["height"]
    same_size = Board.objects.filter(game=record.game, width=width, height=height)
    for board in same_size.order_by("id"):
        if board.data == record.board:
            return board
    base = f"{rules_for(record.game).title} board {width}×{height}"
    taken = set(Board.objects.filter(name__startswith=base).values_list("name", flat=True))
    name = next(candidate for number in itertools.count(1)
                if (candidate := base if number == 1 else f"{base} #{number}") not in taken)
    return Board.objects.create(name=name, game=record.game, width=width, height=height,
                                data=record.board,
                                source=f"imported record: {record.title}"[:200])


def _submission(match: Match, team: Team, turn: int, actions: list, at) -> Submission:
    body = json.dumps({"actions": actions}).encode()
    return Submission(
        match=match, team=team, turn=turn, received_at=at, content_type="application/json",
        body=body, body_size=len(body), actions=actions, status_code=202, counted=True,
        entered_by=IMPORTED, note="imported from a match record",
    )
