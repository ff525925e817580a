"""The schedule of every tournament, run on the turn clock's beat (`tournaments_tick`,
after every tick: the `clock_ticked` signal).

A tournament is looked at when something happened: its start came, one of its matches
ended (the `match_ended` signal), a judge acted, a round's opening time came
(`Tournament.next_check_at`, set by all of these). Then the runner:
1. settles the fixtures whose matches have ended (a drawn knockout fixture is replayed
   on the next board; a fixture of several matches gets its next one);
2. when a round has ended, draws the next (Swiss, knockout, groups' knockout) or ends
   the tournament;
3. opens the current round `gap_seconds` after the previous one ended (the first at the
   tournament's start) and creates its fixtures' matches, at most `parallel` at once;
   the third-place fixture before the final.
In between, a tick asks the database nothing about tournaments: the runner keeps the
earliest `next_check_at` in memory, and reads again when it comes or when the clock is
woken (another process's match ended, a judge acted: `clock_wake`).
With `bots`, each entrant's built-in level is seated at its team in every match it
plays, and played there by the driver of every seated level (services/seats.py: its
answers through the answer service, stored as `dialect` "bot", its thinking in a
worker process, never on the clock's thread).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Min
from django.dispatch import receiver
from django.utils import timezone

from matches.bots import level_seat
from matches.caches import resettable
from matches.live.broadcast import tournament_announce
from matches.models import Entrant, Fixture, Match, Team, Tournament
from matches.models.titles import tournament_parts
from matches.rules import rules_for
from matches.rules.turns import is_protocol_played
from matches.selectors import latest_scores, match_games
from matches.services.boards import board_choose
from matches.services.clock import clock_ticked, clock_wake, wakes_from_other_processes
from matches.services.control import is_void
from matches.services.matches import Timing, match_make
from matches.services.programs import ProgramError, hosted_seat, served_fixture_start
from matches.services.transition import match_ended
from matches.tournaments import table
from matches.tournaments.fixtures import knockout_fixtures, swiss_fixtures
from matches.tournaments.pairing import knockout_first_round, knockout_next, swiss_round

log = logging.getLogger("matches.tournaments")
START_SECONDS = 5.0  # between a fixture's match being made and its start
BETWEEN_SECONDS = 10.0  # between the two games of a match of two (Procon 2020)
MAX_REPLAYS = 3  # a knockout fixture drawn this often more waits for a judge


BACKSTOP_SECONDS = 60.0  # a tournament under way is looked at this often all the same
# On the embedded default the tournaments are read again this often all the same: one
# made in another process wakes no clock there (SQLite has no NOTIFY, the in-memory
# layer is each process's own), and is found this way, as a match made there is found at
# the clock's tick. Elsewhere the wake-up says so, and an idle tick reads nothing.
READ_SECONDS = 5.0


@dataclass
class Schedule:
    """What this process's runner knows between two readings: whether something may have
    happened (`stale`), and the earliest `next_check_at` it read (`next_at`)."""

    stale: bool = True
    next_at: datetime | None = None
    read_at: datetime | None = None


schedule = Schedule()


@resettable
def schedule_reset() -> None:
    """Forget what this process's runner knows (tests: a rolled-back database)."""
    global schedule
    schedule = Schedule()


def runner_nudge() -> None:
    """Something happened in this process that a tournament may have to act on (a match
    ended, a judge acted): the next tick reads the schedule again."""
    schedule.stale = True


def tournaments_tick(now: datetime, woken: bool = False) -> None:
    """Move on the tournaments whose time has come. `woken`: the clock was told something
    changed (maybe in another process)."""
    unheard = schedule.read_at is None or (
        now - schedule.read_at >= timedelta(seconds=READ_SECONDS)
        and not wakes_from_other_processes())
    if woken or schedule.stale or unheard or (schedule.next_at is not None
                                              and schedule.next_at <= now):
        schedule.stale, schedule.read_at = False, now
        for tournament_id in Tournament.objects.filter(
                finished_at=None, next_check_at__lte=now).values_list("pk", flat=True):
            try:
                tournament_advance(tournament_id, now)
            except Exception:  # one tournament's trouble must stop neither clock nor others
                log.exception("tournament %s could not advance", tournament_id)
                Tournament.objects.filter(pk=tournament_id).update(
                    next_check_at=now + timedelta(seconds=BACKSTOP_SECONDS))
        schedule.next_at = Tournament.objects.filter(finished_at=None).aggregate(
            soonest=Min("next_check_at"))["soonest"]


def seconds_to_next_check(now: datetime) -> float | None:
    """How long the clock may sleep before a tournament's time comes (None: no time)."""
    if schedule.next_at is None:
        return None
    return max(0.0, (schedule.next_at - now).total_seconds())


@receiver(clock_ticked)
def _clock_ticked(sender, now: datetime, woken: bool, **kwargs) -> float | None:
    """After every tick of a clock: the tournaments' due work; how soon the runner needs
    the clock again (when a tournament's time comes)."""
    tournaments_tick(now, woken)
    return seconds_to_next_check(now)


@receiver(match_ended)
def _match_ended(sender, match: Match, **kwargs) -> None:
    """A match of a fixture ended: its tournament is looked at now (in every clock)."""
    if match.fixture_id is not None:
        tournament_look_now(Fixture.objects.filter(pk=match.fixture_id)
                            .values_list("tournament_id", flat=True).first())


def tournament_look_now(tournament_id: int | None) -> None:
    """Have the runner look at the tournament at the next tick, whichever process's clock
    runs it."""
    if tournament_id is None:
        return
    Tournament.objects.filter(pk=tournament_id, finished_at=None).update(
        next_check_at=timezone.now())
    runner_nudge()
    clock_wake()  # and every other process's clock


def tournament_advance(tournament_id: int, now: datetime) -> None:
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.finished_at is not None:
            return
        before = _page_moment(tournament)
        tournament.next_check_at = _advanced(tournament, now)
        tournament.save(update_fields=["finished_at", "next_check_at"])
        if _page_moment(tournament) != before:  # its page's sockets: read it again
            tournament_announce(tournament.pk)


def _page_moment(tournament: Tournament) -> tuple:
    """What of a tournament its runner changes that its page shows (its fixtures, its
    matches made, its end): a look that changed nothing tells its page nothing."""
    return (tournament.finished_at, Match.objects.filter(fixture__tournament=tournament).count(),
            list(Fixture.objects.filter(tournament=tournament).order_by("pk").values_list(
                "pk", "winner", "finished_at", "planned", "points", "note", "decided_by")))


def _advanced(tournament: Tournament, now: datetime) -> datetime | None:
    """Move the tournament on; when to look at it next (None: it is over)."""
    fixtures = list(tournament.fixtures.all())
    started = _started(tournament)
    for fixture in fixtures:  # a fixture none of whose matches is made has nothing to settle
        if not fixture.finished and fixture.planned and fixture.pk in started:
            fixture_settle(tournament, fixture, now)
    current = [f for f in fixtures if not f.finished]
    if not current:
        drawn = next_round(tournament, fixtures, now)
        if not drawn:
            tournament.finished_at = now
            return None
        fixtures += drawn
        current = drawn
    number = min(f.round for f in current)
    opens = round_opens(tournament, fixtures, number)
    backstop = now + timedelta(seconds=BACKSTOP_SECONDS)
    if opens is not None and opens <= now:
        fixtures_start(tournament, [f for f in fixtures if f.round == number], now,
                       _started(tournament))
        return backstop  # its matches' ends will call again
    return min(opens, backstop) if opens is not None else backstop


def round_opens(tournament: Tournament, fixtures: list[Fixture], number: int) -> datetime | None:
    """When round `number` opens: the start for the first, else `gap_seconds` after the
    last fixture of the round before ended."""
    if number == 1:
        return tournament.start_at
    ends = [f.finished_at for f in fixtures if f.round == number - 1]
    if any(end is None for end in ends):
        return None
    last = max((end for end in ends if end), default=tournament.start_at)
    return last + timedelta(seconds=tournament.gap_seconds)


# --- a fixture's matches ------------------------------------------------------------------

def fixture_matches(fixture: Fixture) -> list[Match]:
    """Its matches (their first games), in the order they were made."""
    return list(Match.objects.filter(fixture=fixture, first_game=None).order_by("pk"))


def _started(tournament: Tournament) -> set[int]:
    """The tournament's fixtures that have a match made, in one query."""
    return set(Match.objects.filter(fixture__tournament=tournament)
               .values_list("fixture_id", flat=True).distinct())


def fixtures_start(tournament: Tournament, fixtures: list[Fixture], now: datetime,
                   started: set[int] | None = None) -> None:
    """Make the first match of every fixture of the open round that has none, while fewer
    than `parallel` fixtures are under way; the final waits for the third-place fixture.
    A game played over its own protocol has its matches made by its server instead, which
    takes the fixtures in this order (`protocol_fixture_claim`)."""
    if is_protocol_played(rules_for(tournament.game)):
        if tournament.entrants.filter(program__isnull=False).exists():
            _served_fixtures_start(tournament, now)
        return
    for fixture in fixtures_due(tournament, fixtures, started):
        match_of_fixture(tournament, fixture, 0, now)


def _served_fixtures_start(tournament: Tournament, now: datetime) -> None:
    """A tournament of hosted programs of a game with its own protocol server: the
    runner claims the fixtures due as a protocol server would, and each match is served
    by the worker that plays its two programs (docs/programs.md, "Tournaments of
    programs")."""
    while (claimed := protocol_fixture_claim(tournament.pk, now)) is not None:
        programs = dict(Entrant.objects.filter(tournament=tournament, index__in=claimed.seeds)
                        .values_list("index", "program_id"))
        try:
            match_id = served_fixture_start(
                tournament.game, list(claimed.names), [programs[s] for s in claimed.seeds],
                board=claimed.board, turns=claimed.turns, title=claimed.title,
                title_parts=claimed.title_parts, public=claimed.public, delay=claimed.delay,
                now=now)
        except ProgramError as error:
            log.warning("tournament %s: fixture %s cannot be served: %s", tournament.pk,
                        claimed.fixture_id, error.detail)
            protocol_fixture_release(claimed)
            return
        protocol_game_link(claimed, match_id, 1)


def fixtures_due(tournament: Tournament, fixtures: list[Fixture],
                 made: set[int] | None = None) -> list[Fixture]:
    """The open round's fixtures to start now, in order (the third-place one first);
    `made`: the fixtures that have a match (read here when not given)."""
    made = _started(tournament) if made is None else made
    started = {f.pk for f in fixtures if f.claimed_at is not None or f.pk in made}
    running = sum(1 for f in fixtures if f.pk in started and not f.finished)
    third_pending = any(f.stage == Fixture.THIRD and not f.finished for f in fixtures)
    due = []
    for fixture in sorted(fixtures, key=lambda f: (f.stage != Fixture.THIRD, f.slot)):
        if fixture.finished or fixture.pk in started or not fixture.planned:
            continue
        if fixture.stage == Fixture.KNOCKOUT and third_pending and len(fixtures) == 2:
            continue
        if tournament.parallel and running + len(due) >= tournament.parallel:
            break
        due.append(fixture)
    return due


@dataclass(frozen=True)
class ProtocolFixture:
    """A fixture a protocol server plays next: its teams in this match's order (the first
    Cool in odd games), their names and bots, and how to play it."""

    fixture_id: int
    number: int  # the fixture's match being played (0 the first)
    seeds: tuple[int, int]
    names: tuple[str, str]
    bots: tuple[str, str]
    title: str  # in English (the records'), and in parts, said in each reader's language
    title_parts: dict
    board: str | None  # a map of the tournament's, in turn (None: the server's choice)
    turns: int | None
    public: bool
    delay: int = 0  # the tournament's spectator delay, s


def protocol_fixture_claim(tournament_id: int, now: datetime) -> ProtocolFixture | None:
    """The next fixture of the tournament's open round for a protocol server to play,
    taken by it (no other server gets it); None when none is due now."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.finished_at is not None or now < tournament.start_at:
            return None
        fixtures = list(tournament.fixtures.all())
        current = [f for f in fixtures if not f.finished]
        if not current:
            return None
        number = min(f.round for f in current)
        opens = round_opens(tournament, fixtures, number)
        if opens is None or opens > now:
            return None
        due = fixtures_due(tournament, [f for f in fixtures if f.round == number])
        if not due:
            return None
        fixture = due[0]
        fixture.claimed_at = now
        fixture.save(update_fields=["claimed_at"])
        played = Match.objects.filter(fixture=fixture, first_game=None).count()
        seeds = fixture.teams if played % 2 == 0 else fixture.teams[::-1]
        entrants = {e.index: e for e in tournament.entrants.filter(index__in=seeds)}
        names = tuple(entrants[seed].name for seed in seeds)
        boards = tournament.settings.get("boards") or []
        made = Match.objects.filter(fixture__tournament=tournament, first_game=None).count()
        title, parts = tournament_parts(tournament.name, fixture.round, list(names),
                                        played + 1 if played else 0)
        return ProtocolFixture(
            fixture.pk, played, seeds, names, tuple(entrants[seed].bot for seed in seeds),
            title, parts,
            boards[made % len(boards)] if boards else None,
            tournament.settings.get("turns"), tournament.public,
            tournament.settings.get("delay_seconds", 0))


def protocol_game_link(claimed: ProtocolFixture, match_id: int, number: int) -> None:
    """A game a protocol server started for a claimed fixture (`number` from 1): it
    belongs to the fixture, and its teams are the entrants (Cool the first in odd games)."""
    match = Match.objects.get(pk=match_id)
    seeds = claimed.seeds if number % 2 else claimed.seeds[::-1]
    Match.objects.filter(pk=match_id).update(fixture_id=claimed.fixture_id)
    entrants = dict(Entrant.objects.filter(
        tournament__fixtures=claimed.fixture_id, index__in=seeds).values_list("index", "pk"))
    for index, seed in enumerate(seeds):
        Team.objects.filter(match=match, index=index).update(entrant_id=entrants[seed])


def protocol_fixture_release(claimed: ProtocolFixture) -> None:
    """A claimed fixture its server could not play (stopped, failed): due again."""
    Fixture.objects.filter(pk=claimed.fixture_id, finished_at=None).update(claimed_at=None)


def match_of_fixture(tournament: Tournament, fixture: Fixture, number: int,
                     now: datetime) -> Match:
    """The fixture's match `number` (0 the first): the sides swapped every other match,
    on the tournament's next board, its teams the entrants' own (their tokens serve it)."""
    settings = tournament.settings
    seeds = fixture.teams if number % 2 == 0 else fixture.teams[::-1]
    entrants = {e.index: e for e in Entrant.objects.filter(tournament=tournament,
                                                           index__in=seeds)}
    boards = settings.get("boards") or []
    made = Match.objects.filter(fixture__tournament=tournament, first_game=None).count()
    names = [entrants[seed].name for seed in seeds]
    title, parts = tournament_parts(tournament.name, fixture.round, names,
                                    number + 1 if number else 0)
    games = match_make(
        game=tournament.game, team_names=names, team_shorts=[entrants[s].short for s in seeds]
        if all(entrants[s].short for s in seeds) else None,
        boards=[board_choose(tournament.game, boards[made % len(boards)])] if boards else (),
        timing=Timing(turns=settings.get("turns"),
                      strategy_seconds=settings.get("strategy_seconds"),
                      transition_seconds=settings.get("transition_seconds"),
                      clock_seconds=settings.get("clock_seconds"),
                      between_seconds=settings.get("between_seconds", BETWEEN_SECONDS)),
        start_at=now + timedelta(seconds=settings.get("start_seconds", START_SECONDS)),
        title=title, title_parts=parts, public_live=tournament.public,
        delay_seconds=settings.get("delay_seconds", 0)).games
    Match.objects.filter(pk__in=[game.pk for game in games]).update(fixture=fixture)
    for index, seed in enumerate(seeds):
        # an entrant that is a built-in level is seated at its team (services/seats.py)
        Team.objects.filter(match__in=games, index=index).update(
            entrant=entrants[seed], seat=level_seat(tournament.game, entrants[seed].bot))
        if entrants[seed].program_id is not None:  # a hosted program: a worker plays it
            hosted_seat(games, index, entrants[seed].program_id)
    return games[0]


def fixture_matches_publish(fixture: Fixture) -> None:
    """A public tournament's games are published as each ends: those the judges ended
    (void by an award or a rerun) as well as those played out."""
    if Tournament.objects.filter(pk=fixture.tournament_id, public=True).exists():
        Match.objects.finished().filter(fixture=fixture, published=False).update(published=True)


def fixture_settle(tournament: Tournament, fixture: Fixture, now: datetime) -> None:
    """Once every match of the fixture has ended: its result (each team's points over all
    its games; the winner of more matches, or of the replay); a drawn knockout fixture
    gets a replay; a fixture of several matches, its next match."""
    matches = [match for match in fixture_matches(fixture) if not is_void(match)]
    fixture_matches_publish(fixture)
    if not all(_ended(match) for match in matches):  # (a void match counts nowhere:
        return                                          # the fixture plays another)
    protocol = is_protocol_played(rules_for(tournament.game))
    if len(matches) < fixture.planned:
        if protocol:  # its server takes it again for the next match
            Fixture.objects.filter(pk=fixture.pk).update(claimed_at=None)
        else:
            match_of_fixture(tournament, fixture, len(matches), now)
        return
    outcomes = [match_outcome(match) for match in matches]
    deciding = outcomes[:fixture.planned] if fixture.planned == tournament.matches_per_fixture \
        else outcomes[-1:]
    wins = {seed: sum(1 for winner, _ in deciding if winner == seed) for seed in fixture.teams}
    a, b = fixture.teams
    winner = None if wins[a] == wins[b] else a if wins[a] > wins[b] else b
    fixture.points = [_summed(points.get(seed, {}) for _, points in outcomes)
                      for seed in fixture.teams]
    if winner is None and fixture.stage in (Fixture.KNOCKOUT, Fixture.THIRD) or (
            winner is None and tournament.format == Tournament.KNOCKOUT):
        if fixture.planned - tournament.matches_per_fixture < MAX_REPLAYS:
            fixture.planned += 1
            fixture.note = (fixture.note + "\n" if fixture.note else "") + \
                f"drawn: replayed (match {fixture.planned})"
            fixture.claimed_at = None  # a protocol server takes it again
            fixture.save(update_fields=["planned", "points", "note", "claimed_at"])
            if not is_protocol_played(rules_for(tournament.game)):
                match_of_fixture(tournament, fixture, fixture.planned - 1, now)
        else:
            fixture.save(update_fields=["points"])  # a judge decides (fixture_decide)
        return
    fixture.winner, fixture.finished_at, fixture.decided_by = winner, now, "games"
    fixture.save(update_fields=["winner", "finished_at", "decided_by", "points"])


def _ended(match: Match) -> bool:
    """A match has ended when its last game has: the game that decided it, or its last."""
    games = match_games(match)
    last = games[-1]
    return last.over and (len(games) == match.match_games or "match" in (last.result or {}))


def match_outcome(match: Match) -> tuple[int | None, dict[int, dict[str, int]]]:
    """A match's winner (a seed, or None) and each seed's points over its games: every
    score part summed, and `games`, the games it won (in a match of wins)."""
    by_wins = rules_for(match.game).match_by == "wins"
    points: dict[int, dict[str, int]] = {}
    winner = None
    for game in match_games(match):
        seeds = {team.index: team.entrant.index for team in
                 game.teams.select_related("entrant") if team.entrant is not None}
        if len(seeds) < 2:
            continue
        for index, score in enumerate(latest_scores(game)):
            mine = points.setdefault(seeds[index], {"games": 0})
            for part, value in score.items():
                mine[part] = mine.get(part, 0) + value
        result = game.result or {}
        if by_wins and result.get("winner") is not None:
            points[seeds[result["winner"]]]["games"] += 1
        decided = result.get("match", {}).get("winner", result.get("winner"))
        winner = None if decided is None else seeds[decided]
    return winner, points


def _summed(parts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in parts:
        for key, value in each.items():
            total[key] = total.get(key, 0) + value
    return total


# --- the next round -----------------------------------------------------------------------

def next_round(tournament: Tournament, fixtures: list[Fixture], now: datetime) -> list[Fixture]:
    """Draw the round after the last (every fixture finished); [] when the tournament is over."""
    last = max((f.round for f in fixtures), default=0)
    count = tournament.entrants.count()
    if tournament.format == Tournament.SWISS:
        if last >= (tournament.rounds or 0):
            return []
        rows = table.standings_rows(tournament, fixtures)
        played = [f.teams for f in fixtures if not f.bye]
        byes = [f.team_a for f in fixtures if f.bye]
        firsts: dict[int, int] = {}
        for f in fixtures:
            if not f.bye:
                firsts[f.team_a] = firsts.get(f.team_a, 0) + 1
        try:
            pairs, bye = swiss_round([row.team for row in rows], played, byes, firsts)
        except ValueError:
            log.warning("%s: no pairing without a rematch is left; the tournament ends",
                        tournament)
            return []
        drawn = swiss_fixtures(last + 1, pairs, bye)
    elif tournament.format == Tournament.ROUND_ROBIN:
        return []
    else:
        drawn = _knockout_round(tournament, fixtures, last, count)
    games = tournament.matches_per_fixture
    for fixture in drawn:
        fixture.tournament = tournament
        if not fixture.bye:
            fixture.planned = games
    return Fixture.objects.bulk_create(drawn) and list(
        tournament.fixtures.filter(round=last + 1))


def _knockout_round(tournament: Tournament, fixtures: list[Fixture], last: int,
                    count: int) -> list[Fixture]:
    """The knockout's next round: the winners in bracket order; with two left, the final
    and, when the semi-finals had two losers, the third-place fixture. Groups: once the
    groups have ended, the knockout of each group's best `advance` teams."""
    latest = sorted((f for f in fixtures if f.round == last), key=lambda f: f.slot)
    if all(f.stage == Fixture.GROUP for f in latest):
        seeds = table.group_qualifiers(tournament, fixtures)
        if len(seeds) < 2:
            return []
        return knockout_fixtures(last + 1, knockout_first_round(len(seeds)), seeds)
    bracket = [f for f in latest if f.stage == Fixture.KNOCKOUT]
    winners = [f.winner for f in bracket]
    if len(winners) < 2:
        return []
    pairs = knockout_next(winners)
    drawn = knockout_fixtures(last + 1, [(2 * i, 2 * i + 1) for i in range(len(pairs))],
                              [seed for pair in pairs for seed in pair])
    losers = [f.team_b if f.winner == f.team_a else f.team_a for f in bracket if not f.bye]
    if len(bracket) == 2 and len(losers) == 2:
        third = knockout_fixtures(last + 1, [(0, 1)], losers, stage=Fixture.THIRD)[0]
        third.slot = 1
        drawn.append(third)
    return drawn
