from django.contrib import admin
from django.urls import include, path
from django.views.decorators.http import require_GET
from django.views.i18n import JavaScriptCatalog

import matches.converters  # noqa: F401 (the `match` path converter)
from matches import dialects
from matches.admission import PAGE, cost, declared_cost
from matches.api import api
from matches.dialects import kakomimasu_v1
from matches.live.streams import list_stream_view
from matches.views import (
    boards,
    control,
    judges,
    notices,
    operations,
    pages,
    practice,
    programs,
    screens,
    tournaments,
)

API_URLS = api.urls  # (made anew at each reading: read once, so that what is declared holds)
for _pattern in API_URLS[0]:  # the API's own documents: its OpenAPI schema, its pages
    if declared_cost(_pattern.callback, "GET") is None:
        cost(PAGE)(_pattern.callback)

urlpatterns = [
    path("", pages.index, name="index"),
    path("healthz", operations.healthz, name="healthz"),  # README, "Operations"
    path("control/", control.control_room, name="control"),
    path("questions/", notices.questions_page, name="questions"),
    path("control/new-match", control.control_new_match, name="control-new-match"),
    path("control/new-tournament", control.control_new_tournament,
         name="control-new-tournament"),
    path("control/matches/<match:match_id>/<str:action>", control.control_act, name="control-act"),
    path("control/teams/<match:team_id>/token", control.control_token, name="control-token"),
    path("control/announce", control.control_announce, name="control-announce"),
    path("control/programs/", programs.control_programs, name="control-programs"),
    path("control/programs/scrimmage", programs.control_programs_scrimmage,
         name="control-programs-scrimmage"),
    path("control/boards/", boards.boards_page, name="boards"),
    path("control/boards/import", boards.board_import, name="board-import"),
    path("control/boards/<str:game>/edit", boards.board_editor, name="board-editor"),
    path("control/boards/<str:game>/check", boards.board_check, name="board-check"),
    path("control/boards/<str:game>/random", boards.board_random, name="board-random"),
    path("control/boards/<str:game>/save", boards.board_keep, name="board-save"),
    path("control/boards/<str:game>/<str:name>/file", boards.board_export, name="board-file"),
    path("control/boards/<str:game>/<str:name>/delete", boards.board_remove,
         name="board-delete"),
    path("control/boards/<str:game>/<str:name>/public", boards.board_share,
         name="board-public"),
    path("control/announcements/<match:announcement_id>/down", control.control_take_down,
         name="control-take-down"),
    path("control/questions/<match:question_id>/answer", control.control_answer,
         name="control-answer"),
    path("metrics", operations.metrics_view, name="metrics"),
    path("matches/", pages.published, name="published"),
    path("matches/<match:match_id>/", pages.match_screen, name="match"),
    path("matches/<match:match_id>/scores.csv", pages.scores_csv, name="scores-csv"),
    path("matches/<match:match_id>/board.png", pages.board_png, name="board-png"),
    path("matches/<match:match_id>/replay.gif", pages.replay_gif, name="replay-gif"),
    path("matches/<match:match_id>/replay", pages.match_replay, name="replay"),
    path("matches/<match:match_id>/team", pages.team_sign_in, name="team-sign-in"),
    path("matches/<match:match_id>/play", pages.match_play, name="play"),
    path("matches/<match:match_id>/report", pages.match_report, name="report"),
    path("matches/<match:match_id>/audit", judges.audit, name="audit"),
    path("matches/<match:match_id>/audit/enter", judges.enter, name="audit-enter"),
    path("matches/<match:match_id>/audit/publish", judges.publish, name="audit-publish"),
    path("matches/<match:match_id>/audit/submissions.<str:kind>", judges.export,
         name="audit-export"),
    path("judges/import", judges.import_record, name="judges-import"),
    path("tournaments/", tournaments.tournament_list, name="tournaments"),
    path("tournaments/<match:tournament_id>/", tournaments.tournament_page, name="tournament"),
    path("tournaments/<match:tournament_id>/standings.csv", tournaments.standings_csv,
         name="tournament-standings-csv"),
    path("tournaments/<match:tournament_id>/records.zip", tournaments.records_zip,
         name="tournament-records"),
    path("tournaments/<match:tournament_id>/publish", tournaments.tournament_publish_all,
         name="tournament-publish"),
    path("tournaments/<match:tournament_id>/fixtures/<match:fixture_id>", tournaments.fixture_hand,
         name="tournament-fixture"),
    path("practice/", practice.practice_page, name="practice"),
    path("programs/", programs.programs_page, name="programs"),
    path("programs/hand-in", programs.programs_hand_in, name="programs-hand-in"),
    path("programs/scrimmage", programs.programs_scrimmage, name="programs-scrimmage"),
    path("programs/sign-out", programs.programs_sign_out, name="programs-sign-out"),
    path("screens/", pages.screens, name="screens"),
    path("tv/", screens.tv, name="tv"),
    path("tv/now", screens.tv_now, name="tv-now"),
    path("matches/<match:match_id>/embed", screens.match_embed, name="embed"),
    path("matches/<match:match_id>/replay.svg", screens.replay_code, name="replay-code"),
    path("accounts/login/", cost(PAGE)(judges.JudgeLogin.as_view()), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    # the scripts' words in the page's language (gettext, ngettext, interpolate)
    path("jsi18n/", cost(PAGE)(JavaScriptCatalog.as_view(packages=["matches"])),
         name="javascript-catalog"),
    path("api/", API_URLS),
    # other servers' APIs that teams' programs speak; the Kakomimasu v1 event stream, the
    # live layer's stream over the dialect's window (its query language and its Games)
    path("v1/matches/stream", require_GET(list_stream_view(kakomimasu_v1.stream_window))),
    *dialects.urlpatterns(),
]

# What the routes included from elsewhere cost (matches/admission.py, "what a route
# costs"): Django's sign-in and admin pages, by the start of their routes.
INCLUDED_COSTS = {"accounts/": PAGE, "admin/": PAGE}

# The project's own error pages, in the screens' style (with DEBUG on, Django's instead).
handler400 = pages.bad_request
handler403 = pages.permission_denied
handler404 = pages.not_found
handler500 = pages.server_error
