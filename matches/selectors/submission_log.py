"""What the judges read: every submission of a match, turn by turn, as received.

Reads only; the audit page, its exports and the admin share these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from matches.models import Match, Submission
from matches.rules import reasons, rules_for
from matches.selectors import epoch_ms

EXPORT_FIELDS = ["id", "turn", "team", "team_name", "received_at", "received_at_ms",
                 "remote_addr", "content_type", "body_size", "body", "status_code", "error",
                 "detail", "counted", "entered_by", "note", "dialect"]


@dataclass
class AuditTurn:
    number: int | None  # None: requests sent outside any strategy step
    submissions: list[Submission] = field(default_factory=list)
    outcomes: list[list[dict[str, Any]]] | None = None  # per team, once resolved
    scores: list[dict[str, int]] | None = None


def audit_log(match: Match) -> list[AuditTurn]:
    """Per turn (latest first), the submissions in the order received and the
    counted actions' outcomes; requests outside a strategy step come last."""
    turns: dict[int | None, AuditTurn] = {}
    for row in match.turn_rows.order_by("number"):
        # each action in the game's words, and its reason in the page's language (the
        # stored English kept beside it, as the record has it)
        outcomes = [[o | {"said": said(match.game, o),
                          "reason_said": reasons.said(o["reason"]) if o.get("reason") else ""}
                     for o in team] for team in row.outcomes]
        turns[row.number] = AuditTurn(row.number, outcomes=outcomes, scores=row.scores)
    for submission in match.submissions.select_related("team").order_by("received_at", "id"):
        turns.setdefault(submission.turn, AuditTurn(submission.turn)).submissions.append(
            submission)
    return sorted(turns.values(), key=lambda t: -1 if t.number is None else t.number,
                  reverse=True)


def said(game: str, outcome: dict[str, Any]) -> str:
    """What a team sent, in the record's key order whatever the database kept (the
    game's rules know its keys and which are the judge's answer)."""
    return rules_for(game).said(outcome)


def body_text(submission: Submission) -> str:
    """The raw body as text (bytes that are not UTF-8 shown as \\x.. escapes)."""
    return bytes(submission.body).decode("utf-8", errors="backslashreplace")


def export_rows(match: Match) -> list[dict[str, Any]]:
    """The full submission log, one flat row per request, in the order received."""
    return [
        {
            "id": s.pk, "turn": s.turn, "team": s.team.letter if s.team else None,
            "team_name": s.team.name if s.team else None,
            "received_at": s.received_at.isoformat(timespec="milliseconds"),
            "received_at_ms": epoch_ms(s.received_at), "remote_addr": s.remote_addr,
            "content_type": s.content_type, "body_size": s.body_size, "body": body_text(s),
            "status_code": s.status_code, "error": s.error, "detail": s.detail,
            "counted": s.counted, "entered_by": s.entered_by, "note": s.note,
            "dialect": s.dialect,
        }
        for s in match.submissions.select_related("team").order_by("received_at", "id")
    ]
