"""/practice/: start a practice match in the browser, as `POST /api/practice` does (the
same service), and see the practice matches under way."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy

from matches import selectors
from matches.admission import PAGE, cost
from matches.models import Match
from matches.services import practice
from matches.services.boards import boards_offered
from matches.views.pages import game_words

# What the page says of a refusal, in the page's language (the API's detail stays English).
REFUSALS = {
    "practice_off": gettext_lazy("This server offers no practice matches."),
    "unauthorized": gettext_lazy("That token is no team's here. Leave it out to play as a "
                                 "guest, where guests may practise."),
    "bad_game": gettext_lazy("Choose one of the games offered."),
    "bad_opponent": gettext_lazy("Choose an opponent."),
    "bad_board": gettext_lazy("That board cannot be played in this game."),
    "bad_turns": gettext_lazy("Turns: a whole number from 1 to 200 (none for Blokus Duo, "
                              "which is played to its end)."),
    "bad_strategy_seconds": gettext_lazy("Seconds a turn: from 0.5 to 60 (none for Blokus "
                                         "Duo, which is played on chess clocks)."),
    "bad_name": gettext_lazy("Your name: 1 to 40 characters, not a built-in player's nor a "
                             "registered team's."),
    "practice_full": gettext_lazy("All the server's practice matches are in use; try again "
                                  "when one has ended."),
    "too_many_practice_matches": gettext_lazy("You have as many practice matches under way "
                                              "as you may; wait until one has ended."),
}
LADDER_ROWS = 25  # of each game's ladder on the page (the levels among them)
OPPONENTS = [
    ("level-1", gettext_lazy("Level 1 — random legal moves")),
    ("level-2", gettext_lazy("Level 2 — greedy")),
    ("level-3", gettext_lazy("Level 3 — tactical")),
    ("level-4", gettext_lazy("Level 4 — the strongest")),
    ("anyone", gettext_lazy("Whoever comes next")),
    ("none", gettext_lazy("Nobody (the other side never moves)")),
]


@cost(PAGE)
def practice_page(request: HttpRequest) -> HttpResponse:
    setting = practice.practice_setting()
    started, refusal, asked = None, None, {}
    if request.method == "POST" and setting != "off":
        asked = {key: request.POST.get(key, "").strip() for key in
                 ("game", "opponent", "board", "turns", "strategy_seconds", "name", "token",
                  "second")}
        try:
            started = _start(request, asked)
        except practice.PracticeError as error:
            refusal = REFUSALS.get(error.code) or error.detail
    games = [(game, words["title"]) for game, words in game_words().items()
             if game in practice.playable_games()]
    boards = {game: boards_offered(game) for game, _ in games}
    running = (Match.objects.unfinished().exclude(practice_by="").filter(first_game=None)
               .order_by("-created_at").prefetch_related("teams")[:20])
    ladders = [(game, words["title"], selectors.practice_ladder(game, limit=LADDER_ROWS))
               for game, words in game_words().items()
               if game in practice.rated_games()] if setting != "off" else []
    served_elsewhere = [words["title"] for game, words in game_words().items()
                        if game in practice.rated_games() and game not in practice.playable_games()]
    return render(request, "matches/practice.html", {
        "ladders": ladders, "served_elsewhere": served_elsewhere,
        "setting": setting, "games": games, "boards": boards, "opponents": OPPONENTS,
        "started": started, "letter": "AB"[started.team] if started else "",
        "refusal": refusal, "asked": asked, "running": running,
        "now": timezone.now(), "status": 400 if refusal else 200},
        status=400 if refusal else 201 if started else 200)


def _start(request: HttpRequest, asked: dict[str, str]) -> practice.Started:
    token = asked["token"]
    by, team_name = practice.practice_caller(f"Bearer {token}" if token else "",
                                             request.META.get("REMOTE_ADDR"))

    def number(text: str, kind=float):
        if not text:
            return None
        try:
            return kind(text)
        except ValueError:
            return text  # refused by the service in its words

    ask = practice.Ask(
        game=asked["game"], opponent=asked["opponent"],
        board=asked["board"] or None, turns=number(asked["turns"], int),
        strategy_seconds=number(asked["strategy_seconds"]), name=asked["name"] or None,
        first=False if asked["second"] else None)
    return practice.practice_start(ask, by, team_name, timezone.now())
