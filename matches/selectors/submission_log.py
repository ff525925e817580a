"""What the judges read: every submission of a match, turn by turn, as received.

Reads only; the audit page, its exports and the admin share these. `audit_page` is the
audit's page as plain rows (the view reads its filters from the address and renders).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from django.db.models import Q
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from matches.models import Match, RequestTally, Submission, Team
from matches.rules import reasons, rules_for
from matches.selectors import epoch_ms, notices

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


AUDIT_PAGE = 25  # turns on one page of the audit (latest first); a long match has pages

# The audit's verdict filter: which submissions each choice keeps.
VERDICTS: dict[str, tuple[str, Callable[[Submission], bool]]] = {
    "counted": (gettext_lazy("counted"), lambda s: s.counted),
    "accepted": (gettext_lazy("accepted (202)"), lambda s: s.accepted),
    "replaced": (gettext_lazy("accepted, then replaced"), lambda s: s.accepted and not s.counted),
    "refused": (gettext_lazy("refused (any error)"), lambda s: s.status_code >= 400),
    "late": (gettext_lazy("late, or out of turn (409)"), lambda s: s.status_code == 409),
    "malformed": (gettext_lazy("malformed (400)"), lambda s: s.status_code == 400),
    "refused-other": (gettext_lazy("refused otherwise (401, 403, 413, 429…)"),
                      lambda s: s.status_code >= 400 and s.status_code not in (400, 409)),
}

HAND_WORDS = {"pause": pgettext_lazy("what a judge did", "paused"),
              "resume": pgettext_lazy("what a judge did", "resumed"),
              "extend": pgettext_lazy("what a judge did", "extended"),
              "close": pgettext_lazy("what a judge did", "closed early (all had answered)"),
              "void": pgettext_lazy("what a judge did", "made void")}


def team_label(team: Team) -> str:
    """A team as the audit names it: its letter and name, once when they are the same."""
    return team.name if team.name == team.letter else f"{team.letter} {team.name}"


def why_cut(submission: Submission) -> str:
    """Why only the head of a request's body was kept (docs/api.md, "Limits and what is
    kept")."""
    if submission.status_code == 413:
        return gettext("larger than the API takes")
    if submission.team is None:
        return gettext("a request without this match's team token")
    if submission.status_code == 429:
        return gettext("over the rate limit")
    if submission.status_code not in (200, 202):
        return gettext("refused")
    return gettext("over the team's storage budget for this match")


def submission_row(submission: Submission) -> dict[str, Any]:
    """One request as the audit shows it."""
    kept = len(submission.body)
    team = submission.team
    return {"received_at": submission.received_at, "counted": submission.counted,
            "accepted": submission.accepted, "status_code": submission.status_code,
            "error": submission.error, "detail": submission.detail,
            "entered_by": submission.entered_by, "note": submission.note,
            "remote_addr": submission.remote_addr, "dialect": submission.dialect,
            "team": {"index": team.index, "label": team_label(team)} if team else None,
            "text": body_text(submission), "kept": kept, "body_size": submission.body_size,
            "why_cut": why_cut(submission) if kept < submission.body_size else ""}


def audit_page(match: Match, teams: list[Team], chosen: dict[str, str],
               page: str = "") -> dict[str, Any]:
    """The audit's turns (latest first) that the filters keep (`chosen`: `team` a
    letter, `verdict` one of VERDICTS, `turn` a number, each "" for all), one page of
    AUDIT_PAGE of them (`page` as the address asks it) and the pager's links: each turn
    its scores in the game's words, its submissions as rows and its teams' outcomes."""
    rules = rules_for(match.game)
    keep_team = ({t.index for t in teams if t.letter == chosen["team"]} if chosen["team"]
                 else {t.index for t in teams})
    keep = VERDICTS[chosen["verdict"]][1] if chosen["verdict"] else (lambda s: True)
    filtered = bool(chosen["team"] or chosen["verdict"])
    shown = []
    for turn in audit_log(match):
        if chosen["turn"] and turn.number != int(chosen["turn"]):
            continue
        submissions = [s for s in turn.submissions if keep(s) and (
            s.team.index in keep_team if s.team else not chosen["team"])]
        if filtered and not submissions:
            continue
        shown.append((turn, submissions))
    pages = max(1, -(-len(shown) // AUDIT_PAGE))
    number = min(int(page), pages) if page.isdigit() and int(page) > 0 else 1
    log = [{"number": turn.number,
            "submissions": [submission_row(s) for s in submissions],
            # the number large, then the rest of the game's words ("items", "points …")
            "said_scores": ([{"headline": headline, "words": rules.score_said(score)
                              .removeprefix(str(headline)).strip()}
                             for headline, score in zip(rules.headline(turn.scores),
                                                        turn.scores, strict=True)]
                            if turn.scores else None),
            "columns": [{"team": team, "label": team_label(team),
                         "outcomes": turn.outcomes[team.index],
                         "idle": rules.idle_said(turn.number, team.index)}
                        for team in teams if turn.outcomes and team.index in keep_team]}
           for turn, submissions in shown[(number - 1) * AUDIT_PAGE : number * AUDIT_PAGE]]
    kept = {key: chosen[key] for key in ("team", "verdict") if chosen[key]}
    return {"log": log, "filtered": filtered, "pager": {
        "page": number, "pages": pages, "first": log[0]["number"] if log else None,
        "last": log[-1]["number"] if log else None,
        "newer": urlencode(kept | {"page": number - 1}) if number > 1 else None,
        "older": urlencode(kept | {"page": number + 1}) if number < pages else None}}


def audit_journal(match: Match) -> list[dict[str, Any]]:
    """The judges' hand on the match (services/control.py's log), the announcements to
    it and its teams' questions, oldest first, each with its `kind`."""
    said = notices.for_match(match)
    hand = [{**entry, "kind": "hand", "when": datetime.fromtimestamp(entry["at"] / 1000, tz=UTC),
             "words": HAND_WORDS.get(entry["action"], entry["action"])}
            for entry in match.control_log]
    return sorted([*hand,
                   *({"kind": "notice", "when": row.posted_at, "row": row}
                     for row in said["announcements"]),
                   *({"kind": "question", "when": row.asked_at, "row": row}
                     for row in said["questions"])],
                  key=lambda entry: int(entry["when"].timestamp() * 1000))  # as the log keeps it


def audit_tallies(match: Match, stored_a_minute: int) -> list[dict[str, Any]]:
    """The minutes in which a source sent more than the `stored_a_minute` requests
    stored one by one (the answer service's number): how many more were counted, their
    bytes and the first heads and hashes."""
    rows = RequestTally.objects.filter(
        Q(match=match) | Q(team__match=match), count__gt=stored_a_minute
    ).select_related("team").order_by("minute", "source")
    return [{"minute": tally.minute, "count": tally.count - stored_a_minute,
             "bytes": tally.body_bytes, "samples": tally.samples,
             "source": (team_label(tally.team) if tally.team
                        else tally.source.removeprefix("address:"))}
            for tally in rows]
