"""The judges' pages: their login, the audit of a match, offline entry, and the
submission log.

Every view needs a logged-in user with the judge permission: anyone else is sent
to the login page, and a logged-in user without it gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.views import LoginView
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy
from django.views.decorators.http import require_POST

from matches import login_limits
from matches.access import JUDGE_PERMISSION
from matches.admission import LARGE, PAGE, WRITE, cost
from matches.forms import RecordImportForm
from matches.models import Match, RequestTally, Submission, Team
from matches.rules import rules_for
from matches.selectors import SECRET_BOARD, match_verify, notices
from matches.selectors.submission_log import EXPORT_FIELDS, audit_log, body_text, export_rows
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


AUDIT_PAGE = 25  # turns on one page of the audit (latest first); a long match has pages

# The audit's verdict filter: which submissions each choice keeps.
VERDICTS: dict[str, tuple[str, Callable[[Submission], bool]]] = {
    "counted": (gettext_lazy("counted"), lambda s: s.counted),
    "accepted": (gettext_lazy("accepted (202)"), lambda s: s.accepted),
    "replaced": (gettext_lazy("accepted, then replaced"), lambda s: s.accepted and not s.counted),
    "refused": (gettext_lazy("refused (any error)"), lambda s: s.status_code >= 400),
    "late": (gettext_lazy("late, or out of turn (409)"), lambda s: s.status_code == 409),
    "malformed": (gettext_lazy("malformed (400)"), lambda s: s.status_code == 400),
    "refused-other": (gettext_lazy("refused otherwise (401, 403, 413, 429…)"),
                      lambda s: s.status_code >= 400 and s.status_code not in (400, 409)),
}


def team_label(team: Team) -> str:
    """A team as the audit names it: its letter and name, once when they are the same."""
    return team.name if team.name == team.letter else f"{team.letter} {team.name}"


def _audit_filters(request: HttpRequest, teams: list[Team]) -> dict[str, Any]:
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
    keep_team = ({t.index for t in teams if t.letter == chosen["team"]} if chosen["team"]
                 else {t.index for t in teams})
    keep = VERDICTS[chosen["verdict"]][1] if chosen["verdict"] else (lambda s: True)
    filtered = bool(chosen["team"] or chosen["verdict"])
    verdict = match_verify(match) if request.GET.get("verify") else None
    shown = []
    for turn in audit_log(match):
        if chosen["turn"] and turn.number != int(chosen["turn"]):
            continue
        turn.submissions = [s for s in turn.submissions if keep(s) and (
            s.team.index in keep_team if s.team else not chosen["team"])]
        if filtered and not turn.submissions:
            continue
        shown.append(turn)
    pages = max(1, -(-len(shown) // AUDIT_PAGE))
    page = request.GET.get("page", "")
    page = min(int(page), pages) if page.isdigit() and int(page) > 0 else 1
    log = shown[(page - 1) * AUDIT_PAGE : page * AUDIT_PAGE]
    for turn in log:
        for submission in turn.submissions:
            submission.text = body_text(submission)
            submission.team_label = team_label(submission.team) if submission.team else ""
            submission.kept = len(submission.body)
            submission.why_cut = (_why_cut(submission) if submission.kept <
                                  submission.body_size else "")
        # the number large, then the rest of the game's words ("items", "points (wall 5 …)")
        turn.said_scores = ([{"headline": number, "words": rules.score_said(score)
                              .removeprefix(str(number)).strip()}
                             for number, score in zip(rules.headline(turn.scores), turn.scores,
                                                      strict=True)]
                            if turn.scores else None)
        turn.columns = [{"team": team, "label": team_label(team),
                         "outcomes": turn.outcomes[team.index],
                         "idle": rules.idle_said(turn.number, team.index)}
                        for team in teams if turn.outcomes and team.index in keep_team]
    kept = {key: chosen[key] for key in ("team", "verdict") if chosen[key]}
    pager = {"page": page, "pages": pages, "first": log[0].number if log else None,
             "last": log[-1].number if log else None,
             "newer": urlencode(kept | {"page": page - 1}) if page > 1 else None,
             "older": urlencode(kept | {"page": page + 1}) if page < pages else None}
    shown_turn = int(chosen["turn"]) if chosen["turn"] else None
    return render(request, "matches/audit.html", {
        "match": match, "teams": teams, "labels": [team_label(t) for t in teams],
        "board": (gettext(SECRET_BOARD["name"]) if match.board_hidden(now)
                  else match.board.name.removeprefix(f"{rules.title} ")  # not the game twice
                  if match.board.name.startswith(f"{rules.title} board")
                  else gettext("board %(name)s") % {"name": match.board.name}),
        "previous": shown_turn - 1 if shown_turn and shown_turn > 1 else None,
        "next": (shown_turn + 1 if shown_turn is not None and shown_turn < match.turns
                 else None),
        "log": log, "verdict": verdict, "status": STATUS_WORDS[match.status(now)],
        # a game played by its protocol server takes no actions but its programs' lines
        "open_turn": None if match.protocol_played else match.strategy_turn(now),
        "chosen": chosen, "filtered": filtered,
        "verdicts": [(key, words) for key, (words, _) in VERDICTS.items()],
        "public": match.published or match.public_live, "pager": pager,
        "tallies": _tallies(match), "journal": _journal(match),
    })


HAND_WORDS = {"pause": pgettext_lazy("what a judge did", "paused"),
              "resume": pgettext_lazy("what a judge did", "resumed"),
              "extend": pgettext_lazy("what a judge did", "extended"),
              "void": pgettext_lazy("what a judge did", "made void")}


def _journal(match: Match) -> list[dict]:
    """The judges' hand on the match (services/control.py's log), the announcements to
    it and its teams' questions, oldest first, each with its `kind`."""
    said = notices.for_match(match)
    hand = [{**entry, "kind": "hand", "when": datetime.fromtimestamp(entry["at"] / 1000, tz=UTC),
             "words": HAND_WORDS.get(entry["action"], entry["action"])}
            for entry in match.control_log]
    return sorted([*hand,
                   *({"kind": "notice", "when": row.posted_at, "row": row}
                     for row in said["announcements"]),
                   *({"kind": "question", "when": row.asked_at, "row": row}
                     for row in said["questions"])],
                  key=lambda entry: int(entry["when"].timestamp() * 1000))  # as the log keeps it


def _why_cut(submission: Submission) -> str:
    """Why only the head of a request's body was kept (docs/api.md, "Limits and what is
    kept")."""
    if submission.status_code == 413:
        return gettext("larger than the API takes")
    if submission.team is None:
        return gettext("a request without this match's team token")
    if submission.status_code == 429:
        return gettext("over the rate limit")
    if submission.status_code not in (200, 202):
        return gettext("refused")
    return gettext("over the team's storage budget for this match")


def _tallies(match: Match) -> list[dict[str, Any]]:
    """The minutes in which a source sent more than the requests stored one by one: how
    many more were counted, their bytes and the first heads and hashes."""
    rows = RequestTally.objects.filter(
        Q(match=match) | Q(team__match=match), count__gt=STORED_A_MINUTE
    ).select_related("team").order_by("minute", "source")
    return [{"minute": tally.minute, "count": tally.count - STORED_A_MINUTE,
             "bytes": tally.body_bytes, "samples": tally.samples,
             "source": (team_label(tally.team) if tally.team
                        else tally.source.removeprefix("address:"))}
            for tally in rows]


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

