from django.contrib import admin

from matches.models import Board, Match, Submission, Team, Turn


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
