from django.contrib import admin
from django.urls import path

from matches import views
from matches.api import api

urlpatterns = [
    path("", views.index, name="index"),
    path("matches/<int:match_id>/", views.match_screen, name="match"),
    path("screens/", views.screens, name="screens"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
]
