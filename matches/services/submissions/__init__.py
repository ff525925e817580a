"""The strategy step: a team's program submits its actions for the open turn.

Every request is stored as a Submission before it is answered, accepted or not. A
request that carries a token of its match's own team is judged and stored with its
match row locked; the clock's claim of a turn updates that row, so a submission either
lands before its turn is resolved (and counts) or sees the turn resolved (and is
refused): never lost in between. What is kept of it (docs/api.md, "Limits and what is
kept"):

- an accepted request (or a program's output) of the match's own team: its whole body
  (up to 64 KiB), until the team's bodies kept in the match reach its storage budget
  (settings.TEAM_BODY_BUDGET); past it, like a refused one;
- a refused request of the team: its size, its SHA-256 and its first KEPT_HEAD bytes;
- any other request (no token, an unknown one, one of another match, a match that does
  not exist) is a stranger's: refused, and kept like a refused one. So is a 429;
- but a source's strangers' requests and 429s beyond the first STORED_A_MINUTE of a
  minute are counted, not stored: one RequestTally row per source and minute holds
  their count, their bytes and the first few heads and hashes, so a flood costs bytes
  per minute, not per request.

A refusal's `detail` quotes at most an excerpt of what was sent (DETAIL_LIMIT). The
rate limits, and where their windows are kept, are limits.py's.

The package's modules: answers.py (a Request, its Reply or Refusal), parsing.py (the
body's JSON and actions), judging.py (the checks, with the match row locked),
limits.py (the rate limits), storage.py (what is kept) and sql.py (its plain
statements). The rest of the code imports what it needs from the package itself.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from matches.access import team_by_authorization, teams_forget
from matches.models import Match, Team
from matches.services.submissions import judging
from matches.services.submissions.answers import DryRun, Refusal, Reply, Request
from matches.services.submissions.limits import (
    ADDRESS_LIMIT,
    RATE_LIMIT,
    RATE_WINDOW,
    rate_windows_reset,
)
from matches.services.submissions.parsing import (
    MAX_ACTIONS,
    MAX_BODY,
    json_read,
    parse_actions,
    parse_submission,
)
from matches.services.submissions.storage import KEPT_HEAD, STORED_A_MINUTE

__all__ = [
    "ADDRESS_LIMIT", "KEPT_HEAD", "MAX_ACTIONS", "MAX_BODY", "RATE_LIMIT", "RATE_WINDOW",
    "STORED_A_MINUTE", "DryRun", "Refusal", "Reply", "Request", "json_read", "parse_actions",
    "parse_submission", "rate_windows_reset", "submission_by_bot", "submission_enter",
    "submission_output", "submission_receive",
]


def submission_receive(request: Request) -> Reply:
    """Judge one request, store it, and say what to answer."""
    team = team_by_authorization(request.authorization, request.match_id)
    if isinstance(team, Team) and team.match_id == request.match_id:
        try:
            return judging.judge(request, team)
        except Match.DoesNotExist:  # the match has gone since this process kept its team
            teams_forget()
    return judging.refuse_stranger(request, team)


def submission_enter(team: Team, body: bytes, judge: str, note: str, received_at: datetime,
                     remote_addr: str | None = None) -> Reply:
    """A judge enters a team's actions by hand (offline operation): judged and stored
    exactly as if the team had sent them, marked with the judge's name and note, and
    never rate limited."""
    request = Request(match_id=team.match_id, authorization="", body=body,
                      body_size=len(body), content_type="application/json",
                      remote_addr=remote_addr, received_at=received_at,
                      entered_by=judge, note=note)
    return judging.judge(request, team)


def submission_output(team: Team, text: str, received_at: datetime) -> Reply:
    """What a hosted program printed on its standard error: kept as its debug output,
    as if it had sent it to `/output` (docs/programs.md)."""
    raw = text.encode()
    request = Request(match_id=team.match_id, authorization="", body=raw,
                      body_size=len(raw), content_type="text/plain; charset=utf-8",
                      remote_addr=None, received_at=received_at, dialect="hosted",
                      output=True)
    return judging.judge(request, team)


def submission_by_bot(team: Team, body: dict[str, Any], received_at: datetime,
                      bot: str) -> Reply:
    """A built-in bot's answer for a team it plays (a tournament run with bots): judged
    and stored as the team's program's would be, its API named `bot:<name>`."""
    raw = json.dumps(body).encode()
    request = Request(match_id=team.match_id, authorization="", body=raw,
                      body_size=len(raw), content_type="application/json",
                      remote_addr=None, received_at=received_at, dialect=f"bot:{bot}"[:20])
    return judging.judge(request, team)
