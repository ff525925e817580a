"""Hosted programs (docs/programs.md): a team's program for a game and its versions,
each handed in once and built once in the sandbox. The files live in the database, so
that any worker machine can play a version without a shared disk."""

from __future__ import annotations

from django.db import models

from matches.rules import GAME_CHOICES


class Program(models.Model):
    """A team's program for one game (the judges may hand one in under any team's name,
    an entrant's handed-in program say): its versions, latest last."""

    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    name = models.CharField(max_length=100, help_text="The team's name.")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="program_once")]

    def __str__(self) -> str:
        return f"{self.name}'s {self.game} program"


class ProgramVersion(models.Model):
    """One handed-in version of a program: its files as handed in, and what its build
    made of them (the build's log, and the built folder to play). Never changed once
    built."""

    BUILDING, READY, FAILED = "building", "ready", "failed"
    STATES = [(BUILDING, "building"), (READY, "ready"), (FAILED, "failed")]

    program = models.ForeignKey(Program, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1 for a program's first version.")
    language = models.CharField(max_length=20)
    filename = models.CharField(max_length=255, help_text="The name it was handed in under.")
    source = models.BinaryField(help_text="The file or archive as handed in.")
    sha256 = models.CharField(max_length=64)
    handed_in_at = models.DateTimeField()
    handed_in_by = models.CharField(max_length=100, help_text='"team:<token digest>" or '
                                                              '"judge:<user name>".')
    status = models.CharField(max_length=10, choices=STATES, default=BUILDING)
    build_log = models.TextField(blank=True, default="")
    built = models.BinaryField(null=True, blank=True,
                               help_text="The built folder (a tar.gz), to play.")
    built_at = models.DateTimeField(null=True, blank=True)
    build_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["program_id", "number"]
        constraints = [models.UniqueConstraint(fields=["program", "number"],
                                               name="program_version_once")]

    def __str__(self) -> str:
        return f"{self.program} v{self.number} ({self.status})"


class HostedRun(models.Model):
    """One hosted program's play of one team of one match (docs/programs.md, "Hosted
    play"): made with the match, taken by the first worker that gets its job (a job
    delivered twice finds it taken and plays nothing), ended with how it ended."""

    QUEUED, PLAYING, DONE = "queued", "playing", "done"
    STATES = [(QUEUED, "queued"), (PLAYING, "playing"), (DONE, "done")]

    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE,
                              related_name="hosted_runs")
    team_index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(ProgramVersion, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(max_length=10, choices=STATES, default=QUEUED)
    worker = models.CharField(max_length=200, blank=True, default="")
    started_at = models.DateTimeField(null=True, blank=True)
    # Moved on by its worker while it plays: a run whose worker stopped stops moving it,
    # and its match is void (matches/hosted/watch.py).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.CharField(max_length=200, blank=True, default="",
                                help_text='How the run ended: "match over", "exited (exit 1)", …')

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "team_index"],
                                               name="hosted_run_once")]
        # The clock's look for lost workers (hosted/watch.py): the runs playing only.
        indexes = [models.Index(fields=["heartbeat_at"], name="hosted_run_playing",
                                condition=models.Q(status="playing"))]

    def __str__(self) -> str:
        return f"{self.version} in match {self.match_id} ({self.status})"
