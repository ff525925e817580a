"""What a team's program said of its thinking (services/submissions/debug.py), and who
may read it: the judges both teams', a team its own, everyone both teams' once a judge
published the match with its debug; nobody else anything (docs/api.md, "Your
program's debug output")."""

from __future__ import annotations

from typing import Any

from matches.access import is_judge, side_in
from matches.models import Entrant, Match, Submission, Team
from matches.selectors.records import epoch_ms

OUTPUT = "program output:"  # the detail that marks a program's printed lines


def debug_readers(user, holder: Team | Entrant | None, match: Match) -> list[int]:
    """The teams (0, 1) whose debug output this caller may read in this match."""
    if is_judge(user) or (match.published and match.debug_public):
        return [0, 1]
    side = side_in(holder, match)
    return [] if side is None else [side]


def _rows(match: Match, teams: list[int]):
    return (Submission.objects.filter(match=match, team__index__in=teams)
            .order_by("received_at", "pk"))


def debug_turns(match: Match, teams: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Each turn's debug, by turn number: for each team that said anything, its text
    (every accepted submission's debug, then its program's printed lines, in the order
    they came) and the marks of its last submission that had some."""
    turns: dict[int, dict[int, dict[str, Any]]] = {}
    rows = _rows(match, teams).filter(status_code__in=(200, 202), turn__isnull=False)
    if match.shown_late:  # the public's copy: the turns it has seen, none still to come
        rows = rows.filter(turn__lte=match.resolved_turns)
    for turn, team, status, detail, debug, marks, body in rows.values_list(
            "turn", "team__index", "status_code", "detail", "debug", "marks", "body"):
        said = turns.setdefault(turn, {}).setdefault(team, {"team": team, "text": [],
                                                            "marks": None})
        if status == 200 and detail.startswith(OUTPUT):
            said["text"].append(bytes(body).decode("utf-8", "replace").rstrip("\n"))
        elif status == 202:
            if debug:
                said["text"].append(debug)
            if marks is not None:
                said["marks"] = marks
    return {str(turn): [{**said, "text": "\n".join(said["text"])}
                        for _, said in sorted(by_team.items())]
            for turn, by_team in sorted(turns.items())}


def sent_by(match: Match, teams: list[int]) -> list[dict[str, Any]]:
    """Everything these teams sent in the match, in the order it came: each request as
    kept, its answer (status, error, detail), whether it counted, its debug and marks."""
    rows = _rows(match, teams).values_list(
        "pk", "team__index", "turn", "received_at", "status_code", "error", "detail",
        "counted", "actions", "debug", "marks", "body", "body_size", "dialect", "entered_by")
    return [{"id": pk, "team": team, "turn": turn, "received_at": epoch_ms(received),
             "status": status, "error": error or None, "detail": detail or None,
             "counted": counted, "actions": actions, "debug": debug or None, "marks": marks,
             "output": status == 200 and (detail or "").startswith(OUTPUT),
             "body": bytes(body).decode("utf-8", "replace"), "body_size": size,
             "kept_whole": len(body) >= size, "dialect": dialect or None,
             "entered_by": entered_by or None}
            for pk, team, turn, received, status, error, detail, counted, actions, debug,
            marks, body, size, dialect, entered_by in rows]
