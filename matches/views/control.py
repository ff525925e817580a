"""The control room (/control/, judges; README, "The contest day"): every match running,
held or starting today, each team's connection health, and the judges' hand on each
match: pause, resume, extend, void (matches/services/control.py, the commands' services).
`?part=live` is the page's live part alone, which the page reloads."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from matches.forms import NewMatchForm, NewTournamentForm
from matches.models import Match, Team
from matches.selectors.control import control_matches
from matches.services.control import (
    ControlError,
    match_extend,
    match_pause,
    match_resume,
    match_void,
)
from matches.services.tokens import token_reissue
from matches.views.judges import judges_only

RELOAD_SECONDS = 3


@judges_only
def control_room(request: HttpRequest) -> HttpResponse:
    if request.GET.get("part") == "live":
        return render(request, "matches/_control_live.html", _room())
    return render(request, "matches/control.html", _room())


def _room(**more) -> dict:
    return {"rows": control_matches(timezone.now()), "reload_seconds": RELOAD_SECONDS,
            "new": NewMatchForm(), "new_tournament": NewTournamentForm(), **more}


@require_POST
@judges_only
def control_new_tournament(request: HttpRequest) -> HttpResponse:
    """A tournament made from the room's form (`tournament_create`, as
    `createtournament`): each team's token on this answer alone."""
    form = NewTournamentForm(request.POST)
    created = form.made()
    if created is None:
        return render(request, "matches/control.html",
                      _room(new_tournament=form, opened_tournament=True), status=400)
    names = list(created.tournament.entrants.order_by("index").values_list("name", flat=True))
    return render(request, "matches/control.html", _room(made_tournament={
        "tournament": created.tournament,
        "teams": list(zip(names, created.tokens, strict=True))}))


@require_POST
@judges_only
def control_new_match(request: HttpRequest) -> HttpResponse:
    """A match made from the room's form (`match_make`, as `creatematch`): its teams'
    tokens shown on this answer alone; the form again with its words where refused."""
    form = NewMatchForm(request.POST)
    made = form.made()
    if made is None:
        return render(request, "matches/control.html", _room(new=form, opened=True), status=400)
    names = list(made.match.teams.order_by("index").values_list("name", flat=True))
    return render(request, "matches/control.html", _room(
        made={"match": made.match, "teams": list(zip(names, made.tokens, strict=True))}))


@require_POST
@judges_only
def control_act(request: HttpRequest, match_id: int, action: str) -> HttpResponse:
    """A judge's action on one match, said back at the top of the room."""
    match = get_object_or_404(Match, pk=match_id)
    judge, reason = request.user.get_username(), request.POST.get("reason", "")
    try:
        if action == "pause":
            match_pause(match_id=match.pk, reason=reason, judge=judge)
            said = gettext("Match %(id)s is paused.")
        elif action == "resume":
            match_resume(match_id=match.pk, judge=judge)
            said = gettext("Match %(id)s goes on: its open step has the time it had.")
        elif action == "extend":
            seconds = _seconds(request.POST.get("seconds", ""))
            match_extend(match_id=match.pk, seconds=seconds, judge=judge, reason=reason)
            said = gettext("Match %(id)s has %(seconds)s s more.")
        elif action == "void":
            match_void(match_id=match.pk, reason=reason, judge=judge)
            said = gettext("Match %(id)s is void: it counts nowhere.")
        else:
            raise ControlError(gettext("no such action"))
    except ControlError as error:
        messages.error(request, gettext("Not done: %(why)s") % {"why": error})
    else:
        messages.success(request, said % {"id": match.pk,
                                          "seconds": request.POST.get("seconds", "")})
    return redirect(f"{reverse('control')}#match-{match.pk}")


@require_POST
@judges_only
def control_token(request: HttpRequest, team_id: int) -> HttpResponse:
    """A team lost its token: a new one, shown on this answer alone (never kept in a
    message, a cookie or a log); the old one stops working within a second."""
    team = get_object_or_404(Team.objects.select_related("match"), pk=team_id)
    first = team.match.first_game
    if first is not None:  # a later game's team: its match's first game holds the token
        team = first.teams.get(index=team.index)
    token = token_reissue(team.entrant if team.entrant_id else team)
    return render(request, "matches/control.html", _room(
        reissued={"team": team, "token": token}))


def _seconds(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ControlError(gettext("the seconds to give are a number")) from None
