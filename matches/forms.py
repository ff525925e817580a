"""Forms shared by the judges' pages and the admin."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy

from matches.access.delay import DELAY_MAX_S
from matches.boards.specs import BoardError, board_spec_fixed
from matches.models import Match, Tournament
from matches.rules import LIVE_GAMES, rules_for
from matches.rules.files import record_from_bytes
from matches.rules.records import RecordError
from matches.services.archive import match_import
from matches.services.boards import board_choose, board_choose_named
from matches.services.matches import MadeMatch, Timing, TimingError, match_make
from matches.tournaments.services import (
    TOURNAMENT_GAMES,
    CreatedTournament,
    Plan,
    TournamentError,
    teams_from_csv,
    tournament_create,
)


class RecordImportForm(forms.Form):
    """A match record to import, through the `importrecord` command's service."""

    record = forms.FileField(help_text="A match-record/1 JSON file of any game, or a Blokus "
                                       "Duo game record (one move code a line).")
    publish = forms.BooleanField(required=False, help_text="Publish it at once; otherwise "
                                 "only the judges and its two teams may see it.")

    def imported(self) -> Match | None:
        """The match the valid upload became; None when the form or the record is refused
        (the record's one-line error on the form, nothing stored)."""
        if not self.is_valid():
            return None
        upload = self.cleaned_data["record"]
        try:
            return match_import(record_from_bytes(upload.read(), upload.name),
                                published=self.cleaned_data["publish"])
        except RecordError as error:
            self.add_error("record", f"{upload.name}: {error}")
            return None


class NewMatchForm(forms.Form):
    """A match made in the control room, through `match_make` as `creatematch` makes one:
    a public board or a random one (never a file: the server's files are not the
    form's), a timed game's turns and steps or an alternating game's clock, its start,
    whether everyone may watch it."""

    game = forms.ChoiceField(label=gettext_lazy("Game"))
    team_a = forms.CharField(label=gettext_lazy("Team A"), max_length=100)
    team_b = forms.CharField(label=gettext_lazy("Team B"), max_length=100)
    board = forms.CharField(label=gettext_lazy("Board"), max_length=40, initial="random",
                            help_text=gettext_lazy("random, or a public board's name"))
    turns = forms.IntegerField(label=gettext_lazy("Number of turns"), required=False,
                               min_value=1, max_value=200)
    strategy_seconds = forms.FloatField(label=gettext_lazy("Seconds a turn"), required=False,
                                        min_value=0.5, max_value=600)
    transition_seconds = forms.FloatField(label=gettext_lazy("Transition seconds"),
                                          required=False, min_value=0, max_value=60)
    clock_seconds = forms.FloatField(label=gettext_lazy("Thinking time a team (chess clock)"),
                                     required=False, min_value=10, max_value=7200)
    start_in = forms.IntegerField(label=gettext_lazy("Starts in (seconds)"), initial=60,
                                  min_value=0, max_value=7 * 24 * 3600)
    public = forms.BooleanField(label=gettext_lazy("Anyone may watch it live"), required=False)
    delay = forms.IntegerField(
        label=gettext_lazy("Spectator delay (seconds)"), initial=0, required=False,
        min_value=0, max_value=DELAY_MAX_S,
        help_text=gettext_lazy("Everyone but the judges and the teams sees it this far behind."))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(game, rules_for(game).title) for game in LIVE_GAMES]

    def made(self) -> MadeMatch | None:
        """The match made; None when the form is refused (each field's words on it)."""
        if not self.is_valid():
            return None
        data, game = self.cleaned_data, self.cleaned_data["game"]
        rules = rules_for(game)
        try:
            boards = [self._board(game, data["board"].strip())]
            boards += [board_choose(game, "random") for _ in range(rules.games_per_match - 1)]
            timing = Timing(turns=data["turns"], strategy_seconds=data["strategy_seconds"],
                            transition_seconds=data["transition_seconds"],
                            clock_seconds=data["clock_seconds"]).checked(rules)
            return match_make(
                game=game, team_names=[data["team_a"].strip(), data["team_b"].strip()],
                boards=boards, start_at=timezone.now() + timedelta(seconds=data["start_in"]),
                public_live=data["public"], delay_seconds=data["delay"] or 0, timing=timing)
        except TimingError as error:  # a field the game is not played with, said on it
            self.add_error(error.field, str(error))
        except BoardError as error:
            self.add_error("board", str(error))
        except RecordError as error:  # the teams' names
            self.add_error("team_a", str(error))
        return None

    @staticmethod
    def _board(game: str, text: str):
        if board_spec_fixed(game) is not None:
            return board_choose(game, None)  # the game's one board
        return board_choose_named(game, text)


class NewTournamentForm(forms.Form):
    """A tournament made in the control room, through `tournament_create` as
    `createtournament` makes one: its teams as CSV lines (name, short code,
    affiliation), boards public or random only (never a file), its timing, start and
    visibility; whether it asks for a rehearsal."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=200)
    game = forms.ChoiceField(label=gettext_lazy("Game"))
    format = forms.ChoiceField(label=gettext_lazy("Format"), choices=Tournament.FORMATS)
    teams = forms.CharField(label=gettext_lazy("Teams, one a line: name, short code, affiliation"),
                            widget=forms.Textarea(attrs={"rows": 6}))
    rounds = forms.IntegerField(label=gettext_lazy("Rounds (Swiss)"), required=False,
                                min_value=1, max_value=20)
    double = forms.BooleanField(label=gettext_lazy("Double round robin (each pair meets twice, "
                                                   "sides swapped)"), required=False)
    groups = forms.IntegerField(label=gettext_lazy("Groups (group stage, then a knockout)"),
                                required=False, min_value=2, max_value=16)
    advance = forms.IntegerField(label=gettext_lazy("Teams each group sends to the knockout"),
                                 required=False, initial=2, min_value=1, max_value=8)
    games_per_fixture = forms.IntegerField(
        label=gettext_lazy("Matches a fixture plays"), required=False, min_value=1, max_value=9,
        help_text=gettext_lazy("empty: the game's own (one; CHaser's best of three)"))
    boards = forms.CharField(label=gettext_lazy("Boards, in turn"), required=False,
                             max_length=400, help_text=gettext_lazy(
                                 "public boards' names or random, separated by commas"))
    turns = forms.IntegerField(label=gettext_lazy("Number of turns"), required=False,
                               min_value=1, max_value=200)
    strategy_seconds = forms.FloatField(label=gettext_lazy("Seconds a turn"), initial=5.0,
                                        min_value=0.5, max_value=600)
    transition_seconds = forms.FloatField(label=gettext_lazy("Transition seconds"),
                                          initial=1.0, min_value=0, max_value=60)
    clock_seconds = forms.FloatField(label=gettext_lazy("Thinking time a team (chess clock)"),
                                     required=False, min_value=10, max_value=7200)
    gap_seconds = forms.FloatField(label=gettext_lazy("Seconds between rounds"), initial=30.0,
                                   min_value=0, max_value=3600)
    start_in = forms.IntegerField(label=gettext_lazy("Starts in (seconds)"), initial=600,
                                  min_value=0, max_value=30 * 24 * 3600)
    public = forms.BooleanField(label=gettext_lazy("Anyone may watch it live"), required=False)
    delay = forms.IntegerField(
        label=gettext_lazy("Spectator delay (seconds)"), initial=0, required=False,
        min_value=0, max_value=DELAY_MAX_S,
        help_text=gettext_lazy("Everyone but the judges and the teams sees it this far behind."))
    rehearsal = forms.BooleanField(label=gettext_lazy("Each team passes a rehearsal first"),
                                   required=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(game, rules_for(game).title)
                                       for game in TOURNAMENT_GAMES]

    def made(self) -> CreatedTournament | None:
        if not self.is_valid():
            return None
        data, game = self.cleaned_data, self.cleaned_data["game"]
        try:
            teams = teams_from_csv(data["teams"])
        except TournamentError as error:
            self.add_error("teams", str(error))
            return None
        boards = [name.strip() for name in data["boards"].split(",") if name.strip()]
        for board in boards:
            try:
                board_choose_named(game, board)
            except BoardError as error:
                self.add_error("boards", str(error))
                return None
        try:
            return tournament_create(Plan(
                name=data["name"].strip(), game=game, format=data["format"], teams=teams,
                start_at=timezone.now() + timedelta(seconds=data["start_in"]),
                rounds=data["rounds"], double=data["double"], groups=data["groups"] or 0,
                advance=data["advance"] or 2, games_per_fixture=data["games_per_fixture"],
                boards=boards, turns=data["turns"],
                strategy_seconds=data["strategy_seconds"],
                transition_seconds=data["transition_seconds"],
                clock_seconds=data["clock_seconds"], gap_seconds=data["gap_seconds"],
                public=data["public"], delay_seconds=data["delay"] or 0,
                extra={"rehearsal": True} if data["rehearsal"] else {}))
        except TournamentError as error:
            self.add_error(None, str(error))
            return None
