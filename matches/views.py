"""HTML pages: thin shells; the live state arrives over the websocket."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from matches import selectors
from matches.access import can_view, visible_matches
from matches.models import Match

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
