"""The Django admin: boards, matches, teams, submissions and turns, a match record's
import (the `importrecord` command's service, from an uploaded file), and tournaments
with their teams and fixtures. A fixture's result is the runner's or the judges' (the
tournament page's hand, `awardfixture`, `voidmatch`): here it is read, never typed."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone

from matches.forms import RecordImportForm
from matches.models import (
    Announcement,
    Board,
    Entrant,
    Fixture,
    Match,
    Question,
    Submission,
    Team,
    Tournament,
    Turn,
)
from matches.services.clock import clock_wake


@admin.register(Board)
class BoardAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "width", "height", "source", "created_at"]
    list_filter = ["game"]
    search_fields = ["name", "source"]


class TeamInline(admin.TabularInline):
    model = Team
    fields = ["index", "name"]
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "__str__", "game", "board", "start_at", "resolved_turns", "turns"]
    list_filter = ["game"]
    readonly_fields = ["resolved_turns", "result", "created_at"]
    inlines = [TeamInline]

    def save_model(self, request, obj, form, change):
        """A start or step length changed here moves the deadlines: the clocks, asleep
        until the old next one, wake to look again."""
        super().save_model(request, obj, form, change)
        clock_wake()

    def get_urls(self):
        view = self.admin_site.admin_view(self.import_record)
        return [path("import/", view, name="matches_match_import"), *super().get_urls()]

    def import_record(self, request):
        """Upload a record; a bad one is refused on the form and nothing is stored."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = RecordImportForm(request.POST or None, request.FILES or None)
        match = form.imported() if request.method == "POST" else None
        if match is not None:
            shown = "published" if match.published else "not published"
            self.message_user(request, f"Imported the record as match {match.pk} "
                                       f"({shown}).", messages.SUCCESS)
            return redirect("admin:matches_match_change", match.pk)
        return TemplateResponse(request, "admin/matches/match/import_record.html", {
            **self.admin_site.each_context(request), "opts": self.opts, "form": form,
            "title": "Import a match record"})


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "index", "match"]
    exclude = ["token_hash"]  # the token itself is never stored; its hash is of no use here


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["received_at", "match", "team", "turn", "status_code", "error", "counted"]
    list_filter = ["status_code", "counted", "match"]
    readonly_fields = [field.name for field in Submission._meta.fields]

    def has_add_permission(self, request):
        return False  # submissions arrive through the answer API only


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["match", "number", "resolved_at"]
    list_filter = ["match"]
    readonly_fields = [field.name for field in Turn._meta.fields]


class EntrantInline(admin.TabularInline):
    model = Entrant
    fields = ["index", "name", "short", "affiliation", "group", "bot"]
    readonly_fields = ["index", "group", "bot"]
    extra = 0
    can_delete = False  # a team leaves a tournament by forfeiting its fixtures (awardfixture)

    def has_add_permission(self, request, obj=None):
        return False  # teams come with the tournament (createtournament): each its token


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "game", "format", "start_at", "public", "finished_at"]
    list_filter = ["game", "format", "public"]
    search_fields = ["name"]
    readonly_fields = ["game", "format", "rounds", "double", "groups", "advance",
                       "games_per_fixture", "settings", "finished_at", "created_at",
                       "next_check_at"]
    inlines = [EntrantInline]

    def has_add_permission(self, request):
        return False  # made by createtournament, which prints each team's token once

    def save_model(self, request, obj, form, change):
        """A start, gap or visibility changed here: the runners look at it at once."""
        super().save_model(request, obj, form, change)
        Tournament.objects.filter(pk=obj.pk).update(next_check_at=timezone.now())
        clock_wake()


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ["id", "tournament", "round", "slot", "stage", "team_a", "team_b", "winner",
                    "decided_by", "finished_at"]
    list_filter = ["tournament", "stage", "decided_by"]
    readonly_fields = [field.name for field in Fixture._meta.fields]

    def has_add_permission(self, request):
        return False  # drawn by the runner


@admin.register(Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    """Read here; posted and taken down in the control room (whose service tells the
    screens)."""

    list_display = ["id", "text", "team", "entrant", "posted_at", "posted_by", "taken_down_at"]
    readonly_fields = [field.name for field in Announcement._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    """Read here; answered in the control room."""

    list_display = ["id", "asker", "text", "asked_at", "answered_at", "answered_by", "public"]
    list_filter = ["public"]
    readonly_fields = [field.name for field in Question._meta.fields]

    def has_add_permission(self, request):
        return False
