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
from django.views.decorators.http import require_POST

from matches import login_limits
from matches.access import JUDGE_PERMISSION
from matches.models import Match
from matches.selectors import match_verify
from matches.services.publication import PublicationError, match_publish
from matches.services.submissions import submission_enter
from matches.submission_log import EXPORT_FIELDS, audit_log, body_text, export_rows
from matches.views.spreadsheet import csv_attachment


def judges_only(view):
    return login_required(permission_required(JUDGE_PERMISSION, raise_exception=True)(view))


class JudgeLogin(LoginView):
    """Django's login page, answering 429 with a clear message once the account or the
    address has had too many failures (matches.login_limits keeps count)."""

    def form_invalid(self, form):
        if not login_limits.login_blocked(username=self.request.POST.get("username"),
                                          address=login_limits.request_address(self.request)):
            return super().form_invalid(form)
        context = self.get_context_data(form=form, throttled=True,
                                        wait_minutes=login_limits.FAILURE_WINDOW // 60)
        return self.render_to_response(context, status=429)


def _match(match_id: int) -> Match:
    return get_object_or_404(Match.objects.select_related("board"), pk=match_id)


@judges_only
def audit(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    now = timezone.now()
    verdict = match_verify(match) if request.GET.get("verify") else None
    log = audit_log(match)
    for turn in log:
        for submission in turn.submissions:
            submission.text = body_text(submission)
    return render(request, "matches/audit.html", {
        "match": match, "teams": list(match.teams.all()), "log": log, "verdict": verdict,
        "status": match.status(now), "open_turn": match.strategy_turn(now),
    })


@require_POST
@judges_only
def enter(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match(match_id)
    teams = {str(team.index): team for team in match.teams.all()}
    team = teams.get(request.POST.get("team", "").strip())
    if team is None:  # a form from another page, or one edited by hand
        messages.error(request, "Refused: choose the team whose actions these are "
                                f"({' or '.join(t.letter for t in teams.values())}).")
        return redirect("audit", match_id=match.pk)
    body = request.POST.get("actions", "").encode()
    judge = request.user.get_username()
    reply = submission_enter(team, body, judge, request.POST.get("note", ""), timezone.now(),
                             request.META.get("REMOTE_ADDR"))
    if reply.status == 202:
        messages.success(request, f"Stored for {team.name}, turn {reply.body['turn']}: "
                                  f"{reply.body['actions']} actions, entered by {judge}.")
    else:
        messages.error(request, f"Refused ({reply.status} {reply.body['error']}): "
                                f"{reply.body['detail']}. The attempt is in the log.")
    return redirect("audit", match_id=match.pk)


@require_POST
@judges_only
def publish(request: HttpRequest, match_id: int) -> HttpResponse:
    """Publish a finished match (or take it back): its pages, replay and data for all."""
    match = _match(match_id)
    wanted = request.POST.get("published") == "1"
    try:
        match_publish(match_id=match.pk, published=wanted)
    except PublicationError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Published: everyone may see it and download its data."
                         if wanted else "Unpublished: judges and its teams only.")
    return redirect("audit", match_id=match.pk)


@judges_only
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

