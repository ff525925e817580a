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

import json
import math
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from matches import selectors
from matches.access import (
    TokenRefused,
    all_as_seen,
    as_seen,
    bearer_holder,
    can_view,
    is_judge,
    reads_own,
    visible_matches,
)
from matches.admission import ANSWER, LARGE, PAGE, STATE, WRITE, cost, visitor_read
from matches.boards.saved import public_version
from matches.caches import Kept, identity
from matches.dialects.base import (
    action_objects,
    answer,
    native_action,
    plays_in,
    submit,
    team_of,
)
from matches.models import Match
from matches.rules import rules_for
from matches.selectors.texts import estimated_size
from matches.services import practice
from matches.services.boards import board_offered_spec, boards_offered
from matches.services.submissions import DryRun, Refusal, json_read

GAME = "kakomimasu"
NAME = "kakomimasu-v1"
VERSION = "1.0.0"  # of the API this dialect answers as
TYPES = {"PUT": "put", "MOVE": "move", "REMOVE": "remove", "NONE": "stay"}
# The numbers the Game's log gives an action's type and its result (`res`), as the
# community server's client types number them.
TYPE_NUMBERS = {"put": 1, "stay": 2, "move": 3, "remove": 4}
RES = {"ok": 0, "conflict": 1, "invalid": 5}  # 5: an illegal action
TILE = {".": (0, None), "A": (1, 0), "B": (1, 1), "a": (0, 0), "b": (0, 1)}


# What the community's JavaScript library sends as a token when it has none: it writes
# `Bearer ${token}` whatever the token is (docs/dialects.md, "Tokens").
NO_TOKEN = {"undefined", "null"}


def token(request: HttpRequest) -> str:
    """The pic as it is, or a `Bearer` token ("" for none, `Bearer undefined` too)."""
    header = request.headers.get("Authorization", "").strip()
    given = header[7:].strip() if header[:7].lower() == "bearer " else header
    return "" if given in NO_TOKEN or given.lower() == "bearer" else given


def reader(request: HttpRequest, match_id: int | None = None):
    """The team of the request's token, None without one; TokenRefused for a token no
    team holds (a registered practice team's is somebody's: it reads as a stranger)."""
    given = token(request)
    return bearer_holder(f"Bearer {given}", match_id) if given else None



def error(status: int, message: str, code: int) -> HttpResponse:
    return answer({"message": message, "errorCode": code}, status)


def unrouted(address: str, match_id: str | None) -> HttpResponse:
    """An address under /v1/ that no route takes (dialects.unrouted)."""
    if match_id is not None:
        return error(404, f"there is no Kakomimasu match {match_id}", NOT_FOUND)
    return error(404, f"Not Found: {address}", NOT_FOUND)


# The community server's error codes (its v1/docs/error.md) for the errors a client
# here can meet: malformed JSON, no valid credentials (with status 401), no such game,
# an action refused (out of its step, or not an action list).
SYNTAX, UNAUTHORIZED, NOT_FOUND, INVALID = 3, 4, 100, 104
REFUSED_TOKEN = (401, "Unauthorized: this token is no team's", UNAUTHORIZED)
# The answer service's refusals in those words: its error -> the status and errorCode
# of the answer, whose message is the service's detail unless OWN_WORDS has one; any
# other error is REFUSED: the actions refused (out of their step, not an action list).
REFUSALS = {
    "unauthorized": (401, UNAUTHORIZED),
    "forbidden": (400, NOT_FOUND),
    "not_found": (400, NOT_FOUND),
    "wrong_dialect": (400, NOT_FOUND),
    "malformed_json": (400, SYNTAX),
    "too_large": (413, INVALID),
    "rate_limited": (429, INVALID),
}
REFUSED = (400, INVALID)
OWN_WORDS = {"wrong_dialect": "this match is not a Kakomimasu match"}


def game(match: Match, now=None, *, whole_log: bool = True) -> dict[str, Any]:
    """The match as a v1 Game object; `whole_log=False` gives only the last turn in `log`
    (the event stream's Games: a long match's log is read with GET /v1/matches/{id})."""
    now = now or timezone.now()
    board = selectors.board_shown(match, now)
    turns = selectors.stored_turns(match).order_by("number")
    rows = list(turns) if whole_log else list(turns.reverse()[:1])
    view = rows[-1].state() if rows else selectors.initial_view(match)
    teams = list(match.teams.all())
    width, height = board.get("width", 0), board.get("height", 0)
    status = _status(match, now, teams)
    turn = 0 if status in ("free", "ready") else min(view["turn"] + (status == "gaming"),
                                                    match.turns)
    # A client counts each step from the start (`startedAtUnixTime + (operationSec +
    # transitionSec) × turn` is when it reads again): after a judge's extension, the
    # start it is given is later by what the steps so far were given, so that its count
    # still finds the next step (the turns played keep their own times).
    started = match.opens_at(turn + 1) - turn * match.period
    return {
        "id": str(match.pk),
        "name": str(match),
        "status": status,
        # the turn being played, as the community server counts it: 0 before the start,
        # 1 in the first turn's steps, `totalTurn` at the end
        "turn": turn,
        "totalTurn": match.turns,
        "nPlayer": 2,
        "nAgent": match.agents,
        "operationSec": match.strategy_ms / 1000,
        "transitionSec": match.transition_ms / 1000,
        # whole seconds, as the community server has it; rounded up, so that a client that
        # sleeps until then (its library does) finds the match under way, never early
        "startedAtUnixTime": math.ceil(started.timestamp()),  # whole: match_make
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


def _status(match: Match, now, teams: list | None = None) -> str:
    """ended, gaming, ready; or free: a practice match opened for anyone, waiting for
    its second player."""
    if any(team.seat == practice.WAITING for team in teams or ()):
        return "free"
    return "ended" if match.over else "ready" if now < match.start_at else "gaming"


# --- the routes ------------------------------------------------------------------------


@cost(ANSWER)
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


# The community server's built-in AIs, as our levels ("none" acts never; its a5, a
# strategy of its own, is played by our strongest level).
AIS = {"none": practice.NOBODY, "a1": "level-1", "a2": "level-2", "a3": "level-3",
       "a4": "level-4", "a5": "level-4"}
NOT_PRACTICE, BAD_REQUEST, NOT_AI, NOT_USER, BAD_BOARD = 5, 6, 102, 204, 400
# The v1 request's fields as the practice service names them.
PRACTICE_FIELDS = {"boardName": "board", "nAgent": "agents", "totalTurn": "turns",
                   "operationSec": "strategy_seconds", "transitionSec": "transition_seconds"}


@cost(WRITE)
def free_players(request: HttpRequest) -> HttpResponse:
    """POST /v1/matches/free/players: join the match a caller opened for anyone, or open
    one (a practice match, docs/api.md "Practice"), as a guest (`guestName`) or a team."""
    return _practice(request, None)


@cost(WRITE)
def ai_players(request: HttpRequest) -> HttpResponse:
    """POST /v1/matches/ai/players: a practice match against a built-in AI (`aiName`)."""
    return _practice(request, "aiName")


def _practice(request: HttpRequest, ai_field: str | None) -> HttpResponse:
    try:
        data = json_read(request.read(64 * 1024 + 1))
    except Refusal as refusal:
        return error(400, refusal.detail, SYNTAX)
    if not isinstance(data, dict):
        return error(400, "invalid request: expected a JSON object", BAD_REQUEST)
    pic = token(request)
    try:
        by, team_name = practice.practice_caller(f"Bearer {pic}" if pic else "",
                                                 request.META.get("REMOTE_ADDR"))
    except practice.PracticeError as refusal:
        status, code = (401, UNAUTHORIZED) if refusal.status == 401 else (404, NOT_PRACTICE)
        return error(status, refusal.detail, code)
    guest = data.get("guestName")
    if team_name is None and not guest:
        return error(400, "can not find user: send a guestName, or a team's token as "
                          "'Bearer <token>'", NOT_USER)
    asked: dict[str, Any] = {"game": GAME, "opponent": practice.ANYONE, "name": guest}
    if ai_field is not None:
        asked["opponent"] = AIS.get(data.get(ai_field))
        if asked["opponent"] is None:
            return error(400, f"can not find ai: {ai_field} is one of {', '.join(AIS)}", NOT_AI)
        asked |= {ours: data[theirs] for theirs, ours in PRACTICE_FIELDS.items()
                  if data.get(theirs) is not None}
    try:
        with transaction.atomic():
            started = practice.practice_start(practice.Ask(**asked), by, team_name,
                                              timezone.now())
            if data.get("dryRun") is True:  # checked as for real, then nothing kept
                transaction.set_rollback(True)
                started = None
    except practice.PracticeError as refusal:
        code = BAD_BOARD if refusal.code == "bad_board" else BAD_REQUEST
        return error(429 if refusal.status == 429 else 400, refusal.detail, code)
    name = team_name or str(guest)
    if started is None:
        return answer({"userId": name, "spec": str(data.get("spec") or ""), "gameId": "",
                       "index": 0, "pic": ""})
    return answer({"userId": name, "spec": str(data.get("spec") or ""),
                   "gameId": str(started.match.pk), "index": started.team, "pic": started.token})


@cost(STATE)
def match_view(request: HttpRequest, match_id: int) -> HttpResponse:
    """GET /v1/matches/{id}: the Game, to whoever may see the match."""
    try:
        team = reader(request, match_id)
    except TokenRefused:
        return error(*REFUSED_TOKEN)
    # a visitor's read is counted by its rate and bytes, and is heavy only for a large
    # match (matches/admission.py); the match's own team reads freely
    with visitor_read(request, exempt=reads_own(team, match_id) or is_judge(request.user)) \
            as charge:
        match = Match.objects.select_related("board").filter(pk=match_id, game=GAME).first()
        if match is None or not can_view(request.user, match, team):
            return error(400, f"there is no Kakomimasu match {match_id}", NOT_FOUND)
        charge.expect(estimated_size(match))
        response = answer(game(as_seen(request.user, match, team)))
        charge.size = len(response.content)
        return response


@cost(LARGE)
def matches_view(request: HttpRequest) -> HttpResponse:
    """GET /v1/matches: those the caller may see, the token's team's included."""
    now = timezone.now()
    try:
        team = reader(request)
    except TokenRefused:
        return error(*REFUSED_TOKEN)
    shown = visible_matches(request.user, Match.objects.filter(game=GAME), team=team)
    return answer([game(match, now) for match in
                   all_as_seen(request.user, selectors.recent_matches(now, shown), team)])


@cost(ANSWER)
def actions_view(request: HttpRequest, match_id: int) -> HttpResponse:
    """PATCH /v1/matches/{id}/actions with the pic: the turn's actions."""
    pic = token(request)
    reply = submit(request, match_id, pic, NAME, GAME, read)
    if reply.status == 202:
        return answer({"receptionUnixTime": int(timezone.now().timestamp()),
                       "turn": reply.body["turn"]})
    problem = reply.body.get("error", "")
    if problem == DRY_RUN:  # checked and stored, never played
        match = Match.objects.get(pk=match_id)
        return answer({"receptionUnixTime": int(timezone.now().timestamp()),
                       "turn": match.strategy_turn(timezone.now()) or 0})
    status, code = REFUSALS.get(problem, REFUSED)
    return error(status, OWN_WORDS.get(problem, reply.body["detail"]), code)


def read(game_id: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """`{"actions": [{"agentId", "type", "x", "y"}]}` as native actions."""
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
    if _dry_run(body):  # answered as a real PATCH would be, never played
        raise DryRun(native, None)
    return native, None


DRY_RUN = "dry_run"


def _dry_run(body: bytes) -> bool:
    """`"dryRun": true` in the body (the community server's option: check, do nothing)."""
    data = json_read(body)
    return isinstance(data, dict) and data.get("dryRun") is True


def stream_window(request: HttpRequest) -> Following | HttpResponse:
    """GET /v1/matches/stream: server-sent events over the Kakomimasu matches the caller
    may see (docs/dialects.md, "The event stream"), as the community server sends them:
    `initial` (`games`, `gamesNum`), then `add`, `update` and `remove` as they happen.
    Streamed by live/streams.py, fed by the same channel-layer events as the list
    screens, never by polling; this window says which Games and what of them, its Games
    built once per match and turn for every stream."""
    try:
        return Following.of(request.GET, team_of(token(request)), request.user)
    except ValueError as problem:
        return error(400, str(problem), SYNTAX)


STREAM_GAMES = 20  # Games in a stream without `endIndex`
STREAM_GAMES_MAX = 50  # ... and the most any stream follows


class Following:
    """One stream's window (live/streams.py's `Window`): its viewer, its range of Games
    and the Games it follows."""

    def __init__(self, user, team, start: int, end: int, allow_new: bool, query: str,
                 wanted: dict[str, str]) -> None:
        self.user, self.team = user, team
        self.start, self.end = start, end
        self.allow_new, self.query, self.wanted = allow_new, query, wanted
        self.judge = is_judge(user)
        self.hears_private = team is not None  # its own private matches, live
        self.followed: dict[str, str] = {}  # game id -> its status when last sent
        self.sent_texts: dict[str, str] = {}  # game id -> the Game last sent in an update
        self.starts: dict[str, float] = {}  # game id -> its start (epoch s), while ready

    @classmethod
    def of(cls, params, team, user) -> Following:
        """From the community server's parameters: `startIndex`, `endIndex` (a window of
        at most STREAM_GAMES_MAX Games; STREAM_GAMES without `endIndex`), `allowNewGame`
        (`true`: Games that come to be shown are added), `q` (`is:waiting|gaming|finished`,
        `id:N`, `sort:startAtUnixTime-asc|desc`; newest first by default)."""
        start = _index(params.get("startIndex"), "startIndex") or 0
        end = _index(params.get("endIndex"), "endIndex")
        end = start + STREAM_GAMES if end is None else end
        end = min(end, start + STREAM_GAMES_MAX)
        query = params.get("q", "")[:200]
        wanted = {}
        for part in query.split():
            op, _, value = part.partition(":")
            if op in ("is", "id", "sort"):
                wanted[op] = value
        return cls(user, team, start, max(start, end),
                   params.get("allowNewGame") == "true", query, wanted)

    # --- which matches, in which order (in a thread: these read the database) ---------

    def visible(self):
        matches = Match.objects.filter(game=GAME)
        if "id" in self.wanted:
            matches = matches.filter(pk=self.wanted["id"]) if self.wanted["id"].isdigit() \
                else matches.none()
        return visible_matches(self.user, matches, team=self.team)

    def shown_now(self) -> tuple[list[str], int]:
        """The ids in the window, and how many there are in all."""
        now = timezone.now()
        matches = self.visible().only("pk", "start_at", "resolved_turns", "turns", "ended_early",
                                      "delay_s", "paused_at", "result", "created_at")
        order = "start_at" if self.wanted.get("sort") == "startAtUnixTime-asc" else "-start_at"
        ids = [str(m.pk) for m in matches.order_by(order, "-pk")  # as this viewer sees it
               if self.fits(_status(as_seen(self.user, m, self.team), now))]
        return ids[self.start:self.end], len(ids)

    def fits(self, status: str) -> bool:
        """`is:` of the query: waiting (not started), gaming, finished."""
        wanted = self.wanted.get("is")
        return wanted is None or {"waiting": "ready", "gaming": "gaming",
                                  "finished": "ended"}.get(wanted) == status

    def may_see(self, match_id: str) -> bool:
        return self.visible().filter(pk=int(match_id)).exists()

    # --- the events ---------------------------------------------------------------

    def opening(self) -> str:
        """The `initial` event (in a thread)."""
        ids, count = self.shown_now()
        texts = _games(ids, self.user, self.team)
        games = [json.loads(text) for text in texts]
        for text, each in zip(texts, games, strict=True):
            self._sent(each)
            self.sent_texts[each["id"]] = text
        return _event_text(json.dumps(
            {"type": "initial", "q": self.query, "startIndex": self.start,
             "endIndex": self.end, "games": games, "gamesNum": count}, ensure_ascii=False))

    def next_due(self) -> tuple[str, float] | None:
        """The Game to start soonest, and when (its `update` then says it is gaming)."""
        return min(self.starts.items(), key=lambda item: item[1]) if self.starts else None

    async def said(self, event: dict) -> list[str]:
        """The stream's events for one event heard."""
        if event.get("resync"):  # events may have been lost: read the window afresh
            ids, _ = await sync_to_async(self.shown_now)()
            return [text for game_id in sorted(set(ids) | set(self.followed))
                    for text in await self._changed(game_id)]
        game_id = event.get("due")
        if game_id is not None:
            self.starts.pop(game_id, None)
        else:
            message = json.loads(event["text"])
            if message["type"] == "withdrawn":
                return self._removed(str(message["match"]))
            if message["type"] != "summary" or message["match"]["game"] != GAME:
                return []
            game_id = str(message["match"]["id"])
        return await self._changed(game_id)

    async def _changed(self, game_id: str) -> list[str]:
        followed = game_id in self.followed
        if not followed and (not self.allow_new or len(self.followed) >= STREAM_GAMES_MAX
                             or ("id" in self.wanted and self.wanted["id"] != game_id)):
            return []
        if self.team is not None and not self.judge and not await sync_to_async(
                self.may_see)(game_id):
            return self._removed(game_id)
        texts = await sync_to_async(_games)([game_id], self.user, self.team)
        if not texts:  # gone, or no longer shown to this viewer
            return self._removed(game_id)
        if followed and self.sent_texts.get(game_id) == texts[0]:
            return []  # built late, it showed this already: no update says the same twice
        each = json.loads(texts[0])
        if not self.fits(each["status"]):
            return self._removed(game_id)
        self._sent(each)
        self.sent_texts[game_id] = texts[0]
        kind = "update" if followed else "add"
        return [_event_text(f'{{"type": "{kind}", "game": {texts[0]}}}')]

    def _sent(self, each: dict) -> None:
        self.followed[each["id"]] = each["status"]
        if each["status"] == "ready":
            self.starts[each["id"]] = each["startedAtUnixTime"]
        else:
            self.starts.pop(each["id"], None)

    def _removed(self, game_id: str) -> list[str]:
        self.sent_texts.pop(game_id, None)
        if self.followed.pop(game_id, None) is None:
            return []
        self.starts.pop(game_id, None)
        return [_event({"type": "remove", "gameId": game_id})]


def _index(text: str | None, name: str) -> int | None:
    if text is None or text == "":
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise ValueError(f"{name} must be a whole number from 0")
    return int(text)


# Each Game as the stream sends it, by (match's identity, its start, turn, status), shared
# by every stream: a turn costs one reading of the match, however many streams follow it.
STREAM_GAME_TEXTS = Kept("v1 stream Games", entries=256, limit=32 << 20)


def _games(ids: list[str], user=None, team=None) -> list[str]:
    """The stream's Game JSON of each match of `ids` that exists, in that order, as the
    stream's viewer sees it (the public: behind a match's spectator delay)."""
    now = timezone.now()
    found = Match.objects.select_related("board").filter(pk__in=[int(i) for i in ids])
    by_id = {str(match.pk): match for match in found}
    texts = []
    for game_id in ids:
        match = by_id.get(game_id)
        if match is None:
            continue
        match = as_seen(user, match, team)
        key = (identity(match), match.start_at, match.resolved_turns, _status(match, now))
        texts.append(STREAM_GAME_TEXTS.get(key, lambda match=match: json.dumps(
            game(match, now, whole_log=False), ensure_ascii=False)))
    return texts


def _event_text(data: str) -> str:
    return f"data: {data}\n\n"


def _event(data: dict[str, Any]) -> str:
    """One unnamed event (a viewer's `onmessage` hears it), its kind in `type`."""
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


@cost(PAGE)
def boards_view(request: HttpRequest) -> HttpResponse:
    """GET /v1/boards: the boards a visitor may play, as the community server lists its
    own: the public boards and the saved boards the judges made public, never a private
    one nor a board someone sent for a match. A text built once for each version of that
    list (`_boards_text`): a flood of it costs its bytes, not a query or a build each."""
    response = HttpResponse(_boards_text(public_version(GAME)),
                            content_type="application/json; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


_BOARDS_TEXT: dict[tuple, bytes] = {}


def _boards_text(version: tuple) -> bytes:
    text = _BOARDS_TEXT.get(version)
    if text is None:
        listed = []
        for name in boards_offered(GAME):
            spec, hints = board_offered_spec(GAME, name)
            listed.append({"name": name, "width": spec["width"], "height": spec["height"],
                           "nAgent": hints.get("agents"), "nPlayer": 2,
                           "totalTurn": hints.get("turns"),
                           "points": [value for row in spec["points"] for value in row]})
        text = json.dumps(listed, ensure_ascii=False).encode()
        _BOARDS_TEXT.clear()  # the one version that is current is kept
        _BOARDS_TEXT[version] = text
    return text


@cost(PAGE)
def version_view(request: HttpRequest) -> HttpResponse:
    return answer({"version": VERSION})


def routes() -> list:
    from django.urls import path

    return [
        path("v1/matches", require_GET(matches_view)),
        path("v1/matches/<match:match_id>", require_GET(match_view)),
        path("v1/matches/free/players", csrf_exempt(require_http_methods(["POST"])(free_players))),
        path("v1/matches/ai/players", csrf_exempt(require_http_methods(["POST"])(ai_players))),
        path("v1/matches/<match:match_id>/players",
             csrf_exempt(require_http_methods(["POST"])(join))),
        path("v1/matches/<match:match_id>/actions",
             csrf_exempt(require_http_methods(["PATCH", "POST"])(actions_view))),
        path("v1/boards", require_GET(boards_view)),
        path("version", require_GET(version_view)),
    ]
