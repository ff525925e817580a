"""The practice ladder as it stands (docs/api.md, "Practice"): one row for each built-in
level and each team rated in a game, moved when one of the game's practice games ends
(matches/services/ladder.py), and the games already rated, so that none counts twice.
Reading the ladder is reading a page of these rows (matches/selectors/ladder.py)."""

from __future__ import annotations

from django.db import models

from matches.rules import GAME_CHOICES


class LadderStanding(models.Model):
    """Where a level or a team stands in one game's ladder: its OpenSkill rating (μ, σ,
    and `rating`, the estimate μ the ladder is ordered by; a team whose σ is still large
    is shown as provisional), its results, and its latest games."""

    LEVEL, TEAM = "level", "team"

    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    kind = models.CharField(max_length=5, choices=[(LEVEL, "level"), (TEAM, "team")])
    # A team's name (teams are rated by name), or "Level N" for a built-in level.
    name = models.CharField(max_length=100)
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField(help_text="The estimate μ, by which the ladder is ordered.")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    recent = models.JSONField(default=list, help_text="The latest games' match ids, latest first.")
    # When the last of its games is taken down (a guest's are, after some hours), it goes
    # with them; None: it has a game that is kept (a level, a team's match).
    expires_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "kind", "name"],
                                               name="ladder_standing_once")]
        indexes = [models.Index(fields=["game", "-rating", "id"], name="ladder_by_rating")]

    def __str__(self) -> str:
        return f"{self.game} ladder: {self.name} {self.rating:.1f}"

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


class LadderGame(models.Model):
    """A practice game the ladder has rated (once: a second end of the same game, a
    message told twice, rates nobody again)."""

    match = models.OneToOneField("matches.Match", primary_key=True, on_delete=models.CASCADE,
                                 related_name="+")
    rated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"rated match {self.match_id}"
