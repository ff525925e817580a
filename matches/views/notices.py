"""/questions/: the teams' page for the judges' announcements and their questions, the
same services as GET /api/announcements and /api/questions. Everyone sees the
announcements to everyone and the answers given to everyone; a team's token (typed
into the page, never kept in a cookie or the address) shows its own and asks."""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy

from matches.access import team_by_authorization
from matches.admission import PAGE, cost
from matches.models.notices import TEXT_LIMIT
from matches.selectors.notices import for_holder, questions_for
from matches.services.notices import NoticeError, TooManyQuestions, question_ask

REFUSALS = {
    "token": gettext_lazy("That token is no team's here."),
    "long": gettext_lazy("A question is at most %(limit)s characters."),
    "many": gettext_lazy("Several of your questions wait for an answer already; ask again "
                         "once the judges have answered one."),
}


@cost(PAGE)
def questions_page(request: HttpRequest) -> HttpResponse:
    holder, refusal, asked = None, "", None
    if request.method == "POST":
        token = request.POST.get("token", "").strip()
        holder = team_by_authorization(f"Bearer {token}") if token else None
        text = request.POST.get("question", "").strip()
        if holder is None:
            refusal = REFUSALS["token"]
        elif len(text) > TEXT_LIMIT:
            refusal = REFUSALS["long"] % {"limit": TEXT_LIMIT}
        elif text:
            try:
                asked = question_ask(holder=holder, text=text,
                                     remote_addr=request.META.get("REMOTE_ADDR"))
            except TooManyQuestions:
                refusal = REFUSALS["many"]
            except NoticeError as error:
                refusal = gettext("Not asked: %(why)s") % {"why": error}
    status = 400 if refusal else 200
    announcements = [{**notice, "posted": _moment(notice["at"])} for notice in for_holder(holder)]
    return render(request, "matches/questions.html", {
        "holder": holder, "refusal": refusal, "asked": asked, "limit": TEXT_LIMIT,
        "announcements": announcements, "questions": questions_for(holder)},
        status=status)


def _moment(epoch_ms: int) -> datetime:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
