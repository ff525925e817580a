"""What every dialect shares: the team's token found where the dialect carries it, a
team's matches, a submission handed to the answer service with the dialect's game and
body reader, the agents' IDs across a match, the actions echoed as they were sent, and
JSON answers (docs/dialects.md). Each dialect says the service's refusals in its own
words with a table of its own (error -> answer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from matches.access import owns, side_in, team_by_authorization
from matches.models import Entrant, Match, Team
from matches.services.submissions import (
    MAX_BODY,
    Refusal,
    Reply,
    Request,
    json_read,
    submission_receive,
)

Reader = Callable[[str, bytes], tuple[list[dict[str, Any]], int | None]]
# A refusal of the answer service in a dialect's words, from its reply and the match
# (None when there is no such match).
Refused = Callable[[Reply, Match | None], HttpResponse]


def answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    response = HttpResponse(json.dumps(data, ensure_ascii=False), status=status,
                            content_type="application/json; charset=utf-8")
    response["Cache-Control"] = "no-store"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def team_of(token: str, match_id: int | None = None) -> Team | None:
    """The team a token belongs to (that game's row, for a later game of its match)."""
    if not token or not token.strip():
        return None
    return team_by_authorization(f"Bearer {token.strip()}", match_id)


def teams_matches(team: Team | Entrant) -> list[tuple[Match, int]]:
    """Every match the token's team plays, in order, with its side in each: its match's
    games; a tournament team's, every game of its fixtures."""
    if isinstance(team, Entrant):
        return [(match, side_in(team, match)) for match in Match.objects.filter(
            pk__in=Team.objects.filter(entrant_id=team.pk).values("match_id")
        ).order_by("start_at", "pk")]
    first = Match.objects.get(pk=team.match_id)
    return [(game, team.index) for game in [first, *first.later_games.order_by("start_at", "pk")]]


def plays_in(team: Team | Entrant | None, match: Match) -> bool:
    return owns(team, match)


def submit(request: HttpRequest, match_id: int, token: str, dialect: str, game: str,
           read: Reader) -> Reply:
    """A dialect's submission, stored as sent (the body, its content type, the dialect)
    and judged by the answer service after `read` turns it into native actions; the
    service refuses a match of a game other than the dialect's (`wrong_dialect`)."""
    body = body_of(request)
    return submission_receive(Request.arrived(
        match_id=match_id, headers=request.headers, body=body, received=len(body),
        remote_addr=request.META.get("REMOTE_ADDR"), received_at=timezone.now(),
        authorization=f"Bearer {token.strip()}", dialect=dialect, game=game, read=read))


def body_of(request: HttpRequest) -> bytes:
    """The first MAX_BODY + 1 bytes of a request's body, read once (a dialect that finds
    the token in the body reads it before the submission is stored); never the whole of
    a huge one."""
    if not hasattr(request, "_dialect_body"):
        request._dialect_body = request.read(MAX_BODY + 1)
    return request._dialect_body


def json_object(body: bytes) -> dict[str, Any]:
    """A body that must be a JSON object, read as the native API reads one."""
    data = json_read(body)
    if not isinstance(data, dict):
        raise Refusal(400, "invalid_actions", "the body must be a JSON object")
    return data


def action_objects(body: bytes, shape: str) -> list[dict[str, Any]]:
    """The actions of a posted body, each an object (`shape` names an action's keys in
    the refusal): `{"actions": [...]}`, or the list alone, as some official servers'
    clients send it."""
    data = json_read(body)
    actions = data.get("actions") if isinstance(data, dict) else data
    if not isinstance(actions, list):
        raise Refusal(400, "invalid_actions", f"actions: expected a list of {shape}")
    for index, action in enumerate(actions):
        if not isinstance(action, dict):
            raise Refusal(400, "invalid_actions", f"actions[{index}]: expected an object")
    return actions


class Sent:
    """The actions as a client sent them (the keys the dialect knows), echoed with the
    turn they count for when they are accepted, in the shape they came in: the list
    alone, or `{"actions": [...]}`."""

    def __init__(self) -> None:
        self.actions: list[dict[str, Any]] = []
        self.as_list = False

    def came_in(self, body: bytes) -> None:
        self.as_list = body.lstrip()[:1] == b"["

    def echo(self, turn: int) -> list[dict[str, Any]] | dict[str, Any]:
        echoed = [{**action, "turn": turn} for action in self.actions]
        return echoed if self.as_list else {"actions": echoed}


def submitted_to(token: str, match_id: int) -> tuple[Match | None, int]:
    """The match a submission is sent to (None: there is none), and the `agentID` of the
    token's team's first agent in it, for dialects that number agents across the match
    (the first team's 1..n, the second's n+1..2n); 1 without a team or a match, whose
    request the service refuses anyway."""
    team = team_of(token, match_id)
    match = Match.objects.filter(pk=match_id).first()
    return match, team.index * match.agents + 1 if team and match else 1


def agent_of(action: dict[str, Any], index: int, first_id: int) -> int:
    """The team's agent an `agentID` (unique in the match) names: its index in the team
    (an ID past the team's agents stays an index no agent has: invalid at the
    transition, as natively)."""
    agent = action.get("agentID")
    if type(agent) is not int or agent < first_id:
        raise Refusal(400, "invalid_actions", f"actions[{index}].agentID: expected one of "
                                              f"your agents' IDs, from {first_id}")
    return agent - first_id


def native_action(rules: Any, action: dict[str, Any], index: int,
                  names: dict[str, str] | None = None) -> dict[str, Any]:
    """A translated action checked as the native API checks it; the refusal names the
    dialect's fields (`names`: native key -> the dialect's)."""
    problem = rules.action_problem(action)
    if problem:
        for native, theirs in (names or {}).items():
            problem = problem.replace(f".{native}", f".{theirs}")
        raise Refusal(400, "invalid_actions", f"actions[{index}]{problem}")
    return rules.action_fields(action)


def practice_request(request: HttpRequest, game: str, token: str,
                     fields: dict[str, str]) -> tuple[Any, Any]:
    """A practice match asked for through a dialect (docs/dialects.md): its body read as
    an object, the dialect's names for the fields mapped to the practice service's by
    `fields` (theirs -> ours), the caller told by its token (raw, as the dialect found
    it) or, without one, by its address. (the Started, None) or (None, the refusal:
    a PracticeError, or a Refusal for a body that is not a JSON object)."""
    from django.utils import timezone

    from matches.services import practice

    try:
        data = json_object(body_of(request))
        by, team_name = practice.practice_caller(f"Bearer {token}" if token else "",
                                                 request.META.get("REMOTE_ADDR"))
        asked = {ours: data[theirs] for theirs, ours in fields.items()
                 if data.get(theirs) is not None}
        for millis in ("strategy_seconds", "transition_seconds"):
            if isinstance(asked.get(millis), int | float) and not isinstance(asked[millis], bool):
                asked[millis] = asked[millis] / 1000  # the dialects count milliseconds
        started = practice.practice_start(practice.Ask(game=game, **asked), by, team_name,
                                          timezone.now())
    except (practice.PracticeError, Refusal) as refusal:
        return None, refusal
    return started, None
