"""A team's report on its own match (GET /api/matches/{id}/report; docs/api.md, "The
rehearsal report"): every request it sent, accepted or not and why, how long after its
step opened each came, its actions the rules judged invalid, the steps it missed, and
the result. The rehearsal check before a contest is a short practice match against
level 1 and this report.

Like `own_submission`, it reads only the asking team's own requests (of the open turn
too); of the other team, nothing but the resolved turns everyone sees.
"""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime
from typing import Any

from django.utils import timezone

from matches.models import Match, Submission, Team
from matches.rules import rules_for
from matches.rules.turns import is_protocol_played
from matches.selectors.records import epoch_ms
from matches.selectors.verdicts import reasons_said


def team_report(match: Match, team: Team) -> dict[str, Any]:
    index = team.index
    turns = list(match.turn_rows.order_by("number").values_list(
        "number", "outcomes", "resolved_at"))
    resolved_at = {number: when for number, _, when in turns}
    sent = (Submission.objects.filter(match=match, team=team)
            .order_by("received_at", "id")
            .values_list("turn", "received_at", "status_code", "error", "detail", "counted",
                         "actions", "dialect"))
    by_turn: dict[int | None, list[dict[str, Any]]] = {}
    latencies = []
    # over a game's own protocol the team asks for each step (CHaser's `gr`) and is
    # answered at once: its step opens with its own previous line of the turn
    asks = is_protocol_played(rules_for(match.game))
    last_line: dict[int | None, datetime] = {}
    for turn, received, status, error, detail, counted, actions, dialect in sent:
        opened = (last_line.get(turn) if turn else None) if asks else \
            _opened(match, turn, resolved_at)
        last_line[turn] = received
        latency = None if opened is None else round((received - opened).total_seconds() * 1000)
        if status == 202 and latency is not None:
            latencies.append(latency)
        # what it was: actions (or a command), a line of the game's own protocol (read as
        # it wants: CHaser's name, `gr`, `#`), or the program's printed output (POST
        # /output: kept for the replay, never a move), each its own words on the page
        kind = "actions" if status != 200 else "protocol" if asks else "output"
        by_turn.setdefault(turn, []).append({
            "kind": kind, "received_at": epoch_ms(received), "status": status, "error": error,
            "detail": detail, "counted": counted, "dialect": dialect,
            "actions": len(actions) if isinstance(actions, list) else None,
            "latency_ms": latency})
    rows, missed, invalid = [], 0, 0
    for number, outcomes, _ in turns:
        own = outcomes[index] if outcomes else []
        judged = Counter(outcome.get("result") for outcome in own)
        requests = by_turn.get(number, [])
        answered = any(request["counted"] for request in requests)
        mine = rules_for(match.game).mover(number) == index if match.alternating else True
        missed += mine and not answered
        invalid += judged["invalid"]
        rows.append({"turn": number, "requests": requests, "answered": answered,
                     "missed": mine and not answered,
                     "invalid": [{"agent": o.get("agent"), "reason": o.get("reason", "")}
                                 for o in own if o.get("result") == "invalid"],
                     "results": dict(judged)})
    unresolved = [request for turn, requests in by_turn.items()
                  if turn not in resolved_at for request in requests]
    result = match.result if match.over else None
    refused = Counter(request["error"] or str(request["status"])
                      for requests in by_turn.values() for request in requests
                      if request["status"] not in (200, 202))
    said = reasons_said([[invalid for row in rows for invalid in row["invalid"]]])
    return {
        "match": match.pk, "team": index, "name": team.name, "game": match.game,
        "reasons": said,  # each reason of an invalid action in every language
        "status": match.status(timezone.now()),
        "turns": rows,
        "unresolved": unresolved,  # requests of the open step, or outside any step
        "summary": {
            "requests": sum(request["kind"] != "output" for requests in by_turn.values()
                            for request in requests),
            "outputs": sum(request["kind"] == "output" for requests in by_turn.values()
                           for request in requests),
            "accepted": sum(request["status"] == 202 for requests in by_turn.values()
                            for request in requests),
            "refused": dict(refused),
            "latency_ms": _spread(latencies),
            "invalid_actions": invalid,
            "steps_missed": missed,
            "turns_resolved": len(turns),
            "won": None if result is None or result.get("winner") is None
            else result["winner"] == index,
            "result": result,
        },
    }


def open_report_team(match: Match) -> Team | None:
    """The team whose report whoever may see the match may read without a token: the
    visiting program of a finished practice game played over the game's own protocol
    (a practice server's; such programs bring no token, and every line it sent was
    played in the open). None for any other match."""
    if not (match.over and match.practice_by and is_protocol_played(rules_for(match.game))):
        return None
    return match.teams.exclude(seat__startswith="level-").order_by("index").first()


def _opened(match: Match, turn: int | None, resolved_at: dict[int, datetime]) -> datetime | None:
    """When the team could first answer `turn`: its strategy step's opening, or in an
    alternating game the previous turn's resolution (the start for the first)."""
    if not turn:
        return None
    if match.alternating:
        return match.start_at if turn == 1 else resolved_at.get(turn - 1)
    return match.opens_at(turn)


def _spread(values: list[int]) -> dict[str, int] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered)),
            "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1]}


def rehearsals(tournament) -> dict[int, bool] | None:
    """Each team of a tournament that asks for a rehearsal (`settings["rehearsal"]`): by
    seed, whether it has passed it: won a finished practice match of the tournament's
    game against level 1 with its tournament token, missing no step. In a game played
    over its own protocol, whose programs bring no token, a game its program played on
    the game's practice server against level 1 under the team's name (or short code).
    None where the tournament asks for none."""
    if not (tournament.settings or {}).get("rehearsal"):
        return None
    rules = rules_for(tournament.game)
    if is_protocol_played(rules):
        return _rehearsals_by_name(tournament, rules)
    passed = {}
    for entrant in tournament.entrants.order_by("index"):
        caller = f"team:{entrant.token_hash[:32]}"
        tried = (Match.objects.filter(practice_by=caller, game=tournament.game,
                                      result__isnull=False, first_game=None,
                                      teams__seat="level-1")
                 .order_by("-pk")[:REHEARSALS_READ])
        passed[entrant.index] = any(_rehearsed(match) for match in tried)
    return passed


REHEARSALS_READ = 10  # a team's latest tries that are looked at


def _rehearsed(match: Match) -> bool:
    """The caller's side won the practice match against level 1 and missed no step."""
    mine = match.teams.exclude(seat="level-1").first()
    if mine is None or (match.result or {}).get("winner") != mine.index:
        return False
    return team_report(match, mine)["summary"]["steps_missed"] == 0


PRACTICE_GAMES_READ = 500  # the latest practice games of a protocol's server looked at


def _rehearsals_by_name(tournament, rules) -> dict[int, bool]:
    games = (Match.objects.filter(game=tournament.game, result__isnull=False,
                                  teams__seat="level-1").exclude(practice_by="")
             .order_by("-pk").prefetch_related("teams")[:PRACTICE_GAMES_READ])
    visitors = [(match, team) for match in games for team in match.teams.all()
                if team.seat != "level-1"]
    passed = {}
    for entrant in tournament.entrants.order_by("index"):
        tried = [match for match, team in visitors
                 if rules.answers_to(team.name, entrant.name, entrant.short)]
        passed[entrant.index] = any(_rehearsed(match) for match in tried[:REHEARSALS_READ])
    return passed
