"""A contest's tournaments: their teams (entrants, one token each for every match they
play), and their fixtures (two entrants, one to three matches, a result).

These are models of the `matches` app, beside the others in `matches/models/`: a fixture's
matches are ordinary matches that point to it (`Match.fixture`), and each match team
points to its entrant (`Team.entrant`), whose one token serves them all.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy

from matches.rules import GAME_CHOICES, rules_for


class Tournament(models.Model):
    ROUND_ROBIN, KNOCKOUT, SWISS, GROUPS = "round-robin", "knockout", "swiss", "groups"
    FORMATS = [(ROUND_ROBIN, gettext_lazy("round robin")), (KNOCKOUT, gettext_lazy("knockout")),
               (SWISS, gettext_lazy("Swiss")), (GROUPS, gettext_lazy("groups, then knockout"))]
    UPCOMING, RUNNING, FINISHED = "upcoming", "running", "finished"

    name = models.CharField(max_length=200)
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    format = models.CharField(max_length=20, choices=FORMATS)
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss: the rounds to play.")
    double = models.BooleanField(default=False, help_text="Round robin: every pair twice.")
    groups = models.PositiveSmallIntegerField(default=0, help_text="Groups: how many.")
    advance = models.PositiveSmallIntegerField(
        default=2, help_text="Groups: the teams of each group that go on to the knockout.")
    games_per_fixture = models.PositiveSmallIntegerField(default=1)
    # How each match is made: boards (names, cycled), turns, strategy_seconds,
    # transition_seconds, clock_seconds, between_seconds, start_in_seconds.
    settings = models.JSONField(default=dict, blank=True)
    start_at = models.DateTimeField(help_text="When the first round opens.")
    gap_seconds = models.FloatField(default=30.0, help_text="Between a round's end and the next.")
    parallel = models.PositiveSmallIntegerField(
        default=0, help_text="Matches at once at most (0: no cap).")
    bots = models.BooleanField(default=False, help_text="Built-in bots play every team.")
    public = models.BooleanField(default=False, help_text="Everyone may watch it live.")
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the clock's runner looks at it next: its start, a round's opening, now when
    # one of its matches ended or a judge acted (matches/tournaments/runner.py).
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-start_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def matches_per_fixture(self) -> int:
        """The matches a fixture is played over: one where the game's own match has
        several games (Procon 2020's two), else one a game (the sides swapped)."""
        return 1 if rules_for(self.game).games_per_match > 1 \
            else self.games_per_fixture

    def status(self, now) -> str:
        if self.finished_at is not None:
            return self.FINISHED
        return self.UPCOMING if now < self.start_at else self.RUNNING


class Entrant(models.Model):
    """A team of a tournament: one token (its SHA-256 stored) for all its matches."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="entrants")
    index = models.PositiveSmallIntegerField(help_text="Its seed: 0 the first.")
    name = models.CharField(max_length=100)
    short = models.CharField(max_length=4, blank=True, default="")
    affiliation = models.CharField(max_length=200, blank=True, default="")
    token_hash = models.CharField(max_length=64, unique=True)
    group = models.PositiveSmallIntegerField(null=True, blank=True)
    bot = models.CharField(max_length=20, blank=True, default="",
                           help_text="The built-in bot that plays it, if any.")
    # The hosted program that plays it, if any: its latest built version when each of
    # its matches is made (docs/programs.md, "Tournaments of programs").
    program = models.ForeignKey("matches.Program", null=True, blank=True,
                                on_delete=models.PROTECT, related_name="entrants")

    class Meta:
        ordering = ["tournament_id", "index"]
        constraints = [models.UniqueConstraint(fields=["tournament", "index"],
                                               name="one_entrant_per_seed")]

    def __str__(self) -> str:
        return self.name


class Fixture(models.Model):
    """Two entrants (`teams`: seeds; the second None for a bye) meeting in a round: one
    match or several (a fixture of several games, a replay), and its result."""

    GROUP, KNOCKOUT, THIRD = "group", "knockout", "third"
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="fixtures")
    round = models.PositiveSmallIntegerField()
    slot = models.PositiveSmallIntegerField(help_text="Its place in the round (bracket order).")
    stage = models.CharField(max_length=10, blank=True, default="",
                             help_text="group, knockout or third (the third-place match).")
    group = models.PositiveSmallIntegerField(null=True, blank=True)
    team_a = models.PositiveSmallIntegerField()
    team_b = models.PositiveSmallIntegerField(null=True, blank=True)
    planned = models.PositiveSmallIntegerField(
        default=1, help_text="Its matches: the games per fixture, and any replay.")
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Each team's points over the fixture's games ({"total", "wall", ..., "games"}).
    points = models.JSONField(default=list, blank=True)
    decided_by = models.CharField(max_length=10, blank=True, default="",
                                  help_text="games, bye or judge.")
    # A game played over its own protocol (CHaser): when its server took the fixture to
    # play it (matches/protocol_servers/), so that no other server takes it too.
    claimed_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["tournament_id", "round", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round", "slot"],
                                    name="one_fixture_per_slot"),
            models.CheckConstraint(condition=Q(team_b__isnull=True) | ~Q(team_a=F("team_b")),
                                   name="two_different_teams"),
        ]

    def __str__(self) -> str:
        return f"round {self.round}: {self.team_a} vs {self.team_b}"

    @property
    def teams(self) -> tuple[int, int | None]:
        return (self.team_a, self.team_b)

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def bye(self) -> bool:
        return self.team_b is None
