"""The Procon 31 answer API (2020, Kakomimasu), for Kakomimasu matches, at `/procon31/`
(docs/dialects.md, "Procon 31").

The token comes in `x-api-token` (a raw `Authorization` is taken too); every answer
carries an `x-request-id` (the client's own, when it sent one). Cells count from 1 and
an agent not on the field is at (0, 0); a team is a `teamID`, one number for the team in
every match it plays, as the official API means it (`team_id`), and an agent an
`agentID` unique in the match (the first team's 1..n, the second's n+1..2n). Before its
start a match answers 425 Too Early with `Retry-After`.
"""

from __future__ import annotations

import functools
import math
import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from matches import selectors
from matches.admission import ANSWER, PAGE, STATE, WRITE, cost
from matches.dialects.base import (
    Refused,
    Sent,
    action_objects,
    agent_of,
    answer,
    native_action,
    plays_in,
    practice_request,
    submit,
    submitted_to,
    team_of,
    teams_matches,
)
from matches.models import Entrant, Match, Team
from matches.rules import rules_for
from matches.services.submissions import Refusal, Reply

GAME = "kakomimasu"
NAME = "procon31"
APPLY = {"ok": 1, "conflict": 0, "invalid": -1}


def with_request_id(view):
    """Every answer carries `x-request-id`: the client's, or a new one."""
    @functools.wraps(view)  # keeps csrf_exempt
    def answered(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response["x-request-id"] = (request.headers.get("x-request-id", "")[:100]
                                    or uuid.uuid4().hex)
        return response
    return answered


def token(request: HttpRequest) -> str:
    return (request.headers.get("x-api-token", "").strip()
            or request.headers.get("Authorization", "").strip().removeprefix("Bearer "))


def refused(status: int, code: str, detail: str, headers: dict | None = None) -> HttpResponse:
    return answer({"status": code, "detail": detail}, status, headers)


def unrouted(address: str, match_id: str | None) -> HttpResponse:
    """An address under /procon31/ that no route takes (dialects.unrouted)."""
    if match_id is not None:
        return refused(404, "InvalidMatches", f"there is no match {match_id}")
    return refused(404, "NotFound", f"no such address: {address}")


def unauthorized() -> HttpResponse:
    return refused(401, "InvalidToken", "send the team's token in x-api-token")


def too_early(match: Match) -> HttpResponse:
    wait = max(1, math.ceil((match.start_at - timezone.now()).total_seconds()))
    return answer({"status": "TooEarly", "startAtUnixTime": int(match.start_at.timestamp())},
                  425, {"Retry-After": str(wait)})


def team_id(team: Team | Entrant) -> int:
    """A team's `teamID`: one number for the team in every match it plays, as the official
    API means it (a client reads it from `teams/me` once and finds its side of each
    match by it). A tournament team's is its tournament token's, the same in all its
    matches; a match's own team's, its match token's. Taken from the token's digest (it
    tells nothing of the token), 1 to 2^28."""
    entrant = team if isinstance(team, Entrant) else team.entrant
    return int((entrant or team).token_hash[:7], 16) + 1


def match_team_ids(match: Match) -> tuple[int, int]:
    """Both teams' `teamID`s in a match, team 0's first (1 and 2 in the unlikely case
    that their numbers are the same)."""
    teams = sorted(match.teams.select_related("entrant"), key=lambda team: team.index)
    ids = (team_id(teams[0]), team_id(teams[1]))
    return ids if ids[0] != ids[1] else (1, 2)


@cost(PAGE)
def team_me(request: HttpRequest) -> HttpResponse:
    team = team_of(token(request))
    if team is None:
        return unauthorized()
    return answer({"teamID": team_id(team), "name": team.name})


@cost(PAGE)
def matches_view(request: HttpRequest, team_number: int | None = None) -> HttpResponse:
    """GET /matches, a list, and GET /teams/{teamID}/matches for the team's own teamID,
    `{"matches": [...]}` as the official API answers it: the team's matches, its own
    team first: `matchID`, `teams` (`teamID`, `name`), `turns`, `operationMillis`,
    `transitionMillis`."""
    team = team_of(token(request))
    if team is None:
        return unauthorized()
    if team_number is not None and team_number != team_id(team):
        return refused(403, "Forbidden", "a team sees its own matches only")
    matches = [listed(match, side) for match, side in teams_matches(team) if match.game == GAME]
    return answer(matches if team_number is None else {"matches": matches})


def listed(match: Match, side: int) -> dict[str, Any]:
    """A match as GET /matches lists it, the asking team first."""
    names = dict(match.teams.values_list("index", "name"))
    ids = match_team_ids(match)
    order = (side, 1 - side)
    return {"matchID": match.pk,
            "teams": [{"teamID": ids[index], "name": names[index]} for index in order],
            "turns": match.turns, "operationMillis": match.strategy_ms,
            "transitionMillis": match.transition_ms}


@cost(WRITE)
def practice_view(request: HttpRequest) -> HttpResponse:
    """POST /practice: a practice match of Kakomimasu against a level or whoever asks
    next (docs/dialects.md), answered as GET /matches lists it, with the caller's token
    and its teamID."""
    started, refusal = practice_request(request, GAME, token(request), {
        "opponent": "opponent", "board": "board", "agents": "agents", "turns": "turns",
        "operationMillis": "strategy_seconds", "transitionMillis": "transition_seconds",
        "name": "name"})
    if refusal is not None:
        if getattr(refusal, "status", 400) == 401:
            return unauthorized()
        status = refusal.status if refusal.status in (404, 429) else 400
        return refused(status, "BadRequest", refusal.detail)
    match = Match.objects.get(pk=started.match.pk)
    return answer({**listed(match, started.team), "teamID": match_team_ids(match)[started.team],
                   "token": started.token}, 201)


@cost(STATE)
def match_view(request: HttpRequest, match_id: int) -> HttpResponse:
    team = team_of(token(request), match_id)
    if team is None:
        return unauthorized()
    match = Match.objects.select_related("board").filter(pk=match_id, game=GAME).first()
    if match is None or not plays_in(team, match):
        return refused(404, "InvalidMatches", f"match {match_id} is not one of your "
                                              "Kakomimasu matches")
    if timezone.now() < match.start_at:
        return too_early(match)
    return answer(state(match))


def state(match: Match) -> dict[str, Any]:
    board = match.board.data
    rows = list(selectors.stored_turns(match).order_by("number"))
    view = rows[-1].state() if rows else selectors.initial_view(match)
    per_team = match.agents
    ids = match_team_ids(match)
    owner = {"A": (ids[0], 0), "B": (ids[1], 0), "a": (0, ids[0]), "b": (0, ids[1]),
             ".": (0, 0)}  # (wall, area): the owner's teamID, 0 no one's
    return {
        "id": match.pk, "turn": view["turn"], "turns": match.turns,
        "startedAtUnixTime": int(match.start_at.timestamp()),
        "width": board["width"], "height": board["height"], "points": board["points"],
        "walls": [[owner[cell][0] for cell in row] for row in view["cells"]],
        "areas": [[owner[cell][1] for cell in row] for row in view["cells"]],
        "teams": [{"teamID": ids[team], "agent": per_team,
                   "agents": [{"agentID": team * per_team + agent + 1,
                               "x": cell[0] + 1 if cell else 0,
                               "y": cell[1] + 1 if cell else 0}
                              for agent, cell in enumerate(view["agents"][team])],
                   "wallPoint": score["wall"], "areaPoint": score["territory"]}
                  for team, score in enumerate(view["scores"])],
        "actions": [{"turn": row.number, "agentID": team * per_team + outcome["agent"] + 1,
                     "type": outcome["type"], "x": outcome["x"] + 1 if "x" in outcome else 0,
                     "y": outcome["y"] + 1 if "y" in outcome else 0,
                     "apply": APPLY.get(outcome["result"], -1)}
                    for row in rows for team, outcomes in enumerate(row.outcomes)
                    for outcome in outcomes if isinstance(outcome.get("agent"), int)],
    }


@cost(ANSWER)
def action_view(request: HttpRequest, match_id: int) -> HttpResponse:
    """Stored before its answer, strangers' too: the service judges token and match."""
    sent_token = token(request)
    match, first_id = submitted_to(sent_token, match_id)
    sent = Sent()

    def read(game: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
        sent.came_in(body)
        return actions_read(body, first_id, sent.actions)

    reply = submit(request, match_id, sent_token, NAME, GAME, read)
    if reply.status == 202:  # the actions echoed with the turn they count for
        return answer(sent.echo(reply.body["turn"]), 202)
    return REFUSALS.get(reply.body.get("error", ""), refused_otherwise)(reply, match)


def invalid_matches(reply: Reply, match: Match | None) -> HttpResponse:
    return refused(404, "InvalidMatches", reply.body["detail"])


def not_kakomimasu(reply: Reply, match: Match) -> HttpResponse:
    return refused(404, "InvalidMatches", f"match {match.pk} is not a Kakomimasu match: "
                                          "its own API serves it")


def not_running(reply: Reply, match: Match) -> HttpResponse:
    """Before the start, too early; after the end, an unacceptable time."""
    if timezone.now() < match.start_at:
        return too_early(match)
    return unacceptable_time(reply, match)


def unacceptable_time(reply: Reply, match: Match | None) -> HttpResponse:
    return refused(400, "UnacceptableTime", reply.body["detail"])


def invalid_format(reply: Reply, match: Match | None) -> HttpResponse:
    """Not JSON, or not an action list: not the request's format."""
    return refused(422, "InvalidFormat", reply.body["detail"])


def refused_otherwise(reply: Reply, match: Match | None) -> HttpResponse:
    return refused(reply.status, "Refused", reply.body["detail"], reply.headers)


# The answer service's refusals in Procon 31's words (docs/dialects.md): its error -> the
# answer; any other error is `refused_otherwise`, with the service's status.
REFUSALS: dict[str, Refused] = {
    "unauthorized": lambda reply, match: unauthorized(),
    "forbidden": invalid_matches,
    "not_found": invalid_matches,
    "wrong_dialect": not_kakomimasu,
    "not_running": not_running,
    "step_over": unacceptable_time,
    "wrong_turn": unacceptable_time,
    "paused": unacceptable_time,  # held by the judges: its detail says so
    "malformed_json": invalid_format,
    "invalid_actions": invalid_format,
}


def actions_read(body: bytes, first_id: int,
                 sent: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int | None]:
    """`[{"agentID", "type", "x", "y"}]` (or `{"actions": [...]}`), cells from 1, as
    native actions; the actions as sent go to `sent`."""
    rules, native = rules_for(GAME), []
    for index, action in enumerate(action_objects(body, '{"agentID", "type", "x", "y"}')):
        moved: dict[str, Any] = {"agent": agent_of(action, index, first_id),
                                 "type": action.get("type")}
        if moved["type"] != "stay":
            for key in ("x", "y"):
                value = action.get(key)
                if type(value) is not int or value < 1:
                    raise Refusal(400, "invalid_actions", f"actions[{index}].{key}: expected "
                                                          "a whole number from 1")
                moved[key] = value - 1
        native.append(native_action(rules, moved, index))
        sent.append({key: action[key] for key in ("agentID", "type", "x", "y") if key in action})
    return native, None


def routes() -> list:
    from django.urls import path

    return [
        path("teams/me", with_request_id(require_GET(team_me))),
        path("teams/<int:team_number>/matches", with_request_id(require_GET(matches_view))),
        path("matches", with_request_id(require_GET(matches_view))),
        path("matches/<match:match_id>", with_request_id(require_GET(match_view))),
        path("matches/<match:match_id>/action",
             with_request_id(csrf_exempt(require_POST(action_view)))),
        path("practice", with_request_id(csrf_exempt(require_POST(practice_view)))),
    ]
