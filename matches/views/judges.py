"""The judges' pages: their login, the audit of a match, offline entry, and the
submission log.

Every view needs a logged-in user with the judge permission: anyone else is sent
to the login page, and a logged-in user without it gets 403.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.views import LoginView
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from matches import login_limits
from matches.access import JUDGE_PERMISSION
from matches.admission import LARGE, PAGE, WRITE, cost
from matches.forms import RecordImportForm
from matches.models import Match, Team
from matches.rules import rules_for
from matches.selectors import SECRET_BOARD, match_verify
from matches.selectors.submission_log import (
    EXPORT_FIELDS,
    VERDICTS,
    audit_journal,
    audit_page,
    audit_tallies,
    export_rows,
    team_label,
)
from matches.services.publication import PublicationError, match_publish
from matches.services.submissions import STORED_A_MINUTE, submission_enter
from matches.views.spreadsheet import csv_attachment
from matches.views.statuses import STATUS_WORDS


def judges_only(view):
    return login_required(permission_required(JUDGE_PERMISSION, raise_exception=True)(view))


class JudgeLogin(LoginView):
    """Django's login page, answering 429 with a clear message once this name from this
    address, or this address over all names, has had too many failures
    (matches.login_limits keeps count)."""

    def form_invalid(self, form):
        if not login_limits.login_blocked(username=self.request.POST.get("username"),
                                          address=login_limits.request_address(self.request)):
            return super().form_invalid(form)
        context = self.get_context_data(form=form, throttled=True,
                                        wait_minutes=login_limits.FAILURE_WINDOW // 60)
        return self.render_to_response(context, status=429)


def _match(match_id: int) -> Match:
    return get_object_or_404(Match.objects.select_related("board"), pk=match_id)


def _audit_filters(request: HttpRequest, teams: list[Team]) -> dict[str, str]:
    """The audit's filters from the address: `team` (a letter), `verdict`, `turn`."""
    letters = {team.letter: team for team in teams}
    chosen = {key: request.GET.get(key, "").strip() for key in ("team", "verdict", "turn")}
    chosen["team"] = chosen["team"].upper() if chosen["team"].upper() in letters else ""
    if chosen["verdict"] not in VERDICTS:
        chosen["verdict"] = ""
    chosen["turn"] = chosen["turn"] if chosen["turn"].isdigit() else ""
    return chosen


@judges_only
@cost(LARGE)
def audit(request: HttpRequest, match_id: int) -> HttpResponse:
    """Every turn of a match (latest first): its scores in the game's words, each
    submission as received, and the counted actions' outcomes; filtered by team,
    verdict and turn when the address asks."""
    match = _match(match_id)
    now = timezone.now()
    rules = rules_for(match.game)
    teams = list(match.teams.all())
    chosen = _audit_filters(request, teams)
    shown_turn = int(chosen["turn"]) if chosen["turn"] else None
    return render(request, "matches/audit.html", {
        **audit_page(match, teams, chosen, request.GET.get("page", "")),
        "match": match, "teams": teams, "labels": [team_label(t) for t in teams],
        "board": (gettext(SECRET_BOARD["name"]) if match.board_hidden(now)
                  else match.board.name.removeprefix(f"{rules.title} ")  # not the game twice
                  if match.board.name.startswith(f"{rules.title} board")
                  else gettext("board %(name)s") % {"name": match.board.name}),
        "previous": shown_turn - 1 if shown_turn and shown_turn > 1 else None,
        "next": (shown_turn + 1 if shown_turn is not None and shown_turn < match.turns
                 else None),
        "verdict": match_verify(match) if request.GET.get("verify") else None,
        "status": STATUS_WORDS[match.status(now)],
        # a game played by its protocol server takes no actions but its programs' lines
        "open_turn": None if match.protocol_played else match.strategy_turn(now),
        "chosen": chosen,
        "verdicts": [(key, words) for key, (words, _) in VERDICTS.items()],
        "public": match.published or match.public_live,
        "tallies": audit_tallies(match, STORED_A_MINUTE), "journal": audit_journal(match),
    })


@require_POST
@judges_only
@cost(PAGE)
def enter(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    teams = {str(team.index): team for team in match.teams.all()}
    team = teams.get(request.POST.get("team", "").strip())
    if team is None:  # a form from another page, or one edited by hand
        messages.error(request, gettext(
            "Refused: choose the team whose actions these are (%(a)s or %(b)s).") % {
            "a": "A", "b": "B"})
        return redirect("audit", match_id=match.pk)
    body = request.POST.get("actions", "").encode()
    judge = request.user.get_username()
    reply = submission_enter(team, body, judge, request.POST.get("note", ""), timezone.now(),
                             request.META.get("REMOTE_ADDR"))
    if reply.status == 202:
        messages.success(request, ngettext(
            "Stored for %(team)s, turn %(turn)s: %(count)s action, entered by %(judge)s.",
            "Stored for %(team)s, turn %(turn)s: %(count)s actions, entered by %(judge)s.",
            reply.body["actions"]) % {"team": team.name, "turn": reply.body["turn"],
                                      "count": reply.body["actions"], "judge": judge})
    else:
        messages.error(request, gettext(
            "Refused (%(status)s %(error)s): %(detail)s. The attempt is in the log.") % {
            "status": reply.status, "error": reply.body["error"],
            "detail": reply.body["detail"]})
    return redirect("audit", match_id=match.pk)


@require_POST
@judges_only
@cost(WRITE)
def publish(request: HttpRequest, match_id: int) -> HttpResponse:
    """Publish a finished match (or take it back): its pages, replay and data for all."""
    match = _match(match_id)
    wanted = request.POST.get("published") == "1"
    try:
        match_publish(match_id=match.pk, published=wanted, debug=request.POST.get("debug") == "1")
    except PublicationError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, gettext("Published: everyone may see it and download its data.")
                         if wanted else gettext("Unpublished: judges and its teams only."))
    return redirect("audit", match_id=match.pk)


@judges_only
@cost(PAGE)
def import_record(request: HttpRequest) -> HttpResponse:
    """A judge uploads a record (any game's match-record/1, or a Blokus Duo game record):
    the admin's import and `importrecord`'s service, with the same one-line errors; a
    bad file is refused on the form and nothing is stored."""
    form = RecordImportForm(request.POST or None, request.FILES or None)
    match = form.imported() if request.method == "POST" else None
    if match is not None:
        shown = gettext("published") if match.published else gettext("not published")
        messages.success(request, gettext("Imported %(file)s as match %(id)s (%(shown)s).") % {
            "file": form.cleaned_data["record"].name, "id": match.pk, "shown": shown})
        return redirect("audit", match_id=match.pk)
    return render(request, "matches/import.html", {"form": form})


@judges_only
@cost(LARGE)
def export(request: HttpRequest, match_id: int, kind: str) -> HttpResponse:
    if kind not in ("csv", "json"):
        raise Http404(f"no export as {kind}: csv or json")
    match = _match(match_id)
    rows = export_rows(match)
    name = f"match-{match.pk}-submissions.{kind}"
    if kind != "json":
        return csv_attachment(filename=name, header=EXPORT_FIELDS,
                              rows=([row[field] for field in EXPORT_FIELDS] for row in rows))
    response = JsonResponse({"match": match.pk, "submissions": rows},
                            json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response

