"""Hosted programs through the API (docs/programs.md, "Handing in"; docs/api.md):
`POST /api/programs` hands in a version of the caller's team's program (the file or
archive as the body; the game, language and file name in the query), to be built by a
worker; `GET /api/programs/{id}` shows a program's versions and their build logs to its
team's token and to the judges."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Router, Schema, Status

from matches.admission import PAGE, WRITE, cost
from matches.hosting.queue import build_soon
from matches.models import Program
from matches.services.programs import (
    SOURCE_LIMIT,
    ProgramError,
    hand_ins_check,
    program_caller,
    program_hand_in,
    program_shown,
)

router = Router(tags=["hosted programs"])
BEARER = {"in": "header", "name": "Authorization", "required": True,
          "schema": {"type": "string"}, "description": "`Bearer <team token>`"}


class Error(Schema):
    error: str
    detail: str


def _refused(error: ProgramError) -> Status:
    return Status(error.status, {"error": error.code, "detail": error.detail})


@router.post("", response={201: dict[str, Any], 400: Error, 401: Error, 413: Error,
                           422: Error, 429: Error},
             summary="Hand in a version of your team's program",
             description=(
                 "The body is the program as it is: one source file, an executable, or a "
                 "zip or tar archive (at most 8 MiB); `?game=blokus-duo&language=cpp"
                 "&filename=bot.zip`. Your team's token in `Authorization`. The answer is "
                 "`201` with the program's id and the version's number, `building`: a "
                 "worker builds it, and `GET /api/programs/{id}` says how it went. "
                 "docs/programs.md has the languages and the rules of archives."),
             openapi_extra={"parameters": [BEARER], "requestBody": {
                 "required": True, "content": {"application/octet-stream": {
                     "schema": {"type": "string", "format": "binary"}}}}})
@cost(WRITE)
def hand_in(request: HttpRequest, game: str, language: str, filename: str = "main"):
    raw = request.read(SOURCE_LIMIT + 1)
    now = timezone.now()
    try:
        by, name = program_caller(request.headers.get("Authorization", ""))
        hand_ins_check(name, now)
        version = program_hand_in(game=game, name=name, language=language, filename=filename,
                                  data=raw, by=by, now=now)
    except ProgramError as error:
        return _refused(error)
    build_soon(version.pk)
    return Status(201, {"program": version.program_id, "version": version.number,
                        "status": version.status, "team": name, "game": game,
                        "show": f"/api/programs/{version.program_id}"})


@router.get("/{program_id}", response={200: dict[str, Any], 401: Error, 404: Error, 422: Error},
            summary="A program's versions and their build logs",
            description="To its team's token (and to the judges): each version, newest "
                        "first, with its status (`building`, `ready`, `failed`) and its "
                        "build's log.",
            openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def show(request: HttpRequest, program_id: int):
    program = Program.objects.filter(pk=program_id).first()
    judge = request.user.is_authenticated and request.user.has_perm("matches.judge")
    if program is None:
        return Status(404, {"error": "not_found", "detail": f"no program {program_id}"})
    if not judge:
        try:
            _, name = program_caller(request.headers.get("Authorization", ""))
        except ProgramError as error:
            return _refused(error)
        if name != program.name:
            return Status(404, {"error": "not_found", "detail": f"no program {program_id}"})
    return Status(200, program_shown(program))
