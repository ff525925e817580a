"""Creating a tournament, and what judges do to its fixtures: the organiser's and the
judges' use cases. The schedule itself runs in `runner.py`, which these tell when
something changed (`runner_nudge`); it never imports this module.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from matches.access.delay import DELAY_MAX_S
from matches.bots import bot_names
from matches.live.broadcast import tournament_announce
from matches.models import Entrant, Fixture, Match, Tournament, new_token, token_hash
from matches.rules import GAMES, rules_for
from matches.rules.checks import RecordError, team_names, text_problem
from matches.rules.turns import is_alternating, is_protocol_played
from matches.services.clock import clock_wake
from matches.services.control import is_void, match_void
from matches.services.matches import TEAM_SHORT_LIMIT, Timing, TimingError
from matches.services.programs import ProgramError, hosted_entrants_check
from matches.services.publication import match_publish
from matches.tournaments.fixtures import knockout_fixtures, swiss_fixtures
from matches.tournaments.pairing import knockout_first_round, round_robin, swiss_round
from matches.tournaments.runner import fixture_matches_publish, runner_nudge

NAME_LIMIT = Entrant._meta.get_field("name").max_length
SHORT_LIMIT = TEAM_SHORT_LIMIT  # the same as a match's
AFFILIATION_LIMIT = Entrant._meta.get_field("affiliation").max_length
TITLE_LIMIT = Tournament._meta.get_field("name").max_length
MAX_TEAMS = 256
# The games played live: through the answer API, or over their own protocol's server.
TOURNAMENT_GAMES = tuple(game for game in GAMES
                         if rules_for(game).live or is_protocol_played(rules_for(game)))
MAX_GAMES = 3


class TournamentError(ValueError):
    """What an organiser asked for that cannot be run, naming the option."""


@dataclass(frozen=True)
class EntrantSpec:
    name: str
    short: str = ""
    affiliation: str = ""
    program: int | None = None  # the hosted program that plays it (docs/programs.md)


@dataclass(frozen=True)
class Plan:
    """How a tournament runs, as `createtournament` takes it."""

    name: str
    game: str
    format: str
    teams: Sequence[EntrantSpec]
    start_at: datetime
    rounds: int | None = None
    double: bool = False
    groups: int = 0
    advance: int = 2
    games_per_fixture: int | None = None
    boards: Sequence[str] = ()
    turns: int | None = None
    strategy_seconds: float = 5.0
    transition_seconds: float = 1.0
    clock_seconds: float | None = None
    gap_seconds: float = 30.0
    parallel: int = 0
    bots: bool = False
    public: bool = False
    delay_seconds: int = 0  # the spectator delay of its matches (access/delay.py)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CreatedTournament:
    tournament: Tournament
    tokens: list[str]  # by seed; shown once, only their hashes are stored


CSV_COLUMNS = ("name", "short", "affiliation")


def teams_from_csv(text: str) -> list[EntrantSpec]:
    """Teams as CSV, one a row: name, then optionally a short code and an affiliation; a
    first row of those column names is a header (`createtournament --teams-file`, the
    control room's form). TournamentError naming the row otherwise."""
    rows = [row for row in csv.reader(text.splitlines()) if any(cell.strip() for cell in row)]
    if rows and [cell.strip().lower() for cell in rows[0][:1]] == ["name"]:
        rows = rows[1:]
    teams = []
    for number, row in enumerate(rows, start=1):
        if len(row) > len(CSV_COLUMNS):
            raise TournamentError(f"row {number} has {len(row)} columns; at most "
                                  f"{len(CSV_COLUMNS)} ({', '.join(CSV_COLUMNS)})")
        cells = [cell.strip() for cell in row] + [""] * (len(CSV_COLUMNS) - len(row))
        teams.append(EntrantSpec(*cells))
    return teams


def fixture_games(game: str) -> tuple[int, tuple[int, ...]]:
    """A fixture's games by default and the numbers allowed: a match of several games
    where the game's rules make one (Procon 2020's two), else separate matches with
    the sides swapped (Blokus Duo's one or two)."""
    rules = rules_for(game)
    natural = rules.games_per_match
    if natural > 1:
        return natural, (natural,)
    return 1, tuple(range(1, MAX_GAMES + 1))


def plan_check(plan: Plan) -> Plan:
    """The plan, or TournamentError naming what is wrong (nothing is stored before)."""
    problem = text_problem(plan.name)
    if problem or not plan.name.strip():
        raise TournamentError(f"NAME: {problem or 'must not be blank'}")
    if len(plan.name) > TITLE_LIMIT:
        raise TournamentError(f"NAME: at most {TITLE_LIMIT} characters")
    if plan.game not in TOURNAMENT_GAMES:
        raise TournamentError(f"--game: one of {', '.join(TOURNAMENT_GAMES)}")
    rules = rules_for(plan.game)
    formats = [value for value, _ in Tournament.FORMATS]
    if plan.format not in formats:
        raise TournamentError(f"--format: one of {', '.join(formats)}")
    count = len(plan.teams)
    if not 2 <= count <= MAX_TEAMS:
        raise TournamentError(f"--teams: between 2 and {MAX_TEAMS} teams")
    try:
        team_names([team.name for team in plan.teams], limit=NAME_LIMIT, count=None)
        if any(team.short for team in plan.teams):
            team_names([team.short for team in plan.teams], limit=SHORT_LIMIT, part="short",
                       count=None)
    except RecordError as error:
        raise TournamentError(f"--teams: {error}") from None
    for index, team in enumerate(plan.teams):
        problem = text_problem(team.affiliation)
        if problem or len(team.affiliation) > AFFILIATION_LIMIT:
            raise TournamentError(f"--teams: teams[{index}].affiliation: "
                                  f"{problem or f'at most {AFFILIATION_LIMIT} characters'}")
    default, allowed = fixture_games(plan.game)
    games = plan.games_per_fixture or default
    if games not in allowed:
        raise TournamentError(f"--games-per-fixture: {rules.title} plays "
                              f"{' or '.join(map(str, allowed))} a fixture")
    if plan.format == Tournament.SWISS:
        rounds = plan.rounds or max(1, math.ceil(math.log2(count)))
        if not 1 <= rounds <= count - 1 + count % 2:
            raise TournamentError(f"--rounds: between 1 and {count - 1 + count % 2} for "
                                  f"{count} teams (no pair meets twice)")
    elif plan.rounds is not None:
        raise TournamentError("--rounds: for a Swiss tournament only")
    if plan.double and plan.format not in (Tournament.ROUND_ROBIN, Tournament.GROUPS):
        raise TournamentError("--double: for a round robin (or its groups) only")
    if plan.format == Tournament.GROUPS:
        if plan.groups < 2 or count < 2 * plan.groups:
            raise TournamentError("--groups: at least 2 groups of at least 2 teams")
        if not 1 <= plan.advance <= count // plan.groups:
            raise TournamentError(f"--advance: between 1 and {count // plan.groups}")
    if plan.bots and not bot_names(plan.game):
        raise TournamentError(f"--bots: {rules.title} has no built-in bots")
    programs = [team.program for team in plan.teams if team.program is not None]
    if programs:
        if plan.bots:
            raise TournamentError("--programs: its teams are programs, not built-in bots")
        try:
            hosted_entrants_check(plan.game, programs)
        except ProgramError as error:
            raise TournamentError(f"--programs: {error.detail}") from None
    # as every way of making a match checks it (the steps have defaults here: an
    # alternating game's are not the organiser's, and are left to its clock)
    steps = {} if is_alternating(rules) else {
        "strategy_seconds": plan.strategy_seconds, "transition_seconds": plan.transition_seconds}
    try:
        Timing(turns=plan.turns, clock_seconds=plan.clock_seconds, **steps).checked(rules)
    except TimingError as error:
        option = {"clock_seconds": "clock"}.get(error.field, error.field)
        raise TournamentError(f"--{option.replace('_', '-')}: {error}") from None
    if plan.parallel < 0 or plan.gap_seconds < 0:
        raise TournamentError("--parallel and --gap: must not be negative")
    if not 0 <= plan.delay_seconds <= DELAY_MAX_S:
        raise TournamentError(f"--delay: from 0 to {DELAY_MAX_S} seconds")
    return plan


def tournament_create(plan: Plan) -> CreatedTournament:
    """Store a tournament, its teams (one token each) and its first round(s); the clock's
    runner plays it from `plan.start_at`. TournamentError before anything is stored."""
    plan = plan_check(plan)
    rules = rules_for(plan.game)
    count = len(plan.teams)
    players = bot_names(plan.game) if plan.bots else []
    tokens = [new_token() for _ in plan.teams]
    settings = {
        "boards": list(plan.boards), "turns": plan.turns,
        "strategy_seconds": plan.strategy_seconds,
        "transition_seconds": plan.transition_seconds,
        "clock_seconds": (plan.clock_seconds or rules.default_clock_seconds)
        if is_alternating(rules) else None,
        **({"delay_seconds": plan.delay_seconds} if plan.delay_seconds else {}),
        **plan.extra,
    }
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=plan.name.strip(), game=plan.game, format=plan.format,
            rounds=(plan.rounds or max(1, math.ceil(math.log2(count))))
            if plan.format == Tournament.SWISS else None,
            double=plan.double, groups=plan.groups if plan.format == Tournament.GROUPS else 0,
            advance=plan.advance, settings=settings,
            games_per_fixture=plan.games_per_fixture or fixture_games(plan.game)[0],
            start_at=plan.start_at, gap_seconds=plan.gap_seconds, parallel=plan.parallel,
            bots=plan.bots, public=plan.public, next_check_at=plan.start_at)
        groups = group_of_seeds(count, tournament.groups) if tournament.groups else {}
        Entrant.objects.bulk_create([
            Entrant(tournament=tournament, index=index, name=team.name, short=team.short,
                    affiliation=team.affiliation, token_hash=token_hash(token),
                    group=groups.get(index),
                    bot=players[index % len(players)] if players else "",
                    program_id=team.program)
            for index, (team, token) in enumerate(zip(plan.teams, tokens, strict=True))])
        first_rounds_create(tournament, count, groups)
        clock_wake()
        runner_nudge()
        transaction.on_commit(runner_nudge, robust=True)
    return CreatedTournament(tournament, tokens)


def group_of_seeds(count: int, groups: int) -> dict[int, int]:
    """Seeds dealt into groups like cards, back and forth (1 2 3 3 2 1 ...), so that
    every group gets a fair share of strong and weak seeds."""
    dealt = {}
    for seed in range(count):
        lap, place = divmod(seed, groups)
        dealt[seed] = place if lap % 2 == 0 else groups - 1 - place
    return dealt


def first_rounds_create(tournament: Tournament, count: int, groups: dict[int, int]) -> None:
    """A round robin's every round; a knockout's, a Swiss's first round; each group's
    round robin (the knockout after it is made when the groups end)."""
    games = tournament.matches_per_fixture
    fixtures = []
    if tournament.format == Tournament.ROUND_ROBIN:
        for number, pairs in enumerate(round_robin(count, tournament.double), start=1):
            fixtures += [Fixture(round=number, slot=slot, team_a=a, team_b=b)
                         for slot, (a, b) in enumerate(pairs)]
    elif tournament.format == Tournament.KNOCKOUT:
        fixtures += knockout_fixtures(1, knockout_first_round(count), list(range(count)))
    elif tournament.format == Tournament.SWISS:
        pairs, bye = swiss_round(list(range(count)), [])
        fixtures += swiss_fixtures(1, pairs, bye)
    else:
        members: dict[int, list[int]] = {}
        for seed, group in sorted(groups.items()):
            members.setdefault(group, []).append(seed)
        slot_of_round: dict[int, int] = {}
        for group in sorted(members):
            seeds = members[group]
            for number, pairs in enumerate(round_robin(len(seeds), tournament.double), 1):
                for a, b in pairs:
                    slot = slot_of_round.get(number, 0)
                    slot_of_round[number] = slot + 1
                    fixtures.append(Fixture(round=number, slot=slot, stage=Fixture.GROUP,
                                            group=group, team_a=seeds[a], team_b=seeds[b]))
    for fixture in fixtures:
        fixture.tournament = tournament
        fixture.planned = games if fixture.team_b is not None else 0
    Fixture.objects.bulk_create(fixtures)


# --- the judges' hand ------------------------------------------------------------------

class FixtureError(ValueError):
    """A judge's request that cannot be carried out, in words for them."""


def fixture_decide(*, fixture_id: int, winner: int | None, note: str, judge: str) -> Fixture:
    """A judge records a fixture's result by hand (`winner`: a seed of its teams, or None
    for a draw), with a note: it stands whatever its matches say."""
    if not note.strip():
        raise FixtureError(gettext("a result entered by hand needs a note saying why"))
    return _judged(fixture_id, winner, "judge", judge, note)


def tournament_publish(*, tournament_id: int) -> int:
    """Publish every finished match of a tournament (each game of it) that is not yet;
    how many were."""
    waiting = list(Match.objects.finished().filter(fixture__tournament_id=tournament_id,
                                                   published=False).values_list("pk", flat=True))
    for match_id in waiting:
        match_publish(match_id=match_id, published=True)
    if waiting:
        tournament_announce(tournament_id)
    return len(waiting)


def fixture_award(*, fixture_id: int, winner: int, note: str, judge: str) -> Fixture:
    """A judge awards a fixture to one of its teams (the other forfeits: its program never
    came, or broke the rules): its matches still under way are void at once, and the
    result stands as the judges gave it (`decided_by: "award"`)."""
    if not note.strip():
        raise FixtureError(gettext("an award needs a note saying why"))
    return _judged(fixture_id, winner, "award", judge, f"awarded: {note}")


def _judged(fixture_id: int, winner: int | None, decided_by: str, judge: str,
            note: str) -> Fixture:
    """A fixture's result as the judges give it (`fixture_decide`, `fixture_award`): it
    stands whatever its matches say; an award voids those still under way first."""
    with transaction.atomic():
        fixture = Fixture.objects.select_for_update().get(pk=fixture_id)
        if fixture.bye:
            raise FixtureError(gettext("a bye has no result to decide"))
        if winner is not None and winner not in fixture.teams:
            raise FixtureError(gettext("the winner must be one of the fixture's two teams"))
        if winner is None and fixture.stage in (Fixture.KNOCKOUT, Fixture.THIRD):
            raise FixtureError(gettext("a knockout fixture needs a winner"))
        if decided_by == "award":
            for match in _first_games(fixture):
                if not match.over:
                    match_void(match_id=match.pk, reason=note.strip(), judge=judge)
        fixture.winner, fixture.decided_by = winner, decided_by
        fixture.finished_at = fixture.finished_at or timezone.now()
        fixture.note = _noted(fixture.note, judge, note)
        fixture.save()
        fixture_matches_publish(fixture)
        _look_now(fixture.tournament_id)
    return fixture


def fixture_rerun(*, fixture_id: int, note: str, judge: str) -> Fixture:
    """A judge has a fixture played again: its matches are void (they count nowhere, in
    the standings' tie-breaks neither), and it plays them anew on the next boards."""
    if not note.strip():
        raise FixtureError(gettext("a rerun needs a note saying why"))
    with transaction.atomic():
        fixture = Fixture.objects.select_for_update().get(pk=fixture_id)
        if fixture.bye:
            raise FixtureError(gettext("a bye is not played"))
        later = Fixture.objects.filter(tournament_id=fixture.tournament_id,
                                       round__gt=fixture.round).exists()
        if later and fixture.tournament.format != Tournament.ROUND_ROBIN:
            raise FixtureError(gettext("the next round has been drawn from this result already"))
        for match in _first_games(fixture):
            if not is_void(match):
                match_void(match_id=match.pk, reason=f"rerun: {note.strip()}", judge=judge)
        fixture.winner, fixture.finished_at, fixture.decided_by = None, None, ""
        fixture.points = []
        fixture.claimed_at = None  # a protocol server takes it again
        fixture.note = _noted(fixture.note, judge, f"rerun: {note}")
        fixture.save()
        fixture_matches_publish(fixture)
        Tournament.objects.filter(pk=fixture.tournament_id).update(finished_at=None)
        _look_now(fixture.tournament_id)
    return fixture


def _look_now(tournament_id: int) -> None:
    """A judge changed a fixture: the clocks' runners look at the tournament at once, and
    its page's sockets are told (once this commits)."""
    Tournament.objects.filter(pk=tournament_id).update(next_check_at=timezone.now())
    tournament_announce(tournament_id)
    runner_nudge()  # now, and again once this commits (a read before would miss it)
    transaction.on_commit(runner_nudge, robust=True)
    clock_wake()


def _first_games(fixture: Fixture):
    return Match.objects.filter(fixture=fixture, first_game=None).order_by("pk")


def _noted(notes: str, judge: str, note: str) -> str:
    line = f"{timezone.now():%Y-%m-%d %H:%M} {judge}: {note.strip()}"
    return f"{notes}\n{line}" if notes else line
