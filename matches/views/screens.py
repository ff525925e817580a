"""The TV (one screen that follows the public matches all day) and the embedded board."""

from __future__ import annotations

import re

import qrcode
import qrcode.image.svg
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from matches import selectors
from matches.access import as_seen, public_filter
from matches.admission import PAGE, cost
from matches.caches import Kept
from matches.models import Match, Tournament
from matches.rules import rules_for
from matches.tournaments.table import tournament_data
from matches.views.pages import asked_turn, game_words, turn_refused, visible_match_or_404


@require_GET
@cost(PAGE)
def tv(request: HttpRequest) -> HttpResponse:
    """The TV: its script asks `tv_now` what to show and switches by itself."""
    return render(request, "matches/tv.html", {"games": game_words()})


@require_GET
@cost(PAGE)
def tv_now(request: HttpRequest) -> JsonResponse:
    """The featured match, and how the one the TV shows (?current=ID) stands: its status
    and its end in plain words, or null once it is not public any more."""
    now = timezone.now()
    following = request.GET.get("tournament", "")
    followed = int(following) if re.fullmatch(r"[0-9]{1,18}", following) else None
    chosen = selectors.featured_match(now, followed)
    current = None
    asked = request.GET.get("current", "")
    if re.fullmatch(r"[0-9]{1,18}", asked):
        shown = Match.objects.filter(public_filter(), pk=int(asked)).first()
        if shown is not None:
            shown = as_seen(request.user, shown)  # a screen in the hall: behind its delay
            scores = selectors.latest_scores(shown)
            current = {"id": shown.pk, "status": shown.status(now),
                       "verdict": selectors.verdict(shown, scores),
                       "verdicts": selectors.verdicts(shown, scores),
                       # the turn the TV replays while the result stands
                       "swing": _swing(shown) if shown.over else None}
    return JsonResponse({"server_time": selectors.epoch_ms(now), "current": current,
                         "featured": chosen and _line(chosen, now),
                         "tournament_end": _tournament_end(followed, now)
                         if chosen is None and followed is not None else None})


STANDINGS_SHOWN = 8  # the TV's table of a tournament over: its first places


def _tournament_end(tournament_id: int, now) -> dict | None:
    """A followed tournament once it is over (to the public: behind its spectator
    delay), for the TV to show instead of "No match on": its name, its champion (None
    where the first place is shared) and its first places."""
    tournament = Tournament.objects.filter(pk=tournament_id, public=True).first()
    if tournament is None:
        return None
    data = tournament_data(tournament, now, public=True)
    if data["status"] != Tournament.FINISHED:
        return None
    names = {team["index"]: team["name"] for team in data["teams"]}
    rows = data["standings"]
    first = [row for row in rows if row["rank"] == 1]
    return {"name": tournament.name,
            "champion": names[first[0]["team"]] if len(first) == 1 else None,
            "standings": [{"rank": row["rank"], "name": names[row["team"]],
                           "score": row["score"]} for row in rows[:STANDINGS_SHOWN]]}


def _swing(match: Match) -> dict | None:
    """The turn that moved the score difference most, with who gained it by name."""
    swing = selectors.biggest_swing(match)
    if swing is None:
        return None
    names = [team.name for team in match.teams.all()]
    return {**swing, "name": names[swing["team"]]}


@require_GET
@cost(PAGE)
def replay_code(request: HttpRequest, match_id: int) -> HttpResponse:
    """A QR code (SVG) of the address of the replay at ?turn=N, for a phone in the hall
    to open the turn the TV shows; drawn here, with no network."""
    match = visible_match_or_404(request, match_id)
    latest = selectors.stored_turns(match).count()
    turn = asked_turn(request, latest)
    if turn is None:
        return turn_refused(latest)
    address = request.build_absolute_uri(reverse("replay", args=[match.pk]))
    response = HttpResponse(_code_svg(f"{address}?turn={turn}"), content_type="image/svg+xml")
    response["Cache-Control"] = "max-age=3600"
    return response


QR_CODES = Kept("QR codes", entries=512, limit=8 << 20)


def _code_svg(text: str) -> str:
    """The SVG of a QR code, drawn once a text (some 10 ms of pure Python each): a TV's
    codes, asked again by every phone in the hall, and a flood of one turn's, cost a
    lookup; the 512 kept are a few MB at most."""
    return QR_CODES.get(text, lambda: qrcode.make(
        text, border=2, image_factory=qrcode.image.svg.SvgPathImage).to_string(
        encoding="unicode"))


def _line(match: Match, now) -> dict:
    """The featured match: what the TV's idle card says of it, and where it stands in a
    tournament (`tournament`: its name and round, else None)."""
    fixture = match.fixture
    return {"id": match.pk, "game": match.game, "title": str(match), "status": match.status(now),
            "start_at": selectors.epoch_ms(match.start_at), "turns": match.turns,
            "teams": [team.name for team in match.teams.all()],
            "tournament": fixture and {"name": fixture.tournament.name, "round": fixture.round}}


@xframe_options_exempt  # the one page other sites may frame
@require_GET
@cost(PAGE)
def match_embed(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board, the names and the scores only, sized to the frame: live, or after turn
    ?turn=N. Seen by whoever may see the venue screen."""
    match = visible_match_or_404(request, match_id)
    fixed = None
    if request.GET.get("turn", "").strip():
        latest = selectors.stored_turns(match).count()  # resolved turns only
        turn = asked_turn(request, latest)
        if turn is None:
            return turn_refused(latest)
        shown = selectors.drawing_states(match, turn)
        rules = rules_for(match.game)
        extras = ({} if match.board_hidden(timezone.now())
                  else rules.drawing_extras(match.board.data, shown))
        fixed = {"match": selectors.match_meta(match), "state": shown[-1],
                 # what the turn did on the board, as every screen marks it
                 "last": rules.last_turn(shown[-1], shown[-2] if len(shown) > 1 else None),
                 # the last turn of a match over: its result decides who won
                 "lead": rules.lead(shown[-1]["scores"],
                                    match.result if turn == match.resolved_turns else None),
                 **extras}
    return render(request, "matches/embed.html",
                  {"match": match, "teams": list(match.teams.all()), "fixed": fixed})
