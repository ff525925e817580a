"""The control room's data (/control/, judges; README, "The contest day"): every match
running, held or starting within AHEAD_HOURS (practice matches aside), and how each
team's program stands, turning amber, then red, before a team loses a turn.

A team's health is read from what it sent over its last HEALTH_TURNS resolved turns: its
last request (how long ago), its answers' time from each step's opening (the median),
its refused requests, the steps it missed (a resolved turn it had no counted
answer for; an alternating game's: its own moves only), and its clock's offset from
the server's (the median, where its program says its time: X-Client-Time or Date).

- red: it missed one of the last two steps, or a running match has heard nothing from
  it for three steps' time (nothing at all after its first step);
- amber: it missed a step earlier, had a request refused, answers late in the step
  (its median past LATE_SHARE of it), has been quiet for a step and a half, or its
  clock is OFFSET_AMBER_MS or more off the server's;
- green otherwise; `waiting` before the match starts.
"""

from __future__ import annotations

import statistics
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max

from matches.models import Match, Submission
from matches.rules import rules_for
from matches.selectors.clocks import next_deadline, paused_now

AHEAD_HOURS = 24
HEALTH_TURNS = 5
LATE_SHARE = 0.7
OFFSET_AMBER_MS = 1000
LIMIT = 60  # matches listed at most


def control_matches(now: datetime) -> list[dict[str, Any]]:
    matches = (Match.objects.unfinished().filter(start_at__lte=now + timedelta(hours=AHEAD_HOURS),
                                                 practice_by="")
               .select_related("fixture__tournament").prefetch_related("teams")
               .order_by("start_at", "pk")[:LIMIT])
    return [_row(match, now) for match in matches]


def _row(match: Match, now: datetime) -> dict[str, Any]:
    status = "paused" if match.paused_at is not None else match.status(now)
    # a game played over its own protocol keeps its own time at its server
    deadline = None if match.paused_at is not None or match.protocol_played else \
        next_deadline(match, now)
    teams = sorted(match.teams.all(), key=lambda team: team.index)
    # a game on chess clocks has no step's deadline: its mover's clock runs out then
    mover = teams[rules_for(match.game).mover(match.resolved_turns + 1)] \
        if match.alternating and status == "running" else None
    return {"match": match, "status": status, "paused": paused_now(match), "mover": mover,
            "deadline_in": None if deadline is None else (deadline - now).total_seconds(),
            "starts_in": (match.start_at - now).total_seconds() if status == "upcoming" else None,
            "tournament": match.fixture.tournament if match.fixture_id else None,
            "teams": _health(match, teams, now, status)}


def _health(match: Match, teams: list, now: datetime, status: str) -> list[dict[str, Any]]:
    last = dict(Submission.objects.filter(match=match).values_list("team__index")
                .annotate(last=Max("received_at")).values_list("team__index", "last"))
    since = max(0, match.resolved_turns - HEALTH_TURNS)
    recent = list(Submission.objects.filter(match=match, turn__gt=since)
                  .values_list("team__index", "turn", "received_at", "status_code", "counted",
                               "client_offset_ms"))
    rules = rules_for(match.game)
    period = match.period.total_seconds() if not match.alternating else None
    shown = []
    for team in teams:
        mine = [row for row in recent if row[0] == team.index]
        answered = {turn for _, turn, _, status_code, counted, _ in mine if counted}
        own_turns = [turn for turn in range(since + 1, match.resolved_turns + 1)
                     if not match.alternating or rules.mover(turn) == team.index]
        missed = [turn for turn in own_turns if turn not in answered]
        latencies = [(received - match.opens_at(turn)).total_seconds() * 1000
                     for _, turn, received, status_code, _, _ in mine if status_code == 202
                     and turn and not match.alternating and not match.protocol_played]
        refused = sum(1 for row in mine if row[3] >= 400)
        offsets = [row[5] for row in mine if row[5] is not None]
        offset = round(statistics.median(offsets)) if offsets else None
        heard = last.get(team.index)
        quiet = None if heard is None else (now - heard).total_seconds()
        level = _level(match, status, missed, refused, latencies, quiet, period)
        if level == "green" and offset is not None and abs(offset) >= OFFSET_AMBER_MS:
            level = "amber"  # a program that times itself by its own clock is off by that
        # when quiet alone turns it amber, then red, if nothing more is heard (s from now:
        # the room's page moves its dot by itself)
        timed = bool(period) and status == "running" and not match.protocol_played \
            and match.resolved_turns >= 1 and quiet is not None
        amber_in, red_in = (1.5 * period - quiet, 3 * period - quiet) if timed else (None, None)
        shown.append({"team": team, "level": level, "quiet": quiet, "missed": len(missed),
                      "amber_in": amber_in if amber_in is not None and amber_in > 0 else None,
                      "red_in": red_in if red_in is not None and red_in > 0 else None,
                      "refused": refused, "offset": offset,
                      "offset_said": None if offset is None else f"{offset / 1000:+.1f}",
                      "latency": round(statistics.median(latencies)) if latencies else None})
    return shown


def _level(match: Match, status: str, missed: list[int], refused: int,
           latencies: list[float], quiet: float | None, period: float | None) -> str:
    if status == "upcoming":
        return "waiting"
    recent = match.resolved_turns - 1
    if any(turn >= recent for turn in missed):
        return "red"
    # (held by the judges, or played over its own protocol: a quiet team is no sign)
    timed = bool(period) and status == "running" and not match.protocol_played
    if timed and match.resolved_turns >= 1 and (quiet is None or quiet > 3 * period):
        return "red"
    late = latencies and match.strategy_ms and \
        statistics.median(latencies) > LATE_SHARE * match.strategy_ms
    if missed or refused or late or (timed and quiet is not None and quiet > 1.5 * period):
        return "amber"
    return "green"
