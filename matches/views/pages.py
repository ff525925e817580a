"""HTML pages: thin shells; the live state arrives over the websocket."""

from __future__ import annotations

import re
from urllib.parse import quote

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from matches import clips, dialects, drawing, picture, selectors
from matches.access import (
    all_as_seen,
    as_seen,
    can_view,
    is_judge,
    is_public,
    owns,
    published_seen,
    session_team,
    session_team_keep,
    team_by_authorization,
    visible_matches,
)
from matches.admission import LARGE, PAGE, cost
from matches.bots import bots_for, levels
from matches.caches import Kept
from matches.models import Match, Team, storable_id
from matches.paths import API
from matches.rules import GAME_CHOICES, rules_for
from matches.selectors import texts
from matches.selectors.debug import debug_readers
from matches.views.spreadsheet import csv_attachment

SECTIONS = [(Match.RUNNING, gettext_lazy("Live")), (Match.UPCOMING, gettext_lazy("Upcoming")),
            (Match.FINISHED, gettext_lazy("Recent"))]
WALL_LIMIT = 6


@cost(PAGE)
def index(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    matches = all_as_seen(request.user,
                          selectors.recent_matches(now, visible_matches(request.user)))
    present = {match.status(now) for match in matches}
    return render(request, "matches/index.html",
                  {"matches": matches, "sections": SECTIONS, "present": present,
                   "games": game_words(), "judge": is_judge(request.user),
                   "practice": settings.PRACTICE != "off"})


def game_words() -> dict[str, dict[str, str]]:
    """Each game's name, its headline's unit and its rule in a line, for the lists and
    the TV (names no game here)."""
    return {game: {"title": gettext(title), "unit": _unit(game),
                   "rule": gettext(rules_for(game).rule_line)} for game, title in GAME_CHOICES}


def _unit(game: str) -> str:
    """What the lists write under the two numbers: "points", "squares · fewer wins"."""
    rules = rules_for(game)
    return rules.unit_words() + (" · " + gettext("fewer wins") if rules.fewer_leads else "")


def visible_match_or_404(request: HttpRequest, match_id: int) -> Match:
    """The match, if this visitor may see it (a judge, the public for a public match,
    a browser signed in as one of its teams: `team_sign_in`); a private match is a 404
    like a missing one."""
    match = get_object_or_404(Match.objects.select_related("board"), pk=match_id)
    team = session_team(request, match)
    if not can_view(request.user, match, team):
        raise Http404(gettext("no match %(numbers)s") % {"numbers": match_id})
    return as_seen(request.user, match, team)  # the public's: its spectator delay behind


@cost(PAGE)
def team_sign_in(request: HttpRequest, match_id: int) -> HttpResponse:
    """A team opens its own private match's pages (its replay, with its debug output):
    its token, typed here once, is checked and never kept; the session keeps which team
    of which match this browser is. The same form for any number, whether a match of it
    exists or not."""
    refused = False
    if request.method == "POST":
        token = request.POST.get("token", "").strip()
        team = team_by_authorization(f"Bearer {token}", match_id) if token else None
        match = Match.objects.filter(pk=match_id).first() if storable_id(match_id) else None
        if isinstance(team, Team) and match is not None and owns(team, match):
            session_team_keep(request, match, team)
            wanted = request.POST.get("next", "")
            own = wanted.startswith(f"/matches/{match_id}/") and "//" not in wanted
            return redirect(wanted if own else reverse("replay", args=[match_id]))
        refused = True
    return render(request, "matches/team_sign_in.html", {
        "match_id": match_id, "refused": refused,
        "next": request.GET.get("next", request.POST.get("next", ""))},
        status=403 if refused else 200)


@cost(PAGE)
def match_screen(request: HttpRequest, match_id: int) -> HttpResponse:
    match = visible_match_or_404(request, match_id)
    return render(request, "matches/match.html", {"match": match, "teams": list(match.teams.all())})


@cost(LARGE)
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    match = visible_match_or_404(request, match_id)
    now = timezone.now()
    readers = debug_readers(request.user, session_team(request, match), match)
    # the data is built once a turn (matches/selectors/texts.py), safe inside a <script> element
    return render(request, "matches/replay.html", {
        "match": match, "teams": list(match.teams.all()),
        "replay": {"marks": {"swing": selectors.swing_threshold(match, now),
                             "conflicts": selectors.conflict_threshold(match, now)}},
        "replay_json": texts.replay_text(match, now), "rules": rules_for(match.game),
        "debug_readable": bool(readers),  # else the page offers the team's way in
        "analysis_name": gettext(rules_for(match.game).analysis_name)
        if rules_for(match.game).analysis_name else None,
        # what-if's built-in players (none for a game played by programs on its server)
        "whatif_level_list": range(1, len(levels(match.game)) + 1) if bots_for(match.game)
        else ()})


@cost(PAGE)
def match_report(request: HttpRequest, match_id: int) -> HttpResponse:
    """A team's report on its own match (the rehearsal report), read by the page from
    the API with the team's token: the page itself says nothing of the match."""
    return render(request, "matches/report.html", {"match_id": match_id})


@cost(PAGE)
def match_play(request: HttpRequest, match_id: int) -> HttpResponse:
    """A person plays one team through the answer API with its token: the page says
    nothing of the match until the API has shown it to that token."""
    return render(request, "matches/play.html", {"match_id": match_id})


# A match number the database can hold (a 64-bit integer); more digits are no match.
MATCH_NUMBER = re.compile(r"[0-9]{1,18}")


def round_matches(user, tournament_id: int) -> list[Match]:
    """A tournament's round now: the matches of its first round with one to come or
    under way (else its last round), each fixture's latest game, as many as a wall
    shows; those the caller may see."""
    games = visible_matches(user).filter(fixture__tournament_id=tournament_id).select_related(
        "fixture").prefetch_related("teams").order_by("fixture__round", "fixture__slot",
                                                      "start_at", "pk")
    latest: dict[int, Match] = {}
    for game in games:
        latest[game.fixture_id] = game  # (in order: each fixture's last game stays)
    if not latest:
        return []
    now = timezone.now()
    playing = [game.fixture.round for game in latest.values() if not game.over
               and game.status(now) in (Match.RUNNING, Match.UPCOMING)]
    current = min(playing) if playing else max(game.fixture.round for game in latest.values())
    return [game for game in latest.values() if game.fixture.round == current][:WALL_LIMIT]


@cost(PAGE)
def screens(request: HttpRequest) -> HttpResponse:
    following = request.GET.get("tournament", "")
    if following:  # a wall that follows a tournament's rounds by itself
        if not MATCH_NUMBER.fullmatch(following):
            return error_page(400, gettext("tournament: give a tournament's number, e.g. 3"))
        matches = round_matches(request.user, int(following))
        ids = [match.pk for match in matches]
        if request.GET.get("ids"):  # what the wall asks when its tournament changed
            return JsonResponse({"ids": ids})
        return render(request, "matches/screens.html", {
            "matches": matches, "limit": WALL_LIMIT, "following": following,
            "ids": ",".join(map(str, ids)), "version": selectors.epoch_ms(timezone.now())})
    wanted = [part.strip() for part in request.GET.get("matches", "").split(",") if part.strip()]
    # a screen in the hall says what is wrong in its language, on its dark page
    if not all(MATCH_NUMBER.fullmatch(part) for part in wanted):
        return error_page(400, gettext("matches: give match numbers separated by commas, "
                                       "e.g. 1,2,3"))
    if len(wanted) > WALL_LIMIT:
        return error_page(400, gettext("matches: at most %(limit)s on one screen")
                          % {"limit": WALL_LIMIT})
    shown = visible_matches(request.user).filter(pk__in=[int(p) for p in wanted])
    found = {m.pk: m for m in shown.prefetch_related("teams")}
    missing = [p for p in wanted if int(p) not in found]
    if missing:
        raise Http404(gettext("no match %(numbers)s") % {"numbers": ", ".join(missing)})
    matches = [found[int(p)] for p in wanted]
    return render(request, "matches/screens.html", {"matches": matches, "limit": WALL_LIMIT})


ERROR_PAGES = {
    400: (gettext_lazy("Bad request"),
          gettext_lazy("The server could not understand this request: check the address.")),
    403: (gettext_lazy("Not allowed"),
          gettext_lazy("This page is for judges: log in with a judge's account.")),
    404: (gettext_lazy("Not found"),
          gettext_lazy("There is no such page, or it is not public: a judge publishes a "
                       "finished match.")),
    500: (gettext_lazy("Something went wrong"),
          gettext_lazy("The server could not answer: the error is in its log. "
                       "Try again in a moment, and tell an organiser if it stays.")),
}


def error_page(status: int, detail: str = "", team_link: str = "") -> HttpResponse:
    """The project's error page, rendered without the request: a 500 may come from the
    database or the session, so it must need neither. It is in the language the request
    asked for (the middleware made it the active one before the view ran)."""
    heading, explanation = ERROR_PAGES[status]
    return HttpResponse(render_to_string("error.html", {
        "status": status, "heading": heading, "explanation": explanation, "detail": detail,
        "team_link": team_link,
        "LANGUAGE_CODE": translation.get_language() or "en",
    }), status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_page(400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_page(403)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    # A program's address is answered as its API answers (JSON), never with a page.
    if request.path.startswith(API):
        said = f"no such address: {request.path[:dialects.ECHOED]}"
        return JsonResponse({"error": "not_found", "detail": said}, status=404)
    spoken = dialects.unrouted(request.path)
    if spoken is not None:
        return spoken
    # Our own Http404s say what is missing ("no match 7"); the resolver's and
    # get_object_or_404's say nothing a visitor can use. A match's page offers its teams
    # their sign-in (for any number: it tells nothing of whether the match exists).
    said = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    ours = isinstance(said, str) and not said.endswith("matches the given query.")
    page = MATCH_PAGE.fullmatch(request.path)
    team_link = f"{reverse('team-sign-in', args=[int(page[1])])}?next=" \
        f"{quote(request.get_full_path(), safe='/')}" if page and storable_id(int(page[1])) else ""
    return error_page(404, detail=said.rstrip(".") if ours else "", team_link=team_link)


MATCH_PAGE = re.compile(r"/matches/([0-9]{1,9})/(?:|replay|report|play)")


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(500)


PUBLISHED_PAGE = 50


@cost(PAGE)
def published(request: HttpRequest) -> HttpResponse:
    """Published matches, newest first, filtered by game, team, board and date."""
    now = timezone.now()
    chosen = {key: request.GET.get(key, "").strip() for key in ("game", "team", "board",
                                                                  "since", "until")}
    judge = is_judge(request.user)
    matches, finals = selectors.published_matches(chosen, judge=judge, now=now,
                                                  limit=PUBLISHED_PAGE)
    rows = [{"match": m, "teams": list(m.teams.all()), "unit": _unit(m.game),
             "board": _board_words(m), "finals": _headline(m.game, finals.get(m.pk)),
             "verdict": _verdict(m, finals.get(m.pk))}
            for m in matches]
    return render(request, "matches/published.html", {
        "rows": rows, "chosen": chosen, "games": GAME_CHOICES, "limit": PUBLISHED_PAGE,
        "judge": judge})


def _board_words(match: Match) -> str:
    """The board's name after the game's: "board 7×7" rather than the game's name twice."""
    title = rules_for(match.game).title
    return match.board.name.removeprefix(f"{title} ") or match.board.name


def _verdict(match: Match, scores: list[dict[str, int]] | None) -> str:
    """The result in the game's plain words ("Alpha wins by 34 points", "Hot wins: Cool
    is boxed in"); "" without a result or final scores."""
    if not match.result or not scores:
        return ""
    return selectors.verdict(match, scores) or ""


def _headline(game: str, scores: list[dict[str, int]] | None) -> list[int] | None:
    """Each team's one number, as the game's rules say (its total, its squares left)."""
    return rules_for(game).headline(scores) if scores else None


@cost(LARGE)
def scores_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    """Scores per turn of a published match: one row a turn, a column per team and part."""
    match = get_object_or_404(Match, pk=match_id)
    if not is_judge(request.user):  # the public's, once its end has come to them
        match = published_seen(match, own=False)
        if match is None:
            raise Http404(f"no published match {match_id}")
    history = selectors.score_history(match)
    parts = list(history[0]["scores"][0])
    return csv_attachment(
        filename=f"match-{match.pk}-scores.csv",
        header=["turn", *(f"{letter}_{part}" for letter in "AB" for part in parts)],
        rows=([entry["turn"], *(team[part] for team in entry["scores"] for part in parts)]
              for entry in history))


# How long a browser or a proxy may keep a picture of a named turn without asking.
PICTURE_MAX_AGE = 3600


def asked_turn(request: HttpRequest, latest: int) -> int | None:
    """?turn=N of a page that draws a resolved turn (the latest when not named); None
    when N is not one of 0..latest (answer `turn_refused`)."""
    asked = request.GET.get("turn", "").strip() or str(latest)
    return int(asked) if re.fullmatch(r"[0-9]{1,5}", asked) and int(asked) <= latest else None


def turn_refused(latest: int) -> HttpResponse:
    return HttpResponseBadRequest(
        f"turn: expected a whole number from 0 to {latest}, the latest turn played",
        content_type="text/plain; charset=utf-8")


@cost(LARGE)
def board_png(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board after one resolved turn as a PNG picture: ?turn=N, by default the latest.
    A resolved turn's picture never changes: it carries an ETag, is drawn once per
    (match, turn, language) for all viewers (`picture.DRAWN`), and a browser that has it
    gets a 304 without the match's turns even being read."""
    match = visible_match_or_404(request, match_id)
    if match.board_hidden(timezone.now()):
        raise Http404("the board is secret until the game starts")
    latest = selectors.stored_turns(match).count()  # the turns stored; 0 is the empty board
    turn = asked_turn(request, latest)
    if turn is None:
        return turn_refused(latest)
    teams = [team.name for team in match.teams.all()]
    result = match.result if turn == latest else None  # the result decides who leads there
    # the words under the numbers are in the page's language: one picture a language
    etag = '"' + picture.picture_key(
        match=match.pk, start=_start(match), turn=turn, title=str(match),
        teams=teams, turns=match.turns, result=result,
        language=translation.get_language()) + '"'
    if _has_it(request, etag):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(picture.DRAWN.get(etag, lambda: _drawn(match, turn, teams,
                                                                       result)),
                                content_type="image/png")
        name = f"match-{match.pk}-turn-{turn}.png"
        response["Content-Disposition"] = f'inline; filename="{name}"'
    response["ETag"] = etag
    # The latest turn's picture changes with the next turn: ask each time (a 304 is cheap).
    age = f"max-age={PICTURE_MAX_AGE}" if request.GET.get("turn", "").strip() else "no-cache"
    response["Cache-Control"] = f"{'public' if is_public(match) else 'private'}, {age}"
    return response


CLIPS = Kept("replay clips", entries=16, limit=64 << 20)  # the GIFs drawn lately
CLIP_VERSION = 1  # part of a clip's key: raise it when the clip's drawing changes


@cost(LARGE)
def replay_gif(request: HttpRequest, match_id: int) -> HttpResponse:
    """Turns `from` to `to` of a match as an animated GIF in the screens' look
    (matches/clips.py), `lang` and `theme` (dark, light) for its words and colours and
    `ms` a frame: ?from=0&to=30&lang=ja&theme=light&ms=500. Drawn in the drawing worker,
    once per distinct clip (CLIPS), a heavy read for a visitor like every picture."""
    match = visible_match_or_404(request, match_id)
    if match.board_hidden(timezone.now()):
        raise Http404("the board is secret until the game starts")
    latest = selectors.stored_turns(match).count()
    problem, asked = _clip_asked(request, latest)
    if problem:
        return HttpResponseBadRequest(problem, content_type="text/plain; charset=utf-8")
    first, last, language, theme, frame_ms = asked
    teams = [team.name for team in match.teams.all()]
    etag = '"' + picture.picture_key(
        clip=CLIP_VERSION, match=match.pk, start=_start(match), first=first,
        last=last, language=language, theme=theme, ms=frame_ms, teams=teams,
        turns=match.turns) + '"'
    if _has_it(request, etag):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(CLIPS.get(etag, lambda: _clipped(
            match, first, last, teams, language, theme, frame_ms)), content_type="image/gif")
        name = f"match-{match.pk}-turns-{first}-{last}.gif"
        response["Content-Disposition"] = f'inline; filename="{name}"'
    response["ETag"] = etag
    response["Cache-Control"] = \
        f"{'public' if is_public(match) else 'private'}, max-age={PICTURE_MAX_AGE}"
    return response


def _clip_asked(request: HttpRequest, latest: int) -> tuple[str, tuple]:
    """The clip a request asks for, or what is wrong with it (one line)."""
    def whole(name: str, default: int) -> int | None:
        text = request.GET.get(name, "").strip() or str(default)
        return int(text) if re.fullmatch(r"[0-9]{1,5}", text) else None

    first, last = whole("from", max(0, latest - clips.FRAMES + 1)), whole("to", latest)
    frame_ms = whole("ms", 500)
    language = request.GET.get("lang", "") or translation.get_language() or "en"
    theme = request.GET.get("theme", "dark")
    if first is None or last is None or not first <= last <= latest:
        return f"from and to: turns from 0 to {latest}, from no later than to", ()
    if last - first + 1 > clips.FRAMES:
        return f"a clip shows at most {clips.FRAMES} turns", ()
    if frame_ms is None or not 100 <= frame_ms <= 5000:
        return "ms: the milliseconds a turn is shown, from 100 to 5000", ()
    if language not in dict(settings.LANGUAGES):
        return f"lang: one of {', '.join(dict(settings.LANGUAGES))}", ()
    if theme not in ("dark", "light"):
        return "theme: dark or light", ()
    return "", (first, last, language, theme, frame_ms)


def _clipped(match: Match, first: int, last: int, teams: list[str], language: str,
             theme: str, frame_ms: int) -> bytes:
    rows = selectors.stored_turns(match).filter(number__lte=last).order_by("number")
    states = [selectors.initial_view(match), *(row.state() for row in rows)]
    rules = rules_for(match.game)
    taken = [rules.drawing_extras(match.board.data, states[:turn + 1]).get(
        "treasures_taken", []) for turn in range(first, last + 1)] \
        if match.board.data.get("treasures") else []
    return drawing.clip(match.game, match.board.data, states[first:last + 1], language,
                        teams=teams, turns=match.turns, frame_ms=frame_ms, theme=theme,
                        taken=taken)


def _drawn(match: Match, turn: int, teams: list[str], result) -> bytes:
    """The picture after `turn`, from the stored turns up to it, drawn in the drawing
    worker's process (matches/drawing.py)."""
    shown = selectors.drawing_states(match, turn)
    extras = rules_for(match.game).drawing_extras(match.board.data, shown)
    return drawing.draw(match.game, match.board.data, shown[-1], translation.get_language(),
                        previous=shown[-2] if len(shown) > 1 else None, title=str(match),
                        teams=teams, turns=match.turns,
                        taken=sorted(extras.get("treasures_taken", ())), result=result)


def _start(match: Match) -> str:
    """The match's own start, for a picture's key: its turns look the same to the public
    behind its spectator delay (whose copy starts later) as to its teams."""
    return (match.start_at - match.shown_late).isoformat()


def _has_it(request: HttpRequest, etag: str) -> bool:
    """Whether the browser's If-None-Match names this picture (weak tags compare as
    strong: a picture has one form)."""
    header = request.headers.get("If-None-Match", "")
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}
    return etag in tags or "*" in tags
