"""The board editors (judges; docs/boards.md): /control/boards/ lists each game's saved
boards, imports a file in its contest's format and exports each; the editor page
draws a board as the screens do and asks the game's rules about it at every change
(`preview`: the position before turn 1 and the rules' notes, or what is wrong), makes a
random one, and saves it under a name that every way of making a match accepts. The
game's tools are its front-end module's (`editor`); no game is named here."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from matches.admission import PAGE, WRITE, cost
from matches.boards.saved import (
    FILE_LIMIT,
    board_delete,
    board_from_file,
    board_publish,
    board_save,
    saved_board,
    saved_names,
    saved_path,
)
from matches.boards.specs import BoardError, board_preview, board_spec_fixed
from matches.rules import GAMES, rules_for
from matches.views.judges import judges_only

BODY_LIMIT = 512 * 1024  # a board's JSON from the editor: the largest is a few KiB


def edited_games() -> list[str]:
    """The games whose matches are played on a board of the organisers' choosing."""
    return [game for game in GAMES if board_spec_fixed(game) is None
            and _has_random(game)]


def _has_random(game: str) -> bool:
    try:
        rules_for(game).random_board(0)
    except ValueError:
        return False
    return True


def _game(game: str) -> str:
    if game not in edited_games():
        raise Http404("no board editor for this game")
    return game


@judges_only
@cost(PAGE)
def boards_page(request: HttpRequest) -> HttpResponse:
    games = [{"game": game, "title": gettext(rules_for(game).title),
              "saved": [(name, name in public) for name in saved_names(game)]}
             for game in edited_games() for public in [set(saved_names(game, public=True))]]
    return render(request, "matches/boards.html", {"games": games})


@judges_only
@cost(PAGE)
def board_editor(request: HttpRequest, game: str) -> HttpResponse:
    """The editor, on a saved board (`?name=`) or on a new random one."""
    game = _game(game)
    name = request.GET.get("name", "")
    try:
        board, hints = saved_board(game, name) if name else rules_for(game).random_board(None)
        shown = board_preview(game, board, hints.get("agents"))
    except BoardError as error:
        raise Http404(str(error)) from None
    return render(request, "matches/board_editor.html", {
        "game": game, "title": gettext(rules_for(game).title),
        "start": {"game": game, "name": name, "hints": {
            key: hints.get(key) for key in ("agents", "turns")}, **shown}})


def _body(request: HttpRequest) -> dict:
    raw = request.read(BODY_LIMIT + 1)
    if len(raw) > BODY_LIMIT:
        raise BoardError(f"at most {BODY_LIMIT // 1024} KiB")
    try:
        body = json.loads(raw or b"null")
    except (ValueError, RecursionError):
        raise BoardError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BoardError("expected a JSON object")
    return body


# What a board of the wrong shape raises where the rules did not say it in words.
NOT_A_BOARD = (BoardError, TypeError, KeyError, IndexError, AttributeError)


def _refused(error: Exception) -> JsonResponse:
    said = str(error) if isinstance(error, BoardError) else "not a board of this game"
    return JsonResponse({"error": said}, status=400)


def _agents(value) -> int | None:
    return value if type(value) is int and 0 < value <= 64 else None


@require_POST
@judges_only
@cost(WRITE)
def board_check(request: HttpRequest, game: str) -> JsonResponse:
    """The rules' word on a board being edited: `{board, state, notes}` or `{error}`."""
    game = _game(game)
    try:
        body = _body(request)
        return JsonResponse(board_preview(game, body.get("board"), _agents(body.get("agents"))))
    except NOT_A_BOARD as error:
        return _refused(error)


@require_GET
@judges_only
@cost(PAGE)
def board_random(request: HttpRequest, game: str) -> JsonResponse:
    """A board the rules generate (fair, within the official limits), `?seed=` to
    make the same again."""
    game = _game(game)
    seed = request.GET.get("seed", "")
    board, hints = rules_for(game).random_board(int(seed) if seed.isdigit() else None)
    return JsonResponse({**board_preview(game, board, hints.get("agents")),
                         "hints": {key: hints.get(key) for key in ("agents", "turns")}})


@require_POST
@judges_only
@cost(WRITE)
def board_keep(request: HttpRequest, game: str) -> JsonResponse:
    """Save the edited board under its name (replacing a saved one of that name)."""
    game = _game(game)
    try:
        body = _body(request)
        name = str(body.get("name", "")).strip()
        hints = {"agents": _agents(body.get("agents")),
                 "turns": body.get("turns") if type(body.get("turns")) is int else None}
        path = board_save(game, name, body.get("board"), hints)
    except NOT_A_BOARD as error:
        return _refused(error)
    return JsonResponse({"name": path.stem, "file": reverse("board-file", args=[game, path.stem])})


@require_GET
@judges_only
@cost(PAGE)
def board_export(request: HttpRequest, game: str, name: str) -> HttpResponse:
    """A saved board's file, as its contest's programs read it."""
    path = saved_path(_game(game), name)
    if path is None:
        raise Http404("no saved board of this name")
    response = HttpResponse(path.read_bytes(), content_type="application/octet-stream"
                            if path.suffix == ".map" else "application/json")
    response["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(path.name)}"
    return response


@require_POST
@judges_only
@cost(WRITE)
def board_remove(request: HttpRequest, game: str, name: str) -> HttpResponse:
    try:
        board_delete(_game(game), name)
    except BoardError as error:
        messages.error(request, gettext("Not done: %(why)s") % {"why": error})
    else:
        messages.success(request, gettext("Board %(name)s is deleted.") % {"name": name})
    return redirect(reverse("boards"))


@require_POST
@judges_only
@cost(WRITE)
def board_share(request: HttpRequest, game: str, name: str) -> HttpResponse:
    """Mark a saved board public (`public=1`: practice plays it, `GET /v1/boards` lists
    it) or the judges' alone again (`public=0`)."""
    public = request.POST.get("public") == "1"
    try:
        board_publish(_game(game), name, public)
    except BoardError as error:
        messages.error(request, gettext("Not done: %(why)s") % {"why": error})
    else:
        messages.success(request, (gettext("Board %(name)s is public.") if public else
                                   gettext("Board %(name)s is private.")) % {"name": name})
    return redirect(reverse("boards") + f"#game-{game}")


@require_POST
@judges_only
@cost(WRITE)
def board_import(request: HttpRequest) -> HttpResponse:
    """A board's file brought from elsewhere (the public boards' JSON, a Procon field,
    a CHaser map), checked and saved under its name or the one given."""
    game = request.POST.get("game", "")
    upload = request.FILES.get("file")
    try:
        if game not in edited_games():
            raise BoardError(gettext("choose a game"))
        if upload is None:
            raise BoardError(gettext("choose a file"))
        if upload.size > FILE_LIMIT:
            raise BoardError(f"{upload.size} bytes; a board's file is at most "
                             f"{FILE_LIMIT // 1024} KiB")
        board, hints = board_from_file(game, upload.read(FILE_LIMIT + 1), upload.name)
        name = request.POST.get("name", "").strip() or Path(upload.name).stem
        board_save(game, name, board, hints)
    except BoardError as error:
        messages.error(request, gettext("Not imported: %(why)s") % {"why": error})
    else:
        messages.success(request, gettext("Board %(name)s is saved.") % {"name": name})
    return redirect(reverse("boards"))
