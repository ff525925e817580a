"""What the judges say to the teams and the hall, and what teams ask them (README, "The
contest day"; docs/api.md, "Announcements and questions"): announcements, to everyone or
to one team, and questions with their answers, private or to everyone (a contest's
clarifications). A team is a match's (`team`) or a tournament's (`entrant`: it reaches
every match of that team); neither, for an announcement, is everyone."""

from __future__ import annotations

from django.db import models

TEXT_LIMIT = 1000  # characters of an announcement, a question or an answer


class Announcement(models.Model):
    text = models.TextField()
    team = models.ForeignKey("matches.Team", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="announcements")
    entrant = models.ForeignKey("matches.Entrant", null=True, blank=True,
                                on_delete=models.CASCADE, related_name="announcements")
    posted_at = models.DateTimeField()
    posted_by = models.CharField(max_length=150)
    taken_down_at = models.DateTimeField(null=True, blank=True)
    taken_down_by = models.CharField(max_length=150, blank=True, default="")

    class Meta:
        ordering = ["-posted_at", "-pk"]

    def __str__(self) -> str:
        return f"announcement {self.pk}: {self.text[:40]}"

    @property
    def to_everyone(self) -> bool:
        return self.team_id is None and self.entrant_id is None

    @property
    def audience(self) -> str:
        """The name of the team it is for ("" for everyone)."""
        holder = self.team or self.entrant
        return holder.name if holder is not None else ""


class Question(models.Model):
    team = models.ForeignKey("matches.Team", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="questions")
    entrant = models.ForeignKey("matches.Entrant", null=True, blank=True,
                                on_delete=models.CASCADE, related_name="questions")
    asker = models.CharField(max_length=100, help_text="The team's name when it asked.")
    text = models.TextField()
    asked_at = models.DateTimeField()
    remote_addr = models.GenericIPAddressField(null=True, blank=True)
    answer = models.TextField(blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.CharField(max_length=150, blank=True, default="")
    public = models.BooleanField(default=False, help_text="Answered to everyone.")

    class Meta:
        ordering = ["-asked_at", "-pk"]
        indexes = [models.Index(fields=["answered_at"], name="question_open")]

    def __str__(self) -> str:
        return f"question {self.pk} from {self.asker}"
