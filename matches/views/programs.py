"""The programs' pages (docs/programs.md, "The pages"): /programs/, where a team signs in
with its token (checked as the API checks it, never kept: the session keeps which team
this browser is), hands in versions of its hosted programs, reads their build logs and
matches, and asks for scrimmages; /control/programs/, the judges' view of every team's
programs, where a scrimmage between any two of a game is started. The hand-ins and the
scrimmages go through the services the API and the commands use, with their refusals."""

from __future__ import annotations

import functools
from collections.abc import Callable
from io import BytesIO

from django.contrib import messages
from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from matches.access.programs import (
    ProgramTeam,
    program_team,
    program_team_forget,
    program_team_keep,
)
from matches.admission import PAGE, WRITE, cost
from matches.hosting.queue import build_soon
from matches.models import Program, storable_id
from matches.rules import GAME_CHOICES
from matches.selectors import programs as shown
from matches.services.programs import (
    SOURCE_LIMIT,
    ProgramError,
    hand_ins_check,
    program_caller,
    program_hand_in,
)
from matches.services.scrimmages import SCRIMMAGES_AN_HOUR, scrimmage_ask
from matches.views.judges import judges_only

# What the pages say of a refusal, in the page's language (the API's detail stays English).
REFUSALS = {
    "unauthorized": gettext_lazy("That token is no team's here, or it plays one match only "
                                 "(a practice or a hosted match's): type your team's token."),
    "bad_game": gettext_lazy("Choose one of the games offered."),
    "bad_name": gettext_lazy("Your team's name cannot be used for a program."),
    "bad_language": gettext_lazy("Choose one of the languages this server builds."),
    "bad_file": gettext_lazy("Choose the file to hand in: it was empty, or had no name."),
    "too_large": gettext_lazy("A program is at most %(size)s as handed in: leave out what "
                              "it does not need to build and run (data, built files)."),
    "too_many_programs": gettext_lazy("Your team has handed in as many versions this hour "
                                      "as it may; try again later."),
    "no_program": gettext_lazy("There is no such program of yours."),
    "not_built": gettext_lazy("Both programs need a version that built."),
    "bad_opponent": gettext_lazy("Choose another team's program or a built-in level."),
    "too_many_scrimmages": gettext_lazy("Your team has asked for as many scrimmages this hour "
                                        "as it may; try again later."),
    "bad_request": gettext_lazy("That scrimmage cannot be played as asked."),
}
# A form's fields beside its file: enough for them, well short of another file.
FORM_SLACK = 64 << 10
SOURCE_SIZE = f"{SOURCE_LIMIT >> 20} MiB"  # (a unit, the same in every language)


# The judges' own words where a team's would be wrong for them.
JUDGES_REFUSALS = {
    **REFUSALS,
    "no_program": gettext_lazy("There is no such program."),
    "bad_game": gettext_lazy("The two programs play different games: choose two of one game."),
    "bad_opponent": gettext_lazy("Choose two programs."),
}


def _refusal(error: ProgramError, words: dict = REFUSALS) -> str:
    said = words.get(error.code)
    return str(said) % {"size": SOURCE_SIZE} if said else error.detail


def _signed_in(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A team's form: its view is given the team its browser signed in as; a browser
    signed in as none is sent to the sign-in."""
    @functools.wraps(view)
    def signed_in(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        team = program_team(request)
        if team is None:
            return redirect(reverse("programs"))
        return view(request, team, *args, **kwargs)
    return signed_in


@cost(PAGE)
def programs_page(request: HttpRequest) -> HttpResponse:
    """The team's page; a POST is its sign-in, a token typed once."""
    if request.method == "POST":
        token = request.POST.get("token", "").strip()
        try:
            _, name = program_caller(f"Bearer {token}")
        except ProgramError as error:
            return render(request, "matches/programs.html", {"refusal": _refusal(error)},
                          status=403)
        program_team_keep(request, token, name)
        return redirect(reverse("programs"))
    team = program_team(request)
    if team is None:
        return render(request, "matches/programs.html", {})
    return _team_page(request, team)


def _team_page(request: HttpRequest, team: ProgramTeam, status: int = 200,
               **more) -> HttpResponse:
    now = timezone.now()
    programs = shown.team_programs(team.name, now)
    for program in programs:
        program["opponents"] = shown.scrimmage_opponents(program["program"])
    return render(request, "matches/programs.html", {
        "team": team, "programs": programs, "languages": shown.languages_offered(),
        "games": [(game, gettext(title)) for game, title in GAME_CHOICES],
        "source_size": SOURCE_SIZE, "scrimmages_an_hour": SCRIMMAGES_AN_HOUR,
        **more}, status=status)


@require_POST
@cost(WRITE)
def programs_sign_out(request: HttpRequest) -> HttpResponse:
    program_team_forget(request)
    return redirect(reverse("programs"))


class CappedUpload(FileUploadHandler):
    """A handed-in file kept in memory up to SOURCE_LIMIT bytes; past that it is read
    through and dropped (`too_large`), never kept whole, in memory or on disk."""

    def __init__(self, request=None) -> None:
        super().__init__(request)
        self.too_large = False
        self.chunks: list[bytes] = []
        self.size = 0

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.chunks, self.size = [], 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.size += len(raw_data)
        if self.size > SOURCE_LIMIT:
            self.too_large, self.chunks = True, []
            raise SkipFile()
        self.chunks.append(raw_data)

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        return InMemoryUploadedFile(BytesIO(b"".join(self.chunks)), self.field_name,
                                    self.file_name, self.content_type, file_size,
                                    self.charset, self.content_type_extra)


@csrf_exempt  # (checked inside, once the file's handler is in place: Django's own way)
@require_POST
@cost(WRITE)
@_signed_in
def programs_hand_in(request: HttpRequest, team: ProgramTeam) -> HttpResponse:
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > SOURCE_LIMIT + FORM_SLACK:  # not even read
        return _team_page(request, team, status=413,
                          refusal=_refusal(ProgramError(413, "too_large", "")))
    capped = CappedUpload(request)
    request.upload_handlers = [capped]
    return _hand_in(request, team, capped)


@csrf_protect
def _hand_in(request: HttpRequest, team: ProgramTeam, capped: CappedUpload) -> HttpResponse:
    now = timezone.now()
    try:
        upload = request.FILES.get("file")
        if capped.too_large:
            raise ProgramError(413, "too_large", "too large")
        if upload is None:
            raise ProgramError(400, "bad_file", "no file")
        hand_ins_check(team.name, now)
        version = program_hand_in(
            game=request.POST.get("game", ""), name=team.name,
            language=request.POST.get("language", ""), filename=upload.name,
            data=upload.read(SOURCE_LIMIT + 1), by=team.by, now=now)
    except ProgramError as error:
        return _team_page(request, team, status=error.status, refusal=_refusal(error),
                          asked=request.POST)
    build_soon(version.pk)
    messages.success(request, gettext(
        "Version %(number)s of your %(game)s program is handed in: a worker builds it in a "
        "moment. Reload this page to see how its build went.") % {
        "number": version.number, "game": shown.game_title(version.program.game)})
    return redirect(f"{reverse('programs')}#program-{version.program_id}")


@require_POST
@cost(WRITE)
@_signed_in
def programs_scrimmage(request: HttpRequest, team: ProgramTeam) -> HttpResponse:
    try:
        match = scrimmage_ask(program_id=_number(request.POST.get("program", "")),
                              opponent=request.POST.get("opponent", ""), team=team.name)
    except ProgramError as error:
        return _team_page(request, team, status=error.status, refusal=_refusal(error))
    messages.success(request, _made(match.pk))
    return redirect(reverse("programs"))


def _number(text: str) -> int:
    if not text.isdigit() or not storable_id(int(text)):
        raise ProgramError(404, "no_program", f"no program {text!r}")
    return int(text)


def _made(match_id: int) -> str:
    return gettext("Scrimmage %(id)s is made: it starts in a few seconds, and is listed "
                   "under its programs' matches.") % {"id": match_id}


@judges_only
@cost(PAGE)
def control_programs(request: HttpRequest) -> HttpResponse:
    """Every team's programs (`?program=<id>`: one, with all its versions)."""
    one = request.GET.get("program", "")
    chosen = int(one) if one.isdigit() and storable_id(int(one)) else None
    choices = shown.scrimmage_programs()
    pair = shown.scrimmage_pair(choices) or (None, None)
    return render(request, "matches/control_programs.html", {
        "programs": shown.every_program(timezone.now(), chosen), "chosen": chosen,
        "choices": choices, "count": Program.objects.count(),
        "sides": [("first", gettext("Team A"), pair[0]),
                  ("second", gettext("Team B"), pair[1])]})


@require_POST
@judges_only
@cost(WRITE)
def control_programs_scrimmage(request: HttpRequest) -> HttpResponse:
    try:
        first = _number(request.POST.get("first", ""))
        second = _number(request.POST.get("second", ""))
        match = scrimmage_ask(program_id=first, opponent=f"program:{second}", team=None)
    except ProgramError as error:
        messages.error(request, gettext("Not started: %(why)s") % {
            "why": _refusal(error, JUDGES_REFUSALS)})
    else:
        messages.success(request, _made(match.pk))
    return redirect(reverse("control-programs"))
