"""The official Procon 30 answer API, for Procon 2020 matches, at `/procon30/`, and the
Vietnamese Procon 2020 server's, at `/procon2020/` (docs/dialects.md, "Procon 30 and
Procon 2020 Vietnam").

Its coordinates count from 1; a team is a `teamID` (its index + 1: 1 or 2, never 0,
which is "no one's" in `tiled`) and an agent an `agentID` unique in the match (team
0's agents 1..n, team 1's n+1..2n). The token comes raw in `Authorization` (a
`Bearer ` before it is allowed); the Vietnamese clients also sent it as `?token=` or as
a `token` field of the posted body.
"""

from __future__ import annotations

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
    body_of,
    json_object,
    native_action,
    plays_in,
    practice_request,
    submit,
    submitted_to,
    team_of,
    teams_matches,
)
from matches.models import Match
from matches.rules import rules_for
from matches.services.submissions import Refusal, Reply

GAME = "procon2020"
APPLY = {"ok": 1, "conflict": 0, "invalid": -1}  # an action's `apply` in the history
ACCEPTED = 201  # the status of an accepted POST (as the community server's layer has it)


class Procon30:
    """One dialect of the family: its name, and where its clients put the token."""

    name = "procon30"
    treasures = False  # the Vietnamese state adds treasures and obstacles

    def token(self, request: HttpRequest) -> str:
        header = request.headers.get("Authorization", "").strip()
        return header[7:] if header[:7].lower() == "bearer " else header

    # --- the routes -------------------------------------------------------------------

    @cost(PAGE)
    def ping(self, request: HttpRequest) -> HttpResponse:
        if team_of(self.token(request)) is None:
            return invalid_token()
        return answer({"status": "OK"})

    @cost(PAGE)
    def matches(self, request: HttpRequest) -> HttpResponse:
        team = team_of(self.token(request))
        if team is None:
            return invalid_token()
        return answer([self.listed(match, side) for match, side in teams_matches(team)
                       if match.game == GAME])

    @cost(STATE)
    def match(self, request: HttpRequest, match_id: int) -> HttpResponse:
        team = team_of(self.token(request), match_id)
        if team is None:
            return invalid_token()
        match = Match.objects.select_related("board").filter(pk=match_id, game=GAME).first()
        if match is None or not plays_in(team, match):
            return invalid_matches()
        if timezone.now() < match.start_at:
            return too_early(match)
        return answer(self.state(match))

    @cost(ANSWER)
    def action(self, request: HttpRequest, match_id: int) -> HttpResponse:
        """Every request is stored before its answer, a stranger's too (the service
        keeps those bounded): so the token and the match are judged by the service."""
        token = self.token(request)
        match, first_id = submitted_to(token, match_id)
        sent = Sent()

        def read(game: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
            sent.came_in(body)
            return self.read(game, body, first_id, sent.actions)

        reply = submit(request, match_id, token, self.name, GAME, read)
        if reply.status == 202:  # the actions echoed with the turn they count for
            return answer(sent.echo(reply.body["turn"]), ACCEPTED)
        return REFUSALS.get(reply.body.get("error", ""), refused)(reply, match)

    @cost(WRITE)
    def practice(self, request: HttpRequest) -> HttpResponse:
        """POST practice: a practice match of Procon 2020 against a level or whoever asks
        next (docs/dialects.md), answered as a listed match with the caller's token."""
        started, refusal = practice_request(request, GAME, self.token(request), {
            "opponent": "opponent", "turns": "turns", "turnMillis": "strategy_seconds",
            "intervalMillis": "transition_seconds", "name": "name"})
        if refusal is not None:
            if getattr(refusal, "status", 400) == 401:
                return invalid_token()
            return answer({"status": "BadRequest", "detail": refusal.detail},
                          refusal.status if refusal.status in (404, 429) else 400)
        match = Match.objects.get(pk=started.match.pk)
        return answer({**self.listed(match, started.team), "token": started.token,
                       "startedAtUnixTime": int(match.start_at.timestamp())}, ACCEPTED)

    # --- the shapes -------------------------------------------------------------------

    def listed(self, match: Match, side: int) -> dict[str, Any]:
        names = dict(match.teams.values_list("index", "name"))
        return {"id": match.pk, "intervalMillis": match.transition_ms,
                "matchTo": names[1 - side], "teamID": side + 1,
                "turnMillis": match.strategy_ms, "turns": match.turns}

    def state(self, match: Match) -> dict[str, Any]:
        board = match.board.data
        rows = list(selectors.stored_turns(match).order_by("number"))
        view = rows[-1].state() if rows else selectors.initial_view(match)
        per_team = len(view["agents"][0])
        shown: dict[str, Any] = {
            "width": board["width"], "height": board["height"], "points": board["points"],
            "startedAtUnixTime": int(match.start_at.timestamp()), "turn": view["turn"],
            "tiled": [[{"A": 1, "B": 2}.get(cell, 0) for cell in row] for row in view["cells"]],
            "teams": [{"teamID": team + 1,
                       "agents": [{"agentID": team * per_team + agent + 1, "x": x + 1,
                                   "y": y + 1}
                                  for agent, (x, y) in enumerate(view["agents"][team])],
                       "tilePoint": score["tile"], "areaPoint": score["area"],
                       **({"treasurePoint": score["treasure"]} if self.treasures else {})}
                      for team, score in enumerate(view["scores"])],
            "actions": [{"agentID": team * per_team + outcome["agent"] + 1,
                         "type": outcome["type"], "dx": outcome.get("dx", 0),
                         "dy": outcome.get("dy", 0), "turn": row.number,
                         "apply": APPLY.get(outcome["result"], -1)}
                        for row in rows for team, outcomes in enumerate(row.outcomes)
                        for outcome in outcomes],
        }
        if self.treasures:
            # the game's own word on what a screen draws: the treasures taken so far
            extras = rules_for(GAME).drawing_extras(board, [row.state() for row in rows])
            taken = {tuple(cell) for cell in extras["treasures_taken"]}
            shown["treasure"] = [{"x": t["x"] + 1, "y": t["y"] + 1, "point": t["point"],
                                  "status": 1 if (t["x"], t["y"]) in taken else 0}
                                 for t in board["treasures"]]
            shown["obstacles"] = [{"x": x + 1, "y": y + 1} for x, y in board["obstacles"]]
        return shown

    def read(self, game: str, body: bytes, first_id: int,
             sent: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int | None]:
        """`{"actions": [{"agentID", "type", "dx", "dy"}]}` as native actions: the agent
        by its index in the team (`first_id` is its first agent's ID). The actions as
        sent (their known keys) go to `sent`."""
        rules, native = rules_for(game), []
        for index, action in enumerate(action_objects(body, '{"agentID", "type", "dx", "dy"}')):
            moved = {"agent": agent_of(action, index, first_id), "type": action.get("type"),
                     "dx": action.get("dx", 0), "dy": action.get("dy", 0)}
            if moved["type"] == "stay":
                moved["dx"] = moved["dy"] = 0
            native.append(native_action(rules, moved, index))
            sent.append({"agentID": action["agentID"], "dx": moved["dx"], "dy": moved["dy"],
                         "type": moved["type"]})
        return native, None

class Vietnam(Procon30):
    """Procon 2020 Vietnam: the Procon 30 shapes plus treasures and obstacles; the token
    also as `?token=` or a `token` field of the posted body."""

    name = "procon2020"
    treasures = True

    def token(self, request: HttpRequest) -> str:
        found = super().token(request) or request.GET.get("token", "")
        if found or request.method != "POST":
            return found
        try:
            body = json_object(body_of(request))
        except Refusal:
            return ""
        token = body.get("token")
        return token if isinstance(token, str) else ""


def invalid_token() -> HttpResponse:
    return answer({"status": "InvalidToken"}, 401)


def invalid_matches() -> HttpResponse:
    return answer({"status": "InvalidMatches"}, 400)


def unrouted(address: str, match_id: str | None) -> HttpResponse:
    """An address under the dialect's path that no route takes (dialects.unrouted)."""
    if match_id is not None:
        return answer({"status": "InvalidMatches"}, 404)
    return answer({"status": "NotFound", "detail": f"no such address: {address}"}, 404)


def too_early(match: Match) -> HttpResponse:
    return answer({"startAtUnixTime": int(match.start_at.timestamp()), "status": "TooEarly"},
                  400)


def not_running(reply: Reply, match: Match) -> HttpResponse:
    """Before the start, too early; after the end, an unacceptable time."""
    if timezone.now() < match.start_at:
        return too_early(match)
    return unacceptable_time(reply, match)


def unacceptable_time(reply: Reply, match: Match) -> HttpResponse:
    return answer({"status": "UnacceptableTime",
                   "startAtUnixTime": int(match.start_at.timestamp())}, 400)


def paused(reply: Reply, match: Match) -> HttpResponse:
    """Held by the judges: not taken now, as outside a step, and said why."""
    return answer({"status": "UnacceptableTime", "startAtUnixTime": int(
        match.start_at.timestamp()), "detail": reply.body["detail"]}, 400)


def too_many_requests(reply: Reply, match: Match | None) -> HttpResponse:
    return answer({"status": "TooManyRequests", "detail": reply.body["detail"]}, 429,
                  reply.headers)


def refused(reply: Reply, match: Match | None) -> HttpResponse:
    """Any other refusal: the actions (400), or the request (a body over the limit)."""
    return answer({"status": "InvalidActions" if reply.status == 400 else "BadRequest",
                   "detail": reply.body.get("detail", "")}, reply.status)


# The answer service's refusals in the official servers' words (docs/dialects.md): its
# error -> the answer; any other error is `refused`.
REFUSALS: dict[str, Refused] = {
    "unauthorized": lambda reply, match: invalid_token(),
    "forbidden": lambda reply, match: invalid_matches(),
    "not_found": lambda reply, match: invalid_matches(),
    "wrong_dialect": lambda reply, match: invalid_matches(),
    "not_running": not_running,
    "step_over": unacceptable_time,
    "wrong_turn": unacceptable_time,
    "paused": paused,
    "rate_limited": too_many_requests,
}


def routes(dialect: Procon30) -> list:
    from django.urls import path

    views = {
        "ping": require_GET(dialect.ping),
        "matches": require_GET(dialect.matches),
        "match": require_GET(dialect.match),
        "action": csrf_exempt(require_POST(dialect.action)),
        "practice": csrf_exempt(require_POST(dialect.practice)),
    }
    return [path("ping", views["ping"]), path("matches", views["matches"]),
            path("matches/<match:match_id>", views["match"]),
            path("matches/<match:match_id>/action", views["action"]),
            path("practice", views["practice"])]
