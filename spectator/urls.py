from django.contrib import admin
from django.urls import include, path

from matches import audit_views, views
from matches.api import api

urlpatterns = [
    path("", views.index, name="index"),
    path("matches/", views.published, name="published"),
    path("matches/<int:match_id>/", views.match_screen, name="match"),
    path("matches/<int:match_id>/scores.csv", views.scores_csv, name="scores-csv"),
    path("matches/<int:match_id>/board.png", views.board_png, name="board-png"),
    path("matches/<int:match_id>/replay", views.match_replay, name="replay"),
    path("matches/<int:match_id>/audit", audit_views.audit, name="audit"),
    path("matches/<int:match_id>/audit/enter", audit_views.enter, name="audit-enter"),
    path("matches/<int:match_id>/audit/publish", audit_views.publish, name="audit-publish"),
    path("matches/<int:match_id>/audit/submissions.<str:kind>", audit_views.export,
         name="audit-export"),
    path("screens/", views.screens, name="screens"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
]
