"""Boards, matches, teams, every request a team sent, and resolved turns.

The counted submissions of a match, turn by turn, are its match-record/1 actions;
the Turn rows are what the rules made of them (and can always be recomputed).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.db import models
from django.db.models import F, Q

from matches.rules import GAME_CHOICES, rules_for
from matches.rules.turns import is_protocol_played


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A team's secret bearer token: 32 URL-safe characters, never starting with "-"
    (a command line would take such a token for an option: `playprogram --token -x…`)."""
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token


class Board(models.Model):
    name = models.CharField(max_length=100, unique=True)
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    data = models.JSONField(help_text="The match-record/1 board object (points and extras).")
    source = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.width}×{self.height})"


# The largest id a row can have (a 64-bit key): a match id beyond it, as a request may
# name one, names no match, and is never handed to the database (which cannot hold it).
MAX_ID = 2**63 - 1


def storable_id(number: int) -> bool:
    return 0 < number <= MAX_ID


class MatchQuerySet(models.QuerySet):
    def finished(self):
        return self.filter(Q(resolved_turns__gte=F("turns")) | Q(ended_early=True))

    def unfinished(self):
        return self.filter(resolved_turns__lt=F("turns"), ended_early=False)

    def running(self, now: datetime):
        return self.unfinished().filter(start_at__lte=now)

    def upcoming(self, now: datetime):
        return self.unfinished().filter(start_at__gt=now)


class Match(models.Model):
    UPCOMING, RUNNING, FINISHED = "upcoming", "running", "finished"

    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    title = models.TextField(blank=True)  # records' titles may be long descriptions
    # A title the server made (a tournament's round, a later game), in parts, so that it
    # is said in each reader's language (matches/models/titles.py); `title` keeps it in English
    # for the records and exports. Empty: `title` is the organiser's own words.
    title_parts = models.JSONField(default=dict, blank=True)
    board = models.ForeignKey(Board, on_delete=models.PROTECT, related_name="matches")
    agents = models.PositiveSmallIntegerField()
    turns = models.PositiveSmallIntegerField()
    strategy_ms = models.PositiveIntegerField(help_text="Length of each strategy step.")
    transition_ms = models.PositiveIntegerField(help_text="Length of each transition step.")
    start_at = models.DateTimeField(help_text="When the strategy step of turn 1 opens.")
    # A match of several games (Procon 2020's two, CHaser's best of three): each later
    # game points to the first, whose teams' tokens serve it too; its board may be secret
    # until it starts. `match_games` is how many games the match has at most (every game
    # says it); a match of wins may end before its last game.
    first_game = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="later_games")
    match_games = models.PositiveSmallIntegerField(
        default=1, help_text="Games in the match this game belongs to (at most).")
    secret_board = models.BooleanField(
        default=False, help_text="Nothing of its board is shown to anyone before its start.")
    # Alternating games (matches/rules/turns.py): each team's thinking time for the
    # game; their strategy and transition lengths are 0. None for simultaneous games.
    clock_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="Each team's thinking time (alternating games).")
    # The version of the match: turns 1..resolved_turns are stored. The clock claims
    # turn n with filter(resolved_turns=n - 1).update(resolved_turns=n).
    resolved_turns = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    # It ended before its last turn: no turn after the stored ones will be played (the
    # game was decided early, a team ran out of time or broke the protocol, the judges
    # voided it, or it is an imported record that stops there). `over` says whether it
    # has ended, whichever way.
    ended_early = models.BooleanField(default=False)
    # Who may see it: judges and its own teams always; everyone once it is published
    # (finished), or while it runs if the organiser made it public live.
    published = models.BooleanField(default=False)
    public_live = models.BooleanField(default=False, help_text="Everyone may watch it live.")
    debug_public = models.BooleanField(
        default=False, help_text="Published with its teams' debug output (a judge's choice).")
    # The spectator delay (docs/live-protocol.md, "The spectator delay"): everyone but
    # the judges and the match's own teams sees it this many seconds behind
    # (matches/access/delay.py).
    delay_s = models.PositiveIntegerField(
        default=0, help_text="Seconds the public sees the match behind (0: live).")
    # When it ended (its last turn, a time-out, a void; None: not over, or from before
    # this was kept): the public sees its end a delay after it.
    ended_at = models.DateTimeField(null=True, blank=True)
    # From when the public may know of it (None: from its making): a match made with a
    # spectator delay (a tournament's next round, say) comes to them that much later.
    public_from = models.DateTimeField(null=True, blank=True)
    # The tournament fixture it is played for, if any (matches/models/tournaments.py).
    fixture = models.ForeignKey("matches.Fixture", null=True, blank=True,
                                on_delete=models.SET_NULL, related_name="matches")
    # A practice match a team or guest started itself (POST /api/practice): who asked
    # ("address:<ip>" or "team:<token digest>", for the caps), and, for a guest's, when it
    # is taken down. Practice counts in no tournament.
    practice_by = models.CharField(max_length=80, blank=True, default="")
    expires_at = models.DateTimeField(null=True, blank=True)
    # The judges' hand (matches/services/control.py): since when the match is paused
    # (None: it runs) and why; the thinking time each turn of an alternating game was
    # credited ({"turn": ms}: a pause, an extension); every action of theirs, in order.
    paused_at = models.DateTimeField(null=True, blank=True)
    pause_reason = models.CharField(max_length=200, blank=True, default="")
    credits = models.JSONField(default=dict, blank=True)
    control_log = models.JSONField(default=list, blank=True)
    # Fast play (a hosted scrimmage's, where nobody watches: docs/programs.md): a timed
    # turn's strategy step closes as soon as every team has answered it, its transition
    # and the next turn following at once (a "close" entry of the control log each).
    fast_play = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MatchQuerySet.as_manager()

    # How far behind this instance shows the match: a delayed copy's (access/delay.py)
    # times are shifted by it; a match read from the database is live.
    shown_late = timedelta(0)

    class Meta:
        ordering = ["-start_at", "-id"]
        verbose_name_plural = "matches"
        permissions = [("judge", "Can audit matches, enter actions offline and publish")]
        indexes = [
            models.Index(fields=["start_at"]),
            # What the clock reads at every tick (unfinished(), running()): only the
            # matches not yet over, however long the history of finished ones.
            models.Index(fields=["start_at"], name="match_unfinished_start",
                         condition=Q(ended_early=False, resolved_turns__lt=F("turns"))),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(resolved_turns__lte=F("turns")),
                                   name="resolved_turns_within_turns"),
        ]

    def __str__(self) -> str:
        from matches.models.titles import shown_title

        return shown_title(self)

    def board_hidden(self, now: datetime) -> bool:
        """Its board is secret and its first strategy step has not opened yet."""
        return self.secret_board and now < self.start_at

    @property
    def alternating(self) -> bool:
        """The teams move in turn, each on its chess clock (matches/rules/turns.py);
        otherwise both act in every turn's strategy step, which closes at a deadline."""
        return self.clock_ms is not None

    @property
    def protocol_played(self) -> bool:
        """Its turns are played by its game's protocol server (CHaser over TCP), step by
        step as the programs answer: no deadline, no clock (matches/rules/turns.py)."""
        return is_protocol_played(rules_for(self.game))

    @property
    def moves_one_by_one(self) -> bool:
        """Its next turn is open until it is played, not until a deadline."""
        return self.alternating or self.protocol_played

    @property
    def period(self) -> timedelta:
        return timedelta(milliseconds=self.strategy_ms + self.transition_ms)

    def _credited(self, turn: int) -> int:
        """The milliseconds the judges' extensions gave turn `turn`'s strategy step (a
        timed game: services/control.py)."""
        return (self.credits or {}).get(str(turn), 0) if not self.alternating else 0

    def _credited_before(self, turn: int) -> int:
        """The milliseconds given to the steps of the turns before `turn`: how much later
        `turn` opens than the plain arithmetic says."""
        if self.alternating or not self.credits:
            return 0
        return sum(ms for key, ms in self.credits.items() if int(key) < turn)

    def opens_at(self, turn: int) -> datetime:
        """When the strategy step of `turn` (1-based) opens: the start, a period a turn
        before it, and what extensions gave the steps before it."""
        return self.start_at + (turn - 1) * self.period + timedelta(
            milliseconds=self._credited_before(turn))

    def deadline(self, turn: int) -> datetime:
        """When the strategy step of `turn` closes and its transition is due (later by
        what an extension gave it)."""
        return self.opens_at(turn) + timedelta(
            milliseconds=self.strategy_ms + self._credited(turn))

    def last_opened(self, moment: datetime) -> int:
        """The last turn whose strategy step had opened by `moment` (0: none yet)."""
        return self._last_turn_by(moment, self.opens_at)

    def _last_turn_by(self, now: datetime, when) -> int:
        """The last turn t (0 if none) with when(t) <= now; `when` grows with t."""
        low, high = 0, self.turns
        while low < high:
            middle = (low + high + 1) // 2
            if when(middle) <= now:
                low = middle
            else:
                high = middle - 1
        return low

    @property
    def over(self) -> bool:
        return self.resolved_turns >= self.turns or self.ended_early

    def status(self, now: datetime) -> str:
        if self.over:
            return self.FINISHED
        return self.UPCOMING if now < self.start_at else self.RUNNING

    def strategy_turn(self, now: datetime) -> int | None:
        """The turn whose strategy step is open at `now`, if any (an alternating game's:
        the next turn, from the start to the end)."""
        if now < self.start_at:
            return None
        if self.moves_one_by_one:
            return None if self.over else self.resolved_turns + 1
        if not self.credits:
            elapsed = now - self.start_at
            turn = elapsed // self.period + 1
            if turn > self.turns or elapsed - (turn - 1) * self.period >= timedelta(
                milliseconds=self.strategy_ms
            ):
                return None
            return turn
        turn = self.last_opened(now)
        return turn if turn >= 1 and now < self.deadline(turn) else None

    def next_turn_to_open(self, now: datetime) -> int:
        """The turn whose strategy step is open at `now`, else the next one to open
        (may be past the last turn)."""
        if now < self.start_at:
            return 1
        if self.moves_one_by_one:
            return self.resolved_turns + 1
        if not self.credits:
            return self.strategy_turn(now) or (now - self.start_at) // self.period + 2
        return self.strategy_turn(now) or self.last_opened(now) + 1

    def due_turns(self, now: datetime) -> range:
        """Turns whose deadline has passed but which are not resolved yet, in order
        (an alternating game's turns have none: a move resolves its turn; a paused
        match's, none until it resumes)."""
        if now < self.start_at or self.ended_early or self.moves_one_by_one or self.paused_at:
            return range(0)
        if self.credits:
            past = self._last_turn_by(now, self.deadline)
        else:
            past = (now - self.start_at - timedelta(milliseconds=self.strategy_ms)) // \
                self.period + 1
        return range(self.resolved_turns + 1, min(max(past, 0), self.turns) + 1)


class Team(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="teams")
    index = models.PositiveSmallIntegerField(help_text="0 for team A (blue), 1 for team B.")
    name = models.CharField(max_length=100)
    # The organiser's short code for where a full name does not fit ("" : none).
    short = models.CharField(max_length=8, blank=True, default="")
    # Only the SHA-256 of the bearer token is stored; the token is shown once.
    token_hash = models.CharField(max_length=64, unique=True)
    # The tournament's team it is, whose one token serves all its matches.
    entrant = models.ForeignKey("matches.Entrant", null=True, blank=True,
                                on_delete=models.SET_NULL, related_name="teams")
    # The bytes of this team's request bodies kept whole so far in this match (its
    # storage budget: settings.TEAM_BODY_BUDGET; matches/services/submissions/).
    kept_bytes = models.BigIntegerField(default=0)
    # The built-in player that plays this team (a practice match's level: "level-3"), or
    # "" : a team's own program. A waiting practice seat is "waiting" until someone joins.
    seat = models.CharField(max_length=20, blank=True, default="")

    class Meta:
        ordering = ["match_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="one_team_per_side"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def letter(self) -> str:
        return "AB"[self.index]


class PracticeTeam(models.Model):
    """A team that may start practice matches where practice is for teams, by a token an
    organiser issued for that alone (`manage.py createpractice`): a name and the SHA-256
    of its token, which plays no contest match."""

    name = models.CharField(max_length=100, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Submission(models.Model):
    """One request a team's program sent to the answer API, accepted or not."""

    # (no index of its own: the index on (match, turn, team) below serves every look by
    # match, and each index is written with every line a program sends)
    match = models.ForeignKey(Match, null=True, on_delete=models.CASCADE,
                              related_name="submissions", db_index=False)
    team = models.ForeignKey(Team, null=True, on_delete=models.CASCADE,
                             related_name="submissions")
    turn = models.PositiveSmallIntegerField(null=True, help_text="The open strategy step.")
    received_at = models.DateTimeField()
    remote_addr = models.GenericIPAddressField(null=True, blank=True)
    content_type = models.CharField(max_length=200, blank=True)
    body = models.BinaryField(help_text="The raw body as received: at most 64 KiB of a team's "
                                        "own request, the first 256 bytes of any other.")
    body_size = models.PositiveIntegerField()
    body_sha256 = models.CharField(max_length=64, blank=True,
                                   help_text="SHA-256 of the body as read (its first 64 KiB).")
    actions = models.JSONField(null=True, blank=True, help_text="The parsed actions.")
    status_code = models.PositiveSmallIntegerField()
    error = models.CharField(max_length=40, blank=True)
    detail = models.TextField(blank=True)
    counted = models.BooleanField(default=False, help_text="The one its turn used.")
    # Set when it did not come from the team's program: a judge's offline entry
    # (their user name and the required note), or an imported match record.
    entered_by = models.CharField(max_length=150, blank=True)
    note = models.TextField(blank=True)
    # The API it came through when not the native answer API: a dialect of another
    # contest server's (docs/dialects.md), its body kept as that dialect sent it.
    dialect = models.CharField(max_length=20, blank=True)
    # The team's clock less the server's when it arrived (ms), where its program said
    # its time (X-Client-Time, or a Date header): the control room's clock offset.
    client_offset_ms = models.IntegerField(null=True, blank=True)
    # The debug channel (services/submissions/debug.py): what the program said of its
    # thinking with this submission, shown in its replay to the team and the judges.
    debug = models.TextField(blank=True, default="", db_default="")  # raw inserts leave it out
    marks = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["received_at", "id"]
        indexes = [
            models.Index(fields=["match", "turn", "team"]),
            # The rate limit counts a token's requests of the last second (services).
            models.Index(fields=["team", "received_at"], condition=Q(entered_by=""),
                         name="submission_team_recent"),
            # ... and an address's requests that no team's token of the match carried.
            models.Index(fields=["remote_addr", "received_at"], condition=Q(team=None),
                         name="submission_stranger_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.team or 'unknown team'} turn {self.turn}: {self.status_code}"

    @property
    def accepted(self) -> bool:
        return self.status_code == 202


class RequestTally(models.Model):
    """The requests of one source in one minute beyond the first few that were stored
    one by one: a stranger's address, or a team over its rate limit. A flood costs
    this one row a minute, not a row a request (matches/services/submissions/)."""

    source = models.CharField(max_length=80, help_text="address:<ip> or team:<id>")
    minute = models.DateTimeField()
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="tallies", help_text="The match first asked for.")
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="tallies")
    count = models.PositiveIntegerField(default=0, help_text="All its requests this minute.")
    body_bytes = models.BigIntegerField(default=0, help_text="Their bodies' sizes, added up.")
    # The first requests not stored one by one: received_at, status, error, size,
    # sha256, and the first bytes of the body (as text, bytes not UTF-8 escaped).
    samples = models.JSONField(default=list)

    class Meta:
        ordering = ["minute", "source"]
        constraints = [models.UniqueConstraint(fields=["source", "minute"],
                                               name="one_tally_per_source_and_minute")]

    def __str__(self) -> str:
        return f"{self.source} at {self.minute:%H:%M}: {self.count} requests"


class Turn(models.Model):
    """The state after one transition step: timeline/1 state fields."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turn_rows")
    number = models.PositiveSmallIntegerField()
    cells = models.JSONField()
    agents = models.JSONField()
    outcomes = models.JSONField()
    scores = models.JSONField()
    resolved_at = models.DateTimeField()

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_row_per_turn"),
        ]

    def __str__(self) -> str:
        return f"{self.match} turn {self.number}"

    def state(self) -> dict:
        return {"turn": self.number, "cells": self.cells, "agents": self.agents,
                "outcomes": self.outcomes, "scores": self.scores}
