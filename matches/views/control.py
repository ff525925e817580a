"""The control room (/control/, judges; README, "The contest day"): every match running,
held or starting today, each team's connection health, and the judges' hand on each
match: pause, resume, extend, void (matches/services/control.py, the commands' services).
`?part=live` is the page's live part alone, which the page reads again when its socket
(/ws/control/, live/pages.py) says the room changed."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from matches.admission import PAGE, WRITE, cost
from matches.forms import NewMatchForm, NewTournamentForm
from matches.models import Entrant, Match, Team, storable_id
from matches.selectors import epoch_ms, notices
from matches.selectors.control import control_matches
from matches.services import notices as notice_services
from matches.services.control import (
    ControlError,
    match_extend,
    match_pause,
    match_resume,
    match_void,
)
from matches.services.notices import NoticeError
from matches.services.tokens import token_reissue
from matches.views.judges import judges_only


@judges_only
@cost(PAGE)
def control_room(request: HttpRequest) -> HttpResponse:
    chosen = request.GET.get("tournament", "")
    if request.GET.get("part") == "live":
        room = _room(chosen)
        response = render(request, "matches/_control_live.html", room)
        response["X-Version"] = str(room["version"])
        return response
    return render(request, "matches/control.html", _room(chosen))


def _room(chosen: str = "", **more) -> dict:
    """The room's matches (`chosen`: those of one tournament, by its id, or "none":
    those of no tournament; "": all), the tournaments to choose among, and the rest."""
    now = timezone.now()
    every = control_matches(now)
    tournaments = list({row["tournament"].pk: row["tournament"] for row in every
                        if row["tournament"] is not None}.values())
    rows = [row for row in every if not chosen or (
        row["tournament"] is None if chosen == "none"
        else row["tournament"] is not None and str(row["tournament"].pk) == chosen)]
    # what the part shows is as of now: its version (live/pages.py), from which its page
    # counts its times on
    return {"rows": rows, "version": epoch_ms(now), "notices": notices.for_room(),
            "audiences": _audiences(every), "new": NewMatchForm(),
            "new_tournament": NewTournamentForm(), "tournaments": tournaments,
            "once": uuid.uuid4().hex, "chosen": chosen, "mixed": len(tournaments) > 1 or (
                tournaments and any(row["tournament"] is None for row in every)), **more}


def _audiences(rows: list[dict]) -> list[tuple[str, str]]:
    """Whom an announcement may be for, besides everyone: each team in the room, once
    (a tournament's team for all its matches), and every team of a tournament not over,
    between its matches as well."""
    seen: dict[str, str] = {}
    for entrant in Entrant.objects.filter(tournament__finished_at=None).select_related(
            "tournament").order_by("tournament_id", "index")[:500]:
        seen[f"entrant:{entrant.pk}"] = f"{entrant.name} ({entrant.tournament.name})"
    for row in rows:
        for health in row["teams"]:
            team = health["team"]
            key = f"entrant:{team.entrant_id}" if team.entrant_id else f"team:{team.pk}"
            where = row["tournament"].name if team.entrant_id and row["tournament"] else \
                gettext("match %(id)s") % {"id": row["match"].pk}
            seen.setdefault(key, f"{team.name} ({where})")
    return sorted(seen.items(), key=lambda item: item[1])


@require_POST
@judges_only
@cost(WRITE)
def control_announce(request: HttpRequest) -> HttpResponse:
    """An announcement, to everyone (a banner on every screen) or to one team."""
    to, judge = request.POST.get("to", ""), request.user.get_username()
    try:
        holder = _audience(to)
        notice_services.announcement_post(text=request.POST.get("text", ""), judge=judge,
                                          to=holder)
    except NoticeError as error:
        messages.error(request, gettext("Not posted: %(why)s") % {"why": error})
    else:
        messages.success(request, gettext("Announced to everyone: every screen shows it.")
                         if holder is None else
                         gettext("Announced to %(name)s alone.") % {"name": holder.name})
    return redirect(f"{reverse('control')}#notices")


def _audience(to: str) -> Team | Entrant | None:
    kind, _, number = to.partition(":")
    if not to:
        return None
    model = {"team": Team, "entrant": Entrant}.get(kind)
    row = model.objects.filter(pk=int(number)).first() \
        if model is not None and number.isdigit() and storable_id(int(number)) else None
    if row is None:
        raise NoticeError(gettext("no such team"))
    return row


@require_POST
@judges_only
@cost(WRITE)
def control_take_down(request: HttpRequest, announcement_id: int) -> HttpResponse:
    try:
        notice_services.announcement_take_down(announcement_id=announcement_id,
                                               judge=request.user.get_username())
    except NoticeError as error:
        messages.error(request, gettext("Not done: %(why)s") % {"why": error})
    else:
        messages.success(request, gettext("The announcement is taken down."))
    return redirect(f"{reverse('control')}#notices")


@require_POST
@judges_only
@cost(WRITE)
def control_answer(request: HttpRequest, question_id: int) -> HttpResponse:
    """An answer to a team's question: to it alone, or to everyone."""
    public = request.POST.get("to") == "everyone"
    try:
        notice_services.question_answer(question_id=question_id, public=public,
                                        text=request.POST.get("answer", ""),
                                        judge=request.user.get_username())
    except NoticeError as error:
        messages.error(request, gettext("Not answered: %(why)s") % {"why": error})
    else:
        messages.success(request, gettext("Answered to everyone.") if public else
                         gettext("Answered to its team alone."))
    return redirect(f"{reverse('control')}#notices")


# The room's forms that make something carry a key of their own (`once`), given with
# the page: a form sent again with a key already used (the answer reloaded, which
# browsers send again) makes nothing a second time; the room says what it made then.
ONCE_KEPT = 50  # keys a judge's session remembers


def _made_before(request: HttpRequest) -> HttpResponse | None:
    key = request.POST.get("once", "")
    made = request.session.get("made_once", {})
    if key and key in made:
        messages.info(request, gettext("This form was sent already, and %(what)s was made from "
                                       "it then: nothing more was made. Its tokens were shown "
                                       "once, on that answer.") % {"what": made[key]})
        return redirect(reverse("control"))
    return None


def _made_now(request: HttpRequest, what: str) -> None:
    key = request.POST.get("once", "")
    if key:
        made = dict(list(request.session.get("made_once", {}).items())[-(ONCE_KEPT - 1):])
        made[key] = what
        request.session["made_once"] = made


@require_POST
@judges_only
@cost(PAGE)
def control_new_tournament(request: HttpRequest) -> HttpResponse:
    """A tournament made from the room's form (`tournament_create`, as
    `createtournament`): each team's token on this answer alone, on a sheet to print."""
    again = _made_before(request)
    if again is not None:
        return again
    form = NewTournamentForm(request.POST)
    created = form.made()
    if created is None:
        return render(request, "matches/control.html",
                      _room(new_tournament=form, opened_tournament=True), status=400)
    _made_now(request, gettext("tournament %(id)s") % {"id": created.tournament.pk})
    names = list(created.tournament.entrants.order_by("index").values_list("name", flat=True))
    return render(request, "matches/control.html", _room(made_tournament={
        "tournament": created.tournament,
        "teams": list(zip(names, created.tokens, strict=True))}))


@require_POST
@judges_only
@cost(PAGE)
def control_new_match(request: HttpRequest) -> HttpResponse:
    """A match made from the room's form (`match_make`, as `creatematch`): its teams'
    tokens shown on this answer alone; the form again with its words where refused."""
    again = _made_before(request)
    if again is not None:
        return again
    form = NewMatchForm(request.POST)
    made = form.made()
    if made is None:
        return render(request, "matches/control.html", _room(new=form, opened=True), status=400)
    _made_now(request, gettext("match %(id)s") % {"id": made.match.pk})
    names = list(made.match.teams.order_by("index").values_list("name", flat=True))
    return render(request, "matches/control.html", _room(
        made={"match": made.match, "teams": list(zip(names, made.tokens, strict=True))}))


@require_POST
@judges_only
@cost(WRITE)
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


@require_http_methods(["GET", "POST"])
@judges_only
@cost(PAGE)
def control_token(request: HttpRequest, team_id: int) -> HttpResponse:
    """A team lost its token: a new one, shown on this answer alone (never kept in a
    message, a cookie or a log); the old one stops working within a second. A GET (the
    answer's address reloaded, or opened again) makes none: back to the room, saying so."""
    if request.method == "GET":
        messages.info(request, gettext("A new token is shown once, on the answer that made "
                                       "it; no other was made. If it was lost, ask for "
                                       "another."))
        return redirect(reverse("control"))
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
