"""The community Kakomimasu server's v1 API, for Kakomimasu matches, at `/v1/`
(docs/dialects.md, "Kakomimasu v1"), so that its client libraries and their sample
AIs play here unchanged.

A team joins its own match with its token (`POST /v1/matches/{id}/players`, `Bearer`)
and is given its `index` and a `pic`, which it then sends as it is in
`Authorization`; here the pic is the team's token itself, so either works everywhere.
Cells count from 0 as natively; the field's `points` and `tiles` are flat, row by row
(`y * width + x`, whatever the board's shape); an agent not on the field is at
(-1, -1). Actions name the target cell (`x`, `y`) as natively, with `agentId` and the
types `PUT`, `MOVE`, `REMOVE`, `NONE`.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from matches import selectors
from matches.access import can_view, visible_matches
from matches.dialects.base import (
    action_objects,
    answer,
    native_action,
    plays_in,
    submit,
    team_of,
)
from matches.models import Board, Match
from matches.rules import rules_for
from matches.services.submissions import Refusal, json_read

GAME = "kakomimasu"
NAME = "kakomimasu-v1"
VERSION = "1.0.0"  # of the API this dialect answers as
STREAM_POLL = 0.5  # seconds between two readings of the matches for the event stream
TYPES = {"PUT": "put", "MOVE": "move", "REMOVE": "remove", "NONE": "stay"}
# The numbers the Game's log gives an action's type and its result (`res`), as the
# community server's client types number them.
TYPE_NUMBERS = {"put": 1, "stay": 2, "move": 3, "remove": 4}
RES = {"ok": 0, "conflict": 1, "invalid": 5}  # 5: an illegal action
TILE = {".": (0, None), "A": (1, 0), "B": (1, 1), "a": (0, 0), "b": (0, 1)}


def token(request: HttpRequest) -> str:
    """The pic as it is, or a `Bearer` token."""
    header = request.headers.get("Authorization", "").strip()
    return header[7:] if header[:7].lower() == "bearer " else header


def error(status: int, message: str, code: int) -> HttpResponse:
    return answer({"message": message, "errorCode": code}, status)


# The community server's error codes (its v1/docs/error.md) for the errors a client
# here can meet: malformed JSON, no valid credentials (with status 401), no such game,
# an action refused (out of its step, or not an action list).
SYNTAX, UNAUTHORIZED, NOT_FOUND, INVALID = 3, 4, 100, 104


def game(match: Match, now=None) -> dict[str, Any]:
    """The match as a v1 Game object."""
    now = now or timezone.now()
    board = selectors.board_shown(match, now)
    rows = list(match.turn_rows.order_by("number"))
    view = rows[-1].state() if rows else selectors.initial_view(match)
    teams = list(match.teams.all())
    width, height = board.get("width", 0), board.get("height", 0)
    status = ("ended" if match.over else "ready" if now < match.start_at else "gaming")
    return {
        "id": str(match.pk),
        "name": str(match),
        "status": status,
        # the turn being played, as the community server counts it: 0 before the start,
        # 1 in the first turn's steps, `totalTurn` at the end
        "turn": 0 if status == "ready" else min(view["turn"] + (status == "gaming"),
                                                 match.turns),
        "totalTurn": match.turns,
        "nPlayer": 2,
        "nAgent": match.agents,
        "operationSec": match.strategy_ms / 1000,
        "transitionSec": match.transition_ms / 1000,
        # whole seconds, as the community server has it; rounded up, so that a client that
        # sleeps until then (its library does) finds the match under way, never early
        "startedAtUnixTime": math.ceil(match.start_at.timestamp()),
        "reservedUsers": [team.name for team in teams],
        "type": "normal",
        "field": {
            "width": width, "height": height,
            "points": [value for row in board.get("points", []) for value in row],
            "tiles": [{"type": TILE[cell][0], "player": TILE[cell][1]}
                      for row in view["cells"] for cell in row],
        },
        "players": [{
            "id": team.name, "type": "account",
            "agents": [{"x": cell[0], "y": cell[1]} if cell else {"x": -1, "y": -1}
                       for cell in view["agents"][team.index]],
            "point": {"areaPoint": view["scores"][team.index]["territory"],
                      "wallPoint": view["scores"][team.index]["wall"]},
        } for team in teams],
        "log": [{"players": [{
            "point": {"areaPoint": row.scores[index]["territory"],
                      "wallPoint": row.scores[index]["wall"]},
            "actions": [{"agentId": outcome.get("agent", -1),
                         "type": TYPE_NUMBERS.get(outcome.get("type"), TYPE_NUMBERS["stay"]),
                         "x": outcome.get("x", -1), "y": outcome.get("y", -1),
                         "res": RES.get(outcome["result"], RES["invalid"])}
                        for outcome in row.outcomes[index]],
        } for index in (0, 1)]} for row in rows],
    }


# --- the routes ------------------------------------------------------------------------


def join(request: HttpRequest, match_id: int) -> HttpResponse:
    """POST /v1/matches/{id}/players: the team of the token joins its own match."""
    team = team_of(token(request), match_id)
    if team is None:
        return error(401, "Unauthorized: send the team's token as 'Bearer <token>'",
                     UNAUTHORIZED)
    match = Match.objects.filter(pk=match_id, game=GAME).first()
    if match is None or not plays_in(team, match):
        return error(400, f"there is no Kakomimasu match {match_id} of this team", NOT_FOUND)
    return answer({"userId": team.name, "spec": "", "gameId": str(match.pk),
                   "index": team.index, "pic": token(request)})


def match_view(request: HttpRequest, match_id: int) -> HttpResponse:
    """GET /v1/matches/{id}: the Game, to whoever may see the match."""
    match = Match.objects.select_related("board").filter(pk=match_id, game=GAME).first()
    if match is None or not can_view(request.user, match, team_of(token(request), match_id)):
        return error(400, f"there is no Kakomimasu match {match_id}", NOT_FOUND)
    return answer(game(match))


def matches_view(request: HttpRequest) -> HttpResponse:
    """GET /v1/matches: those the caller may see, the token's team's included."""
    now = timezone.now()
    shown = visible_matches(request.user, Match.objects.filter(game=GAME),
                            team=team_of(token(request)))
    return answer([game(match, now) for match in
                   selectors.recent_matches(now, shown)])


def actions_view(request: HttpRequest, match_id: int) -> HttpResponse:
    """PATCH /v1/matches/{id}/actions with the pic: the turn's actions."""
    pic = token(request)
    reply = submit(request, match_id, pic, NAME, read)
    if reply.status == 202:
        return answer({"receptionUnixTime": int(timezone.now().timestamp()),
                       "turn": reply.body["turn"]})
    problem = reply.body.get("error", "")
    if problem == DRY_RUN:  # checked and stored, never played
        match = Match.objects.get(pk=match_id)
        return answer({"receptionUnixTime": int(timezone.now().timestamp()),
                       "turn": match.strategy_turn(timezone.now()) or 0})
    if reply.status == 401:
        return error(401, reply.body["detail"], UNAUTHORIZED)
    if reply.status in (403, 404) or problem == "wrong_dialect":
        return error(400, reply.body["detail"], NOT_FOUND)
    if problem == "malformed_json":
        return error(400, reply.body["detail"], SYNTAX)
    return error(reply.status if reply.status in (413, 429) else 400, reply.body["detail"],
                 INVALID)


def read(game_id: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """`{"actions": [{"agentId", "type", "x", "y"}]}` as native actions."""
    if game_id != GAME:
        raise Refusal(400, "wrong_dialect", "this match is not a Kakomimasu match")
    rules, native = rules_for(game_id), []
    shape = '{"agentId", "type", "x", "y"}'
    for index, action in enumerate(action_objects(body, shape)):
        kind = TYPES.get(str(action.get("type", "")).upper())
        if kind is None:
            raise Refusal(400, "invalid_actions", f"actions[{index}].type: expected one of "
                                                  f"{', '.join(TYPES)}")
        moved = {"agent": action.get("agentId"), "type": kind}
        if kind != "stay":
            moved |= {"x": action.get("x"), "y": action.get("y")}
        native.append(native_action(rules, moved, index, {"agent": "agentId"}))
    if _dry_run(body):
        raise Refusal(200, DRY_RUN, "a dry run: the actions are well formed, and not played")
    return native, None


DRY_RUN = "dry_run"


def _dry_run(body: bytes) -> bool:
    """`"dryRun": true` in the body (the community server's option: check, do nothing)."""
    data = json_read(body)
    return isinstance(data, dict) and data.get("dryRun") is True


def stream_view(request: HttpRequest) -> StreamingHttpResponse:
    """GET /v1/matches/stream: server-sent events over the matches the caller may see,
    each a JSON object with its `type`: `initial` (`games`, every Game, and `gamesNum`),
    then `add` (`game`: one now shown), `update` (`game`: one that moved on: a turn, its
    start, its end) and `remove` (`gameId`: one no longer shown), as they happen (read
    every STREAM_POLL seconds), and a comment now and then to keep proxies from closing
    a quiet stream."""
    team = team_of(token(request))
    user = request.user

    def shown() -> dict[str, tuple]:
        """Each visible match's version: its turns played, whether it has begun, its
        visibility (a match's start changes what its Game says without a write)."""
        now = timezone.now()
        matches = visible_matches(user, Match.objects.filter(game=GAME), team=team)
        return {str(pk): (played, closed, start_at <= now, published, public_live)
                for pk, played, closed, start_at, published, public_live in
                matches.values_list("pk", "resolved_turns", "closed", "start_at",
                                    "published", "public_live")}

    def games(ids: list[str]) -> list[dict[str, Any]]:
        now = timezone.now()
        found = Match.objects.select_related("board").filter(pk__in=ids)
        return [game(match, now) for match in sorted(found, key=lambda m: m.pk)]

    async def events():
        versions = await sync_to_async(shown)()
        games_now = await sync_to_async(games)(list(versions))
        yield _event({"type": "initial", "q": "", "games": games_now,
                      "gamesNum": len(games_now)})
        quiet = 0.0
        while True:
            await asyncio.sleep(STREAM_POLL)
            now = await sync_to_async(shown)()
            changed = [pk for pk in now if versions.get(pk) != now[pk]]
            for each in await sync_to_async(games)(changed):
                yield _event({"type": "update" if each["id"] in versions else "add",
                              "game": each})
            for pk in versions.keys() - now.keys():
                yield _event({"type": "remove", "gameId": pk})
            quiet = 0.0 if changed or versions.keys() - now.keys() else quiet + STREAM_POLL
            if quiet >= 15:
                quiet = 0.0
                yield ": still here\n\n"
            versions = now

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
    return response


def _event(data: dict[str, Any]) -> str:
    """One unnamed event (a viewer's `onmessage` hears it), its kind in `type`."""
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


def boards_view(request: HttpRequest) -> HttpResponse:
    """GET /v1/boards: the Kakomimasu boards, as the community server lists them."""
    return answer([{"name": board.name, "width": board.width, "height": board.height,
                    "nPlayer": 2,
                    "points": [value for row in board.data["points"] for value in row]}
                   for board in Board.objects.filter(game=GAME).order_by("name")])


def version_view(request: HttpRequest) -> HttpResponse:
    return answer({"version": VERSION})


def routes() -> list:
    from django.urls import path

    return [
        path("v1/matches", require_GET(matches_view)),
        path("v1/matches/stream", require_GET(stream_view)),
        path("v1/matches/<match:match_id>", require_GET(match_view)),
        path("v1/matches/<match:match_id>/players",
             csrf_exempt(require_http_methods(["POST"])(join))),
        path("v1/matches/<match:match_id>/actions",
             csrf_exempt(require_http_methods(["PATCH", "POST"])(actions_view))),
        path("v1/boards", require_GET(boards_view)),
        path("version", require_GET(version_view)),
    ]
