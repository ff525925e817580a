"""HTML pages: thin shells; the live state arrives over the websocket."""

from __future__ import annotations

import re
from datetime import date

from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from matches import picture, selectors
from matches.access import can_view, is_judge, visible_matches
from matches.models import Match, Turn
from matches.rules import GAME_CHOICES
from matches.rules.procon2020 import treasures_taken
from matches.selectors import stored_timeline
from matches.views.spreadsheet import csv_attachment

SECTIONS = [(Match.RUNNING, "Live"), (Match.UPCOMING, "Upcoming"), (Match.FINISHED, "Recent")]
WALL_LIMIT = 4


def index(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    matches = selectors.recent_matches(now, visible_matches(request.user))
    present = {match.status(now) for match in matches}
    return render(request, "matches/index.html",
                  {"matches": matches, "sections": SECTIONS, "present": present})


def visible_match_or_404(request: HttpRequest, match_id: int) -> Match:
    """The match, if this visitor may see it; a private match is a 404 like a missing one."""
    match = get_object_or_404(Match.objects.select_related("board"), pk=match_id)
    if not can_view(request.user, match):
        raise Http404(f"no match {match_id}")
    return match


def match_screen(request: HttpRequest, match_id: int) -> HttpResponse:
    match = visible_match_or_404(request, match_id)
    return render(request, "matches/match.html", {"match": match, "teams": list(match.teams.all())})


def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    match = visible_match_or_404(request, match_id)
    return render(request, "matches/replay.html", {
        "match": match, "teams": list(match.teams.all()), "replay": selectors.replay_data(match)})


def screens(request: HttpRequest) -> HttpResponse:
    wanted = [part for part in request.GET.get("matches", "").split(",") if part.strip()]
    if not all(part.strip().isdigit() for part in wanted):
        return HttpResponseBadRequest("matches: give match numbers separated by commas, e.g. 1,2,3")
    if len(wanted) > WALL_LIMIT:
        return HttpResponseBadRequest(f"matches: at most {WALL_LIMIT} on one screen")
    shown = visible_matches(request.user).filter(pk__in=[int(p) for p in wanted])
    found = {m.pk: m for m in shown.prefetch_related("teams")}
    missing = [p for p in wanted if int(p) not in found]
    if missing:
        raise Http404(f"no match {', '.join(missing)}")
    matches = [found[int(p)] for p in wanted]
    return render(request, "matches/screens.html", {"matches": matches})


PUBLISHED_PAGE = 50


def published(request: HttpRequest) -> HttpResponse:
    """Published matches, newest first, filtered by game, team, board and date."""
    chosen = {key: request.GET.get(key, "").strip() for key in ("game", "team", "board",
                                                                  "since", "until")}
    matches = Match.objects.filter(published=True).select_related("board")
    if chosen["game"]:
        matches = matches.filter(game=chosen["game"])
    if chosen["team"]:
        matches = matches.filter(teams__name__icontains=chosen["team"]).distinct()
    if chosen["board"]:
        matches = matches.filter(board__name__icontains=chosen["board"])
    for key, lookup in (("since", "start_at__date__gte"), ("until", "start_at__date__lte")):
        try:
            matches = matches.filter(**{lookup: date.fromisoformat(chosen[key])})
        except ValueError:
            chosen[key] = ""  # an empty or malformed date filters nothing
    matches = list(matches.prefetch_related("teams").order_by("-start_at")[:PUBLISHED_PAGE])
    finals = {row.match_id: row.scores for row in Turn.objects.filter(
        match__in=matches, number=F("match__resolved_turns")).only("match_id", "scores")}
    rows = [{"match": m, "teams": list(m.teams.all()), "finals": _headline(finals.get(m.pk))}
            for m in matches]
    return render(request, "matches/published.html", {
        "rows": rows, "chosen": chosen, "games": GAME_CHOICES, "limit": PUBLISHED_PAGE})


def _headline(scores: list[dict[str, int]] | None) -> list[int] | None:
    """Each team's one number: its total, its remaining squares or its items."""
    if not scores:
        return None
    key = next(k for k in ("total", "remaining", "items") if k in scores[0])
    return [team[key] for team in scores]


def scores_csv(request: HttpRequest, match_id: int) -> HttpResponse:
    """Scores per turn of a published match: one row a turn, a column per team and part."""
    match = get_object_or_404(Match, pk=match_id)
    if not (match.published or is_judge(request.user)):
        raise Http404(f"no published match {match_id}")
    history = selectors.score_history(match)
    parts = list(history[0]["scores"][0])
    return csv_attachment(
        filename=f"match-{match.pk}-scores.csv",
        header=["turn", *(f"{letter}_{part}" for letter in "AB" for part in parts)],
        rows=([entry["turn"], *(team[part] for team in entry["scores"] for part in parts)]
              for entry in history))


def board_png(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board after one resolved turn as a PNG picture: ?turn=N, by default the latest."""
    match = visible_match_or_404(request, match_id)
    states = stored_timeline(match)["states"]  # Turn rows: resolved turns only
    asked = request.GET.get("turn", "").strip() or str(len(states) - 1)
    if not re.fullmatch(r"[0-9]{1,5}", asked) or int(asked) >= len(states):
        return HttpResponseBadRequest(
            f"turn: expected a whole number from 0 to {len(states) - 1}, the latest turn played",
            content_type="text/plain; charset=utf-8")
    shown = states[: int(asked) + 1]
    png = picture.board_png(match.game, match.board.data, shown[-1], title=str(match),
                            teams=[team.name for team in match.teams.all()], turns=match.turns,
                            taken=treasures_taken(match.board.data, shown))
    response = HttpResponse(png, content_type="image/png")
    name = f"match-{match.pk}-turn-{len(shown) - 1}.png"
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response
