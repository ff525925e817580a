"""The teams' answer API and the public read API (OpenAPI at /api/openapi.json).

Handlers only parse the request, call a service or selector, and answer.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import NinjaAPI, Schema, Status

from matches import selectors
from matches.models import Match
from matches.services.submissions import MAX_BODY, Request, submission_receive

api = NinjaAPI(
    title="Procon spectator API",
    version="1",
    description=(
        "Teams' programs submit each turn's actions during the strategy step with "
        "`Authorization: Bearer <team token>`. Times are epoch milliseconds. Every "
        "request is stored, accepted or not, before it is answered."
    ),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)


class Error(Schema):
    error: str
    detail: str


class Receipt(Schema):
    turn: int
    received_at: int
    actions: int


class TeamOut(Schema):
    index: int
    name: str


class MatchSummary(Schema):
    id: int
    game: str
    title: str
    teams: list[str]
    board: str
    turns: int
    status: str
    turn: int
    strategy_turn: int | None
    deadline: int | None
    server_time: int
    scores: list[dict[str, int]]
    result: dict[str, Any] | None


class MatchState(Schema):
    id: int
    game: str
    title: str
    status: str
    turn: int
    turns: int
    agents: int
    strategy_turn: int | None
    deadline: int | None
    server_time: int
    start_at: int
    strategy_ms: int
    transition_ms: int
    teams: list[TeamOut]
    board: dict[str, Any]
    state: dict[str, Any]
    actions: list[dict[str, Any]]
    result: dict[str, Any] | None


ACTION_LIST = {
    "type": "object",
    "required": ["actions"],
    "properties": {
        "actions": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["agent", "type"],
                "properties": {
                    "agent": {"type": "integer"},
                    "type": {"type": "string", "enum": ["put", "move", "remove", "stay"]},
                    "x": {"type": "integer"},
                    "y": {"type": "integer"},
                },
            },
        }
    },
}


@api.get("/matches", response=list[MatchSummary], summary="Running, upcoming and recent matches")
def list_matches(request: HttpRequest):
    now = timezone.now()
    return [selectors.match_summary(match, now) for match in selectors.recent_matches(now)]


@api.get("/matches/{match_id}", response={200: MatchState, 404: Error},
         summary="The public state of a match")
def get_match(request: HttpRequest, match_id: int):
    match = Match.objects.select_related("board").filter(pk=match_id).first()
    if match is None:
        return Status(404, {"error": "not_found", "detail": f"there is no match {match_id}"})
    return Status(200, selectors.public_state(match))


@api.post(
    "/matches/{match_id}/actions",
    response={code: (Receipt if code == 202 else Error)
              for code in (202, 400, 401, 403, 404, 409, 413)},
    summary="Submit this turn's actions",
    description=(
        "Replaces the team's earlier submission for the same strategy step. "
        "Errors: 400 malformed JSON or not an action list, 401 missing or unknown token, "
        "403 a token of another match, 409 the match is not running or the step is over, "
        f"413 a body over {MAX_BODY // 1024} KiB."
    ),
    openapi_extra={"requestBody": {"required": True,
                                   "content": {"application/json": {"schema": ACTION_LIST}}}},
)
def submit_actions(request: HttpRequest, match_id: int):
    received_at = timezone.now()
    declared = request.META.get("CONTENT_LENGTH") or ""
    body = request.read(MAX_BODY + 1)
    size = int(declared) if declared.isdigit() else len(body)
    reply = submission_receive(Request(
        match_id=match_id,
        authorization=request.headers.get("Authorization", ""),
        body=body,
        body_size=max(size, len(body)),
        content_type=request.content_type or "",
        remote_addr=request.META.get("REMOTE_ADDR"),
        received_at=received_at,
    ))
    return Status(reply.status, reply.body)
