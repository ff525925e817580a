"""The teams' answer API and the public read API (OpenAPI at /api/openapi.json).

Handlers only parse the request, call a service or selector, and answer.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern
from django.utils import timezone
from django.utils.translation import gettext
from ninja import NinjaAPI, Query, Schema, Status, Swagger
from ninja.errors import ValidationError

from matches import selectors
from matches.access import (
    TokenRefused,
    all_as_seen,
    bearer_holder,
    can_view_private,
    is_judge,
    is_public,
    not_its_match,
    published_seen,
    reads_own,
    session_team,
    side_in,
    visible_matches,
)
from matches.access.delay import delayed
from matches.admission import (
    ANSWER,
    GUARDED,
    JOB,
    LARGE,
    PAGE,
    STATE,
    WRITE,
    TooBusy,
    cost,
    too_busy_response,
    visitor_gate,
    visitor_read,
)
from matches.models import Match, Team
from matches.notices_api import router as notices_router
from matches.programs_api import router as programs_router
from matches.request_bodies import BodyRefused, json_object
from matches.rules import LIVE_GAMES, rules_for
from matches.selectors import analysis, debug, texts
from matches.selectors.ladder import PAGE_ROWS, PAGE_ROWS_MAX
from matches.selectors.whatif import WhatIfError, WhatIfUnfinished, whatif
from matches.services import practice
from matches.services.submissions import (
    ADDRESS_LIMIT,
    MAX_ACTIONS,
    MAX_BODY,
    RATE_LIMIT,
    Request,
    submission_receive,
)
from matches.tournaments.api import router as tournaments_router


class JsonErrorsAPI(NinjaAPI):
    """django-ninja, with its plain-text 405 answered as `{"error", "detail"}` too."""

    @property
    def urls(self):
        patterns, app_name, namespace = super().urls
        for pattern in patterns:
            if isinstance(pattern, URLPattern):
                pattern.callback = _json_405(pattern.callback)
        return patterns, app_name, namespace


def _json_405(view):
    @functools.wraps(view)
    def answer(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code != 405:
            return response
        allowed = response.get("Allow", "")
        refused = JsonResponse({"error": "method_not_allowed",
                                "detail": f"{request.method} is not allowed here (only {allowed})"},
                               status=405)
        refused["Allow"] = allowed
        return refused
    return answer


api = JsonErrorsAPI(
    title="Procon spectator API",
    version="1",
    description=(
        "Teams' programs submit each turn's actions during the strategy step with "
        "`Authorization: Bearer <team token>` (docs/api.md tells it all, with an example "
        "client). Times are epoch milliseconds. Every "
        "request is stored, accepted or not, before it is answered. Every error is "
        '`{"error": code, "detail": text}`; 422 `invalid_request` is a path that does '
        "not fit its parameters (a match id that is not a whole number), 405 "
        "`method_not_allowed` a method the path does not take."
    ),
    urls_namespace="api",
    docs_url="/docs",
    # Swagger UI from the project's static files (ninja ships them); no validator badge,
    # which would ask validator.swagger.io: a venue's network is often offline.
    docs=Swagger(settings={"validatorUrl": None}),
    openapi_url="/openapi.json",
)


class Error(Schema):
    error: str
    detail: str


api.add_router("/tournaments", tournaments_router)
api.add_router("/programs", programs_router)
api.add_router("/", notices_router)


@api.exception_handler(ValidationError)
def invalid_request(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """django-ninja's own validation errors, in the API's error shape."""
    problems = "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                         for error in exc.errors)
    return api.create_response(request, {"error": "invalid_request", "detail": problems},
                               status=422)


@api.exception_handler(TokenRefused)
def token_refused(request: HttpRequest, exc: TokenRefused) -> HttpResponse:
    return api.create_response(request, {"error": "unauthorized", "detail": str(exc)},
                               status=401)


@api.exception_handler(TooBusy)
def too_busy(request: HttpRequest, exc: TooBusy) -> HttpResponse:
    return too_busy_response(exc)


class Refused(Exception):
    """A view's preamble refusing the request (`_seen`, `_own_team`): answered with its
    status and the API's error shape, as the view would have returned it."""

    def __init__(self, status: int, error: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


@api.exception_handler(Refused)
def refused(request: HttpRequest, exc: Refused) -> HttpResponse:
    return api.create_response(request, {"error": exc.error, "detail": exc.detail},
                               status=exc.status)


def errors(*codes: int) -> dict[int, type[Error]]:
    return dict.fromkeys(codes, Error)


BEARER = {"in": "header", "name": "Authorization", "required": False,
          "schema": {"type": "string"}, "description": "`Bearer <team token>`"}


class Receipt(Schema):
    turn: int
    received_at: int
    actions: int
    # where the body sent `debug` or `marks`: "kept", or "dropped: <why>" (docs/api.md)
    debug: str | None = None


class Output(Schema):
    turn: int | None  # the open turn when it arrived (null: none open)
    lines: int


class TeamOut(Schema):
    index: int
    name: str


class OwnSubmission(Schema):
    turn: int | None
    received_at: int | None
    actions: list[dict[str, Any]] | None


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
    headline: list[int]
    leader: dict[str, Any]
    to_move: int | None
    clocks: list[int] | None
    result: dict[str, Any] | None
    you: int | None = None


class MatchState(Schema):
    id: int
    game: str
    title: str
    titles: dict[str, str]  # the title in each language ({"ja", "vi", "en"})
    status: str
    turn: int
    turns: int
    agents: int | None  # null while a secret board is secret (its agents are part of it)
    strategy_turn: int | None
    deadline: int | None
    server_time: int
    start_at: int
    strategy_ms: int
    transition_ms: int
    clock_ms: int | None  # alternating games: each team's thinking time for the game
    behind_s: int = 0  # the spectator delay this answer shows it behind (docs/api.md)
    to_move: int | None  # alternating games: the team whose move it is
    clocks: list[int] | None  # alternating games: each team's thinking time left (ms)
    # held by the judges: {"since", "reason", "remaining_ms"} (docs/api.md); null while it runs
    paused: dict[str, Any] | None = None
    teams: list[TeamOut]
    board: dict[str, Any]
    state: dict[str, Any]
    actions: list[dict[str, Any]]
    result: dict[str, Any] | None
    # a match of several games (Procon 2020): which game this is, every game's id and totals
    game_of_match: dict[str, Any] | None
    you: int | None = None
    # the judges' announcements up: everyone's, and with a team's token its own
    announcements: list[dict[str, Any]] = []


ACTION_LIST = {
    "type": "object",
    "required": ["actions"],
    "properties": {"actions": {"type": "array", "maxItems": MAX_ACTIONS,
                               "items": {"anyOf": [rules_for(game).action_schema
                                                   for game in LIVE_GAMES]}},
                   "turn": {"type": ["integer", "null"], "minimum": 1,
                            "description": "the strategy step these actions are for "
                                           "(null: the open one, as when left out)"}},
}


def _team(request: HttpRequest, match_id: int | None = None) -> Team | None:
    """The team of the request's bearer token (None without one); a token nobody holds
    raises TokenRefused, answered 401."""
    return bearer_holder(request.headers.get("Authorization", ""), match_id)


def _you(team: Team | None, match: Match) -> int | None:
    """The index of the token's team in this match, if it plays in it."""
    return side_in(team, match)


def _visible(request: HttpRequest, match_id: int, published_only: bool = False) -> Match | None:
    """The match if this request may see it; None reads as 404, private or not."""
    match = Match.objects.select_related("board").filter(pk=match_id).first()
    if match is None:
        return None
    if is_judge(request.user):
        return match
    own = can_view_private(request.user, match, _team(request)) or \
        session_team(request, match) is not None  # its own team: live
    if published_only:  # a published match's end reaches the public after its delay
        return published_seen(match, own)
    if own:
        return match
    return delayed(match) if is_public(match) else None


def _seen(request: HttpRequest, match_id: int, published_only: bool = False) -> Match:
    """The match if this request may see it (`_visible`); refused 404 otherwise."""
    match = _visible(request, match_id, published_only)
    if match is None:
        raise _not_found(match_id, "published match" if published_only else "match")
    return match


def _own_team(request: HttpRequest, match_id: int) -> Team:
    """The team of the request's token in this match; refused 401 without a team's
    token, 404 for no such match, 403 for a token of another match."""
    team = _team(request, match_id)
    if team is None:
        raise Refused(401, "unauthorized",
                      "send the team token as 'Authorization: Bearer <token>'")
    if not isinstance(team, Team) or team.match_id != match_id:
        if not Match.objects.filter(pk=match_id).exists():
            raise _not_found(match_id)
        raise Refused(403, "forbidden", not_its_match(team, match_id))
    return team


def _not_found(match_id: int, what: str = "match") -> Refused:
    return Refused(404, "not_found", f"there is no {what} {match_id}")


@api.get("/matches", response={200: list[MatchSummary], **errors(401)},
         summary="Running, upcoming and recent matches",
         description="Those the caller may see: the public ones, and with a team's bearer "
                     "token its own match too (private or not), marked with `you`.",
         openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def list_matches(request: HttpRequest):
    now, team = timezone.now(), _team(request)
    shown = visible_matches(request.user, team=team)
    return [{**selectors.match_summary(match, now), "you": _you(team, match)}
            for match in all_as_seen(request.user, selectors.recent_matches(now, shown), team)]


@api.get("/matches/{match_id}", response={200: MatchState, **errors(401, 404, 422, 429)},
         summary="The public state of a match",
         description="Private matches are shown to judges and, with their bearer token, "
                     "to the match's own teams; to anyone else they do not exist (404). "
                     "With a team's token, `you` is that team's index (0 or 1).",
         openapi_extra={"parameters": [BEARER]})
@cost(STATE)
def get_match(request: HttpRequest, match_id: int):
    team = _team(request, match_id)
    if reads_own(team, match_id):  # (what the ASGI path serves: `own_state_text`)
        text = own_state_text(team, match_id)
        if text is None:
            raise _not_found(match_id)
        return _json(text)
    # A visitor's read is counted by its rate and its bytes, and holds a place at the
    # heavy reads' gate only when the match is large; a judge passes freely (another
    # match's token reads as a visitor). What changes only with a turn is built once
    # (matches/selectors/texts.py).
    with visitor_read(request, exempt=is_judge(request.user)) as charge:
        match = _seen(request, match_id)
        charge.expect(texts.estimated_size(match))
        text = texts.public_state_text(match, _you(team, match), holder=team)
        charge.size = len(text)
        return _json(text)


def own_state_text(team: Team, match_id: int) -> bytes | None:
    """`get_match`'s answer to its own team's read (`reads_own`: its token's, in its
    match): free of the visitors' gates, and its own match is never hidden from it; None
    when there is no such match (404). The ASGI path serves it (matches/api_asgi.py)."""
    match = Match.objects.select_related("board").filter(pk=match_id).first()
    if match is None:
        return None
    return texts.public_state_text(match, _you(team, match), holder=team)


@api.get("/matches/{match_id}/actions",
         response={200: OwnSubmission, **errors(401, 403, 404, 422)},
         summary="Your submission that will count for the open strategy step",
         description="Only with the team's bearer token, and only the team's own: the open "
                     "strategy step (`turn`, null between steps) and the team's last accepted "
                     "submission for it (`actions` null: none yet, its agents would stay).",
         openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_own_actions(request: HttpRequest, match_id: int):
    team = _own_team(request, match_id)
    match = Match.objects.get(pk=match_id)
    return Status(200, selectors.own_submission(match, team, timezone.now()))


@api.get("/matches/{match_id}/submissions",
         response={200: dict[str, Any], **errors(401, 403, 404, 422)},
         summary="Everything your team sent in the match",
         description="With the team's bearer token, its own requests only (judges: both "
                     "teams'): each as kept, its answer, whether it counted, its debug text "
                     "and marks, in the order they came "
                     '(docs/api.md, "Your program\'s debug output").',
         openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_submissions(request: HttpRequest, match_id: int):
    match = _seen(request, match_id)
    signed_in = session_team(request, match)
    if is_judge(request.user):
        teams = [0, 1]
    elif signed_in is not None and not request.headers.get("Authorization"):
        teams = [signed_in.index]
    else:
        teams = [_own_team(request, match_id).index]
    return Status(200, {"match": match.pk, "teams": teams,
                        "submissions": debug.sent_by(match, teams)})


@api.get("/matches/{match_id}/debug",
         response={200: dict[str, Any], **errors(401, 403, 404, 422)},
         summary="Your program's debug output and marks, turn by turn",
         description="What the replay draws: by turn, each team's debug text (and its "
                     "program's printed lines) and marks. A team's own with its token, "
                     "both teams' for judges, and for everyone once a judge published the "
                     "match with its debug; refused (403) otherwise.",
         openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_debug(request: HttpRequest, match_id: int):
    match = _seen(request, match_id)
    holder = _team(request, match_id) or session_team(request, match)
    teams = debug.debug_readers(request.user, holder, match)
    if not teams:
        return Status(403, {"error": "forbidden",
                            "detail": "a team's debug output is shown to the team itself (its "
                                      "token) and the judges, and to everyone once the match "
                                      "is published with it"})
    return Status(200, {"match": match.pk, "teams": teams,
                        "turns": debug.debug_turns(match, teams)})


@contextlib.contextmanager
def _heavy(request: HttpRequest, match_id: int) -> Iterator[tuple[Match, Any]]:
    """A heavy read of a match (a visitor's holds a place at the heavy reads' gate; the
    match's own team, by its token, and a judge pass freely; another match's token
    reads as a visitor): the match and the charge to set the size sent on; refused 404
    if the caller may not see it or its board is still secret."""
    team = _team(request, match_id)
    with visitor_gate("heavy", request,
                      exempt=reads_own(team, match_id) or is_judge(request.user)) as charge:
        match = _seen(request, match_id)
        if match.board_hidden(timezone.now()):
            raise _not_found(match_id)
        yield match, charge


@api.get("/matches/{match_id}/analysis",
         response={200: dict[str, Any], **errors(401, 404, 422, 429)},
         summary="The replay's analysis: each team's figure after every turn",
         description="Where the game's rules measure a position (Blokus Duo: each player's "
                     "number of legal moves): `name` in the request's language, `series` "
                     "each team's figure at turn 0 and after every turn played. 404 "
                     "`no_analysis` for a game without one.",
         openapi_extra={"parameters": [BEARER]})
@cost(GUARDED)
def get_analysis(request: HttpRequest, match_id: int):
    with _heavy(request, match_id) as (match, charge):
        if not analysis.has_analysis(match.game):
            return Status(404, {"error": "no_analysis",
                                "detail": "this game's replay has no analysis"})
        series = analysis.match_analysis(match)
        charge.size = 16 * len(series)
        return Status(200, {"match": match.pk, "name": gettext(rules_for(match.game)
                                                                .analysis_name),
                            "series": series})


WHATIF_BODY = 256 * 1024


@api.post("/matches/{match_id}/whatif",
          response={200: dict[str, Any], **errors(400, 401, 404, 413, 422, 429, 503)},
          summary="What if: the match from any turn, with other actions",
          description='`{"from_turn": k, "turns": [[team 0\'s actions, team 1\'s], ...], '
                      '"play_on": {"turns": K, "teams": {"0": "level-3"}}}`: the timeline/1 '
                      "states of the turns after k, computed by the same rules, with these "
                      "actions and then built-in players; nothing is stored. For any match "
                      "the caller may see, computed within a budget (503 `too_long` past "
                      "it: fewer `play_on` turns), a few at once a server (429 beyond) "
                      '(docs/api.md, "What if").',
          openapi_extra={"parameters": [BEARER], "requestBody": {
              "required": True, "content": {"application/json": {"schema": {
                  "type": "object", "required": ["from_turn"],
                  "properties": {"from_turn": {"type": "integer"},
                                 "turns": {"type": "array"},
                                 "play_on": {"type": "object"}}}}}}})
@cost(JOB)
def post_whatif(request: HttpRequest, match_id: int):
    with _heavy(request, match_id) as (match, charge):
        try:
            body = json_object(request, WHATIF_BODY, "a what-if")
        except BodyRefused as refused:
            return Status(*refused.answer())
        try:
            answer = whatif(match, body.get("from_turn"), body.get("turns"), body.get("play_on"))
        except WhatIfError as error:
            return Status(400, {"error": "bad_request", "detail": str(error)})
        except WhatIfUnfinished as unfinished:  # its budget spent, or its process lost
            return Status(503, {"error": unfinished.code, "detail": str(unfinished)})
        charge.size = len(json.dumps(answer))
        return Status(200, answer)


@api.get("/matches/{match_id}/report",
         response={200: dict[str, Any], **errors(401, 403, 404, 422)},
         summary="Your team's report on the match: the rehearsal check",
         description="With the team's bearer token, and only the team's own (a finished "
                     "game of a practice server, whose programs bring no token: without "
                     "one, the visiting program's): each "
                     "request it sent, accepted or not and why, its latency from the step's "
                     "opening, its actions judged invalid, the steps it missed, and the result "
                     '(docs/api.md, "The rehearsal report").',
         openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_report(request: HttpRequest, match_id: int):
    if _team(request, match_id) is None:  # no token: a practice server's game is open
        match = _visible(request, match_id)
        visitor = match and selectors.open_report_team(match)
        if visitor:
            return Status(200, selectors.team_report(match, visitor))
    team = _own_team(request, match_id)
    return Status(200, selectors.team_report(Match.objects.get(pk=match_id), team))


@api.get("/matches/{match_id}/record",
         response={200: dict[str, Any], **errors(401, 404, 422)},
         summary="The match-record/1 of a published match")
@cost(LARGE)
def get_record(request: HttpRequest, match_id: int):
    match = _seen(request, match_id, published_only=True)
    if match.board_hidden(timezone.now()):  # judges included: nobody sees it before then
        return Status(404, {"error": "not_found", "detail": f"match {match_id}'s board is "
                                                            "secret until its game starts"})
    return _json(*texts.record_text(match), request=request)


@api.get("/matches/{match_id}/timeline",
         response={200: dict[str, Any], **errors(401, 404, 422)},
         summary="The timeline/1 of a published match (every stored turn)")
@cost(LARGE)
def get_timeline(request: HttpRequest, match_id: int):
    match = _seen(request, match_id, published_only=True)
    return _json(*texts.timeline_text(match), request=request)


def _json(text: str | bytes, etag: str | None = None, request: HttpRequest | None = None
          ) -> HttpResponse:
    """JSON text built (and kept) by `matches.selectors.texts`, sent as it is; with an ETag, a
    client that has it gets a 304."""
    if etag is not None and request is not None and etag in {
            tag.strip().removeprefix("W/")
            for tag in request.headers.get("If-None-Match", "").split(",")}:
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(text, content_type="application/json; charset=utf-8")
    if etag is not None:
        response["ETag"] = etag
        response["Cache-Control"] = "no-cache"  # ask each time: a 304 is cheap
    return response


@api.post(
    "/matches/{match_id}/actions",
    response={202: Receipt, **errors(400, 401, 403, 404, 409, 413, 422, 429)},
    exclude_none=True,  # `debug` only where the body sent a debug part, as the ASGI path
    summary="Submit this turn's actions",
    description=(
        "Replaces the team's earlier submission for the same strategy step. An optional "
        '`"turn": n` says which step the actions are for. Errors: 400 malformed JSON or '
        "not an action list, 401 missing or unknown token, 403 a token of another match, "
        "404 no such match, 409 the match is not running (`not_running`), the step is over "
        "(`step_over`) or `turn` is not the open step (`wrong_turn`), "
        f"413 a body over {MAX_BODY // 1024} KiB, 429 more than {RATE_LIMIT} requests "
        f"from one token, or {ADDRESS_LIMIT} without a team token from one address, "
        "within a second (rejected ones count too; `Retry-After: 1`)."
    ),
    openapi_extra={"parameters": [BEARER],
                   "requestBody": {"required": True,
                                   "content": {"application/json": {"schema": ACTION_LIST}}},
                   "responses": {429: {"headers": {"Retry-After": {
                       "description": "seconds to wait", "schema": {"type": "integer"}}}}}},
)
@cost(ANSWER)
def submit_actions(request: HttpRequest, match_id: int, response: HttpResponse):
    return _received(request, match_id, response)


@api.post(
    "/matches/{match_id}/output",
    response={200: Output, **errors(400, 401, 403, 404, 413, 422, 429)},
    summary="Keep what the team's program printed besides its moves",
    description=(
        "For relays such as `manage.py playprogram`: the body, UTF-8 text, is stored in "
        "the judges' audit as the program's own output (status 200); it is never taken "
        "as a move. The same token, size and rate limits as the actions."),
    openapi_extra={"parameters": [BEARER],
                   "requestBody": {"required": True,
                                   "content": {"text/plain": {"schema": {"type": "string"}}}}},
)
@cost(ANSWER)
def submit_output(request: HttpRequest, match_id: int, response: HttpResponse):
    return _received(request, match_id, response, output=True)


class PracticeStarted(Schema):
    match: int
    token: str
    team: int
    watch: str
    waiting: bool


PRACTICE_BODY_LIMIT = 64 * 1024  # a field file's content fits
PRACTICE_BODY = {
    "type": "object", "required": ["game", "opponent"],
    "properties": {
        "game": {"type": "string", "enum": list(LIVE_GAMES)},
        "opponent": {"type": "string", "enum": list(practice.OPPONENTS)},
        "agents": {"type": "integer", "description": "Kakomimasu: agents a team"},
        "board": {"description": 'a public board\'s name, "random", or a board\'s JSON '
                                 "(a field file's content)"},
        "turns": {"type": "integer"}, "strategy_seconds": {"type": "number"},
        "transition_seconds": {"type": "number"}, "clock": {"type": "number"},
        "first": {"type": "boolean"}, "name": {"type": "string"}},
}


@api.post(
    "/practice",
    response={201: PracticeStarted, **errors(400, 401, 404, 413, 429)},
    summary="Start a practice match",
    description=(
        "Against a built-in player (`level-1` to `level-4`) or whoever asks next for the "
        "same game (`anyone`). Where the server's practice is `teams`, a team token in "
        "`Authorization`; where it is `open`, anyone may (a guest without one). The answer "
        "carries the match, the caller's token for it (shown once), its team index and "
        "the address to watch it. docs/api.md, \"Practice\", has a worked example."),
    openapi_extra={"parameters": [BEARER],
                   "requestBody": {"required": True,
                                   "content": {"application/json": {"schema": PRACTICE_BODY}}}},
)
@cost(WRITE)
def start_practice(request: HttpRequest):
    raw = request.read(PRACTICE_BODY_LIMIT + 1)
    try:
        by, team_name = practice.practice_caller(request.headers.get("Authorization", ""),
                                                 request.META.get("REMOTE_ADDR"))
        if len(raw) > PRACTICE_BODY_LIMIT:
            raise practice.PracticeError(413, "too_large", "a practice request is at most "
                                         f"{PRACTICE_BODY_LIMIT // 1024} KiB")
        try:
            body = json.loads(raw or b"null")
        except (ValueError, RecursionError):
            raise practice.PracticeError(400, "malformed_json", "the body is not JSON") from None
        if not isinstance(body, dict):
            raise practice.PracticeError(400, "bad_request", "expected a JSON object")
        fields = {name: body.get(name) for name in practice.Ask.__dataclass_fields__}
        started = practice.practice_start(practice.Ask(**fields), by, team_name,
                                          timezone.now())
    except practice.PracticeError as error:
        return Status(error.status, {"error": error.code, "detail": error.detail})
    return Status(201, {"match": started.match.pk, "token": started.token,
                        "team": started.team, "waiting": started.waiting,
                        "watch": request.build_absolute_uri(f"/matches/{started.match.pk}/")})


RatedGame = Literal.__getitem__(tuple(practice.rated_games()))
LADDER_PAGES = 10_000  # the last page of a ladder that may be asked for (a bound on its offset)


@api.get("/practice/ladder", response={200: list[dict[str, Any]], **errors(401, 404, 422)},
         summary="The practice ladder of a game",
         description="`?game=kakomimasu` (or procon2020, blokus-duo, chaser): a page of the "
                     "built-in levels and the teams rated by their finished practice games, "
                     "best first: `page` (from 1) of `limit` rows (50; at most 100). A `Link` "
                     'header names the pages beside it (rel="next", rel="prev") where there are '
                     'such (docs/api.md, "Practice").')
@cost(PAGE)
def get_ladder(request: HttpRequest, response: HttpResponse, game: RatedGame,
               page: int = Query(1, ge=1, le=LADDER_PAGES),
               limit: int = Query(PAGE_ROWS, ge=1, le=PAGE_ROWS_MAX)):
    if practice.practice_setting() == "off":
        return Status(404, {"error": "practice_off",
                            "detail": "this server offers no practice matches"})
    rows = selectors.practice_ladder(game, offset=(page - 1) * limit, limit=limit + 1)
    # the answer stays a plain list (as before pages); the pages around it are links
    links = [(page + 1, "next")] if len(rows) > limit else []
    links += [(page - 1, "prev")] if page > 1 else []
    if links:
        response["Link"] = ", ".join(f'<{request.path}?game={game}&page={number}&limit={limit}>; '
                                     f'rel="{rel}"' for number, rel in links)
    return Status(200, rows[:limit])


def _received(request: HttpRequest, match_id: int, response: HttpResponse,
              **kind: Any) -> Status:
    """A team's request, stored and judged by the service, its answer as the service says."""
    received_at = timezone.now()
    body = request.read(MAX_BODY + 1)
    reply = submission_receive(Request.arrived(
        match_id=match_id, headers=request.headers, body=body, received=len(body),
        remote_addr=request.META.get("REMOTE_ADDR"), received_at=received_at, **kind))
    for name, value in reply.headers.items():
        response[name] = value
    return Status(reply.status, reply.body)
