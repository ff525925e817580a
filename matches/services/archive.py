"""Match records in and out, and the judges' proof that stored turns are right.

- `match_export(match)`: its match-record/1 (the counted actions of resolved turns).
- `record_from_bytes(raw, name)`: a match-record/1, or a Blokus Duo game record.
- `match_import(record)`: a finished match whose turns the rules compute; the record's
  actions become counted submissions entered by the import, so exporting it again
  gives the same record.
- `match_verify(match)`: recompute the match from its counted actions and compare
  with its stored turns: the first differing turn and cell, or none.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from matches import selectors
from matches.models import Board, Match, Submission, Team, Turn, token_hash
from matches.rules.blokus_duo import record_from_kifu
from matches.rules.checks import RecordError
from matches.rules.records import MatchRecord, first_difference, parse_record
from matches.rules.timeline import compute_timeline

IMPORTED = "import"  # Submission.entered_by of an imported record's actions
IMPORT_PERIOD_MS = (1000, 0)  # strategy and transition of an imported match: nominal


@dataclass(frozen=True)
class Verdict:
    verified: bool
    turns: int
    detail: str  # "" when verified, else where the stored turns first differ

    def __str__(self) -> str:
        if self.verified:
            return f"verified: {self.turns} stored turns equal the replay of the record"
        return f"differs: {self.detail}"


def match_export(match: Match) -> dict[str, Any]:
    return selectors.match_record(match).to_json()


def stored_timeline(match: Match) -> dict[str, Any]:
    """The timeline/1 as stored: the empty board, then every Turn row."""
    states = [selectors.initial_view(match)]
    for row in match.turn_rows.order_by("number"):
        states.append(row.state() | {"outcomes": row.outcomes})
    timeline = {"format": "timeline/1", "game": match.game, "states": states}
    if match.result is not None:
        timeline["result"] = match.result
    return timeline


def match_verify(match: Match) -> Verdict:
    stored = stored_timeline(match)
    replayed = compute_timeline(selectors.match_record(match))
    if not match.over:
        replayed.pop("result", None)  # a running match has no result yet
    difference = first_difference(replayed, stored)
    detail = f"{difference} (expected: the replay; computed: the stored turns)"
    return Verdict(difference is None, len(stored["states"]) - 1, detail if difference else "")


def record_from_bytes(raw: bytes, name: str) -> MatchRecord:
    """A file's record: JSON is a match-record/1, anything else a Blokus Duo game
    record titled after the file. Raises RecordError or KifuError, in one line."""
    if raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return parse_record(raw)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as error:
        problem = f"neither JSON nor a game record (byte {error.start} is not ASCII)"
        raise RecordError(problem) from None
    return parse_record(record_from_kifu(text, title=Path(name).stem))


@transaction.atomic
def match_import(record: MatchRecord, published: bool = False) -> Match:
    """Store a parsed record as a finished (closed) match; all or nothing."""
    limit = Team._meta.get_field("name").max_length
    for index, team in enumerate(record.teams):
        if len(team["name"]) > limit:
            raise RecordError(f"teams[{index}].name: longer than {limit} characters")
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
