"""Tournament pages: the list, a tournament's page (standings, cross table, bracket,
schedule; its live part read again when its socket says it changed: live/pages.py),
the standings as CSV, every record as one archive, and the judges' hand on a fixture."""

from __future__ import annotations

import io
import json
import zipfile

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from matches.access import JUDGE_PERMISSION, is_judge, published_seen
from matches.admission import LARGE, PAGE, WRITE, cost
from matches.models import Fixture, Match, Tournament
from matches.rules import rules_for
from matches.selectors import epoch_ms, match_export
from matches.tournaments.services import (
    FixtureError,
    fixture_award,
    fixture_decide,
    fixture_rerun,
    tournament_publish,
)
from matches.tournaments.table import page_data
from matches.views.spreadsheet import csv_attachment
from matches.views.statuses import STATUS_WORDS


def _visible(request: HttpRequest, tournament_id: int) -> Tournament:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if not (tournament.public or is_judge(request.user)):
        raise Http404(f"no tournament {tournament_id}")
    return tournament


LISTED_A_PAGE = 50  # tournaments on a page of the list, newest first


@cost(PAGE)
def tournament_list(request: HttpRequest) -> HttpResponse:
    """The tournaments the caller may see, newest first, a page at a time (`?page=N`);
    their start in the reader's time zone (static/matches/local-times.js)."""
    now = timezone.now()
    shown = Tournament.objects.all() if is_judge(request.user) else \
        Tournament.objects.filter(public=True)
    page = Paginator(shown.annotate(teams=Count("entrants")).order_by("-start_at", "-pk"),
                     LISTED_A_PAGE).get_page(request.GET.get("page"))
    rows = [{"tournament": t, "status": t.status(now), "teams": t.teams,
             "game": rules_for(t.game).title, "status_words": STATUS_WORDS[t.status(now)]}
            for t in page]
    return render(request, "matches/tournaments.html", {"rows": rows, "page": page})


@cost(PAGE)
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The page; `?part=live` is its live part alone, which the page reloads."""
    tournament = _visible(request, tournament_id)
    asked = request.GET.get("round", "")
    shown = int(asked) if asked.isdigit() and len(asked) < 6 else None
    judge = is_judge(request.user)
    now = timezone.now()
    context = {**page_data(tournament, now, shown, public=not judge), "judge": judge,
               # what the page shows is as of now: its version (live/pages.py)
               "version": epoch_ms(now), "status_words": STATUS_WORDS[tournament.status(now)]}
    if request.GET.get("part") == "live":
        response = render(request, "matches/_tournament_live.html", context)
        response["X-Version"] = str(context["version"])
        return response
    return render(request, "matches/tournament.html", context)


@cost(PAGE)
def standings_csv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = _visible(request, tournament_id)
    data = page_data(tournament, timezone.now(), public=not is_judge(request.user))
    keys = data["tiebreak_keys"]
    return csv_attachment(
        filename=f"tournament-{tournament.pk}-standings.csv",
        header=["rank", "team", "short", "affiliation", "played", "wins", "draws", "losses",
                "byes", "score", *keys],
        rows=([row["rank"], row["team"].name, row["team"].short, row["team"].affiliation,
               row["played"], row["wins"], row["draws"], row["losses"], row["byes"],
               row["score"], *(row["tiebreaks"].get(key) for key in keys)]
              for row in data["standings"]))


@cost(LARGE)
def records_zip(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Every finished match of the tournament that this visitor may read, as match-record/1
    files in one ZIP archive, with the tournament itself as tournament.json."""
    tournament = _visible(request, tournament_id)
    matches = Match.objects.filter(fixture__tournament=tournament).select_related("board")
    public = not is_judge(request.user)
    if public:
        matches = matches.filter(Q(published=True))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        from matches.tournaments.table import tournament_data
        archive.writestr("tournament.json", json.dumps(
            tournament_data(tournament, timezone.now(), public), ensure_ascii=False, indent=1))
        for match in matches.order_by("pk"):
            if published_seen(match, own=False) if public else match.over:  # its end shown
                archive.writestr(f"match-{match.pk}-record.json",
                                 json.dumps(match_export(match), ensure_ascii=False))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = \
        f'attachment; filename="tournament-{tournament.pk}-records.zip"'
    return response


@require_POST
@permission_required(JUDGE_PERMISSION, raise_exception=True)
@cost(WRITE)
def tournament_publish_all(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A judge publishes every finished match of the tournament at once."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    count = tournament_publish(tournament_id=tournament.pk)
    messages.success(request, ngettext("Published %(count)s match: everyone may see it and "
                                       "download its data.",
                                       "Published %(count)s matches: everyone may see them "
                                       "and download their data.", count) % {"count": count})
    return redirect("tournament", tournament_id=tournament.pk)


@require_POST
@permission_required(JUDGE_PERMISSION, raise_exception=True)
@cost(WRITE)
def fixture_hand(request: HttpRequest, tournament_id: int, fixture_id: int) -> HttpResponse:
    """A judge records a fixture's result (`winner`: a seed, or "draw") or has it rerun
    (`rerun`), with a note; the answer is the tournament page, saying what was done."""
    fixture = get_object_or_404(Fixture, pk=fixture_id, tournament_id=tournament_id)
    note, judge = request.POST.get("note", ""), request.user.get_username()
    try:
        chosen = request.POST.get("winner", "")
        winner = None if chosen == "draw" else int(chosen) if chosen.isdigit() else -1
        if "rerun" in request.POST:
            fixture_rerun(fixture_id=fixture.pk, note=note, judge=judge)
        elif "award" in request.POST:  # the other team forfeits; matches under way are void
            if winner is None:
                raise FixtureError(gettext("an award names the team it goes to, not a draw"))
            fixture_award(fixture_id=fixture.pk, winner=winner, note=note, judge=judge)
        else:
            fixture_decide(fixture_id=fixture.pk, winner=winner, note=note, judge=judge)
    except FixtureError as error:
        tournament = fixture.tournament
        context = {**page_data(tournament, timezone.now()), "judge": True,
                   "version": epoch_ms(timezone.now()), "problem": str(error),
                   "status_words": STATUS_WORDS[tournament.status(timezone.now())],
                   "problem_fixture": fixture.pk}
        return render(request, "matches/tournament.html", context, status=400)
    return redirect(f"/tournaments/{tournament_id}/#fixture-{fixture.pk}")
