"""What a tournament shows: its standings by its game's contest rules, its rounds and
fixtures, the cross table and the bracket (the read side of tournaments; the API, the
pages and the downloads all read it here)."""

from __future__ import annotations

import functools
import operator
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Min, Q
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_lazy

from matches.access.delay import read_only_copy
from matches.models import Entrant, Fixture, Match, Tournament, Turn
from matches.rules import rules_for, words
from matches.rules.turns import is_protocol_played
from matches.selectors import epoch_ms, rehearsals
from matches.tournaments.standings import FixtureResult, Row, standings


def results_of(fixtures: Sequence[Fixture]) -> tuple[list[FixtureResult], list[int]]:
    """The finished fixtures' results, and the teams that had a bye (worth a win in a
    Swiss tournament only: a knockout's byes are places in the bracket, not wins). A bye
    counts once its round is over, as the others' wins of that round do: not before."""
    results, byes = [], []
    playing = {fixture.round for fixture in fixtures if not fixture.finished}
    for fixture in fixtures:
        if not fixture.finished:
            continue
        if fixture.bye:
            if fixture.round not in playing:
                byes.append(fixture.team_a)
            continue
        points = fixture.points if len(fixture.points) == 2 else ({}, {})
        results.append(FixtureResult((fixture.team_a, fixture.team_b), fixture.winner,
                                     (points[0], points[1])))
    return results, byes


def standings_rows(tournament: Tournament, fixtures: Sequence[Fixture],
                   count: int | None = None) -> list[Row]:
    count = tournament.entrants.count() if count is None else count
    results, byes = results_of(fixtures)
    counted_byes = byes if tournament.format == Tournament.SWISS else []
    rows = standings(count, results, rules_for(tournament.game).ranking, counted_byes)
    reached = knockout_reached(fixtures)
    return by_knockout(rows, reached) if reached else rows


# How far a team went in a knockout, best first: the winner, the final's loser, the
# third-place fixture's winner and loser; then the round a team is still in, or lost in.
CHAMPION, RUNNER_UP, THIRD, FOURTH = 1000, 900, 800, 700


def knockout_reached(fixtures: Sequence[Fixture]) -> dict[int, float]:
    """Each knockout team's place as a number (higher is better); {} without a knockout.
    A team still in the bracket stands above those out in its round."""
    bracket = [f for f in fixtures if f.stage in (Fixture.KNOCKOUT, Fixture.THIRD)]
    if not bracket:
        return {}
    last = max(f.round for f in bracket)
    final = [f for f in bracket if f.round == last and f.stage == Fixture.KNOCKOUT]
    reached: dict[int, float] = {}
    for fixture in sorted(bracket, key=lambda f: f.round):
        for team in fixture.teams:
            if team is not None:
                reached[team] = fixture.round + 0.5  # in this round, not out (yet)
        if fixture.bye or not fixture.finished or fixture.winner is None:
            continue
        loser = fixture.team_b if fixture.winner == fixture.team_a else fixture.team_a
        if fixture.stage == Fixture.THIRD:
            reached[fixture.winner], reached[loser] = THIRD, FOURTH
        elif len(final) == 1 and fixture is final[0] and len(
                [f for f in bracket if f.round == last]) <= 2:
            reached[fixture.winner], reached[loser] = CHAMPION, RUNNER_UP
        else:
            reached[loser] = fixture.round
    return reached


def by_knockout(rows: list[Row], reached: dict[int, float]) -> list[Row]:
    """The table of a tournament with a knockout: ranked by how far each team went (the
    teams out in one round share a rank), then by the game's own keys among equals;
    teams that never reached the knockout (groups) after, as their table has them."""
    ordered = sorted(rows, key=lambda row: -reached.get(row.team, -1))  # stable: keys kept
    for place, row in enumerate(ordered):
        tied = place and reached.get(row.team, -1) == reached.get(ordered[place - 1].team, -1) \
            and row.team in reached
        row.rank = ordered[place - 1].rank if tied else place + 1
    return ordered


def group_qualifiers(tournament: Tournament, fixtures: Sequence[Fixture]) -> list[int]:
    """The knockout's seeds after the groups: every group's winner (group order), then
    every runner-up, and so on to `advance` places."""
    members: dict[int, list[int]] = defaultdict(list)
    for entrant in tournament.entrants.order_by("index"):
        members[entrant.group].append(entrant.index)
    places: list[list[int]] = []
    count = sum(len(seeds) for seeds in members.values())
    for group in sorted(members):
        rows = standings_rows(tournament, [f for f in fixtures if f.group == group], count)
        ranked = [row.team for row in rows if row.team in members[group]]
        places.append(ranked[:tournament.advance])
    return [group[place] for place in range(tournament.advance) for group in places
            if place < len(group)]


def tournament_data(tournament: Tournament, now: datetime,
                    public: bool = False) -> dict[str, Any]:
    """GET /api/tournaments/{id} (docs/api.md, "Tournaments"); `public`: as everyone
    but the judges sees it, behind its spectator delay (`seen_fixtures`)."""
    entrants = list(tournament.entrants.order_by("index"))
    fixtures, moment = seen_fixtures(tournament, now, public)
    matches = _matches_by_fixture(fixtures, now, moment)
    rounds: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for fixture in fixtures:
        rounds[fixture.round].append(fixture_data(fixture, matches.get(fixture.pk, [])))
    rows = standings_rows(tournament, fixtures, len(entrants))
    passed = rehearsals(tournament)
    return {
        "id": tournament.pk, "name": tournament.name, "game": tournament.game,
        "format": tournament.format, "status": _status_seen(tournament, now, moment),
        "start_at": epoch_ms(tournament.start_at),
        "games_per_fixture": tournament.games_per_fixture,
        "teams": [{"index": e.index, "name": e.name, "short": e.short,
                   "affiliation": e.affiliation, "group": e.group,
                   **({"rehearsal": passed.get(e.index, False)} if passed is not None else {})}
                  for e in entrants],
        "rounds": [{"round": number, "fixtures": listed}
                   for number, listed in sorted(rounds.items())],
        "standings": [row.public() for row in rows],
    }


def fixture_data(fixture: Fixture, matches: list[MatchLine]) -> dict[str, Any]:
    return {"id": fixture.pk, "teams": [fixture.team_a, fixture.team_b],
            "matches": [m.pk for m in matches],
            "winner": fixture.winner, "finished": fixture.finished, "stage": fixture.stage,
            "group": fixture.group, "decided_by": fixture.decided_by,
            "points": fixture.points}


@dataclass(frozen=True)
class MatchLine:
    """What a tournament's pages need of one of its matches (read without building a
    model object each: a round robin of 64 teams has 2,016 of them)."""

    pk: int
    status: str
    resolved_turns: int
    turns: int
    void: bool = False  # the judges voided it (a rerun, an award): it counts nowhere


def seen_fixtures(tournament: Tournament, now: datetime,
                  public: bool) -> tuple[list[Fixture], datetime | None]:
    """The tournament's fixtures in order as the viewer sees them, and the moment the
    public sees (None: live). With a spectator delay (its matches': access/delay.py),
    the public sees a fixture settled once its end has come to them, and a round whose
    pairings follow from the results (all but a round robin's) once the round before it
    has; never a copy saved."""
    fixtures = list(tournament.fixtures.order_by("round", "slot"))
    delay = (tournament.settings or {}).get("delay_seconds", 0) if public else 0
    if not delay:
        return fixtures, None
    moment = now - timedelta(seconds=delay)
    seen = []
    for fixture in fixtures:
        if fixture.finished_at is None or fixture.finished_at > moment:
            # nothing of its results yet: a drawn match's points and note ("replayed")
            # are written before the fixture is settled
            fixture = read_only_copy(fixture)
            fixture.finished_at, fixture.winner, fixture.points = None, None, []
            fixture.decided_by, fixture.note = "", ""
        seen.append(fixture)
    if tournament.format == Tournament.ROUND_ROBIN:
        return seen, moment
    first = min((fixture.round for fixture in seen), default=0)
    open_rounds = {fixture.round for fixture in seen if not fixture.finished}
    return [fixture for fixture in seen
            if fixture.round == first or not any(r < fixture.round for r in open_rounds)
            or fixture.stage == Fixture.GROUP], moment


def _status_seen(tournament: Tournament, now: datetime, moment: datetime | None) -> str:
    """The tournament's status as the viewer sees it: behind its delay, it is not over
    for the public before the end of its last match has come to them."""
    if moment is not None and tournament.finished_at and tournament.finished_at > moment:
        return Tournament.RUNNING
    return tournament.status(now)


def _matches_by_fixture(fixtures: Sequence[Fixture], now: datetime | None = None,
                        moment: datetime | None = None) -> dict[int, list[MatchLine]]:
    """Each fixture's matches (first games), in order, in one query; with `moment`, as
    the public sees them then (each match's turns resolved by then; its start later by
    as much), in one query more."""
    now = now or timezone.now()
    found: dict[int, list[MatchLine]] = defaultdict(list)
    matches = Match.objects.filter(fixture__in=[f.pk for f in fixtures], first_game=None)
    if moment is not None:  # a match made since (a rerun, the next match) is not shown yet
        matches = matches.filter(Q(public_from=None) | Q(public_from__lte=now))
    rows = list(matches.order_by("pk").values_list(
        "pk", "fixture_id", "start_at", "turns", "resolved_turns", "ended_early",
        "result__decided_by"))
    later: dict[int, int] = {}  # a match's first turn the public has not seen
    if moment is not None:
        settled = {f.pk for f in fixtures if f.finished}
        recent = [pk for pk, fixture_id, *_ in rows if fixture_id not in settled]
        later = dict(Turn.objects.filter(match_id__in=recent, resolved_at__gt=moment)
                     .values("match_id").annotate(first=Min("number"))
                     .values_list("match_id", "first"))
    for pk, fixture_id, start_at, turns, resolved, ended_early, decided_by in rows:
        if moment is not None:
            start_at = start_at + (now - moment)
            if pk in later:
                resolved, ended_early = later[pk] - 1, False
        status = (Match.FINISHED if resolved >= turns or ended_early
                  else Match.UPCOMING if now < start_at else Match.RUNNING)
        found[fixture_id].append(MatchLine(pk, status, resolved, turns,
                                           status == Match.FINISHED and decided_by == "void"))
    return found


def cross_table(entrants: Sequence[Entrant], fixtures: Sequence[Fixture]) -> list[list[str]]:
    """The Japanese contests' table: row team against column team, ○ a win, × a loss,
    △ a draw (several marks where they met more than once), "" where they have not
    met, "—" on the diagonal."""
    count = len(entrants)
    marks: list[list[str]] = [["" for _ in range(count)] for _ in range(count)]
    for row in range(count):
        marks[row][row] = "—"
    for fixture in fixtures:
        if fixture.bye or not fixture.finished:
            continue
        a, b = fixture.teams
        if fixture.winner is None:
            marks[a][b] += "△"
            marks[b][a] += "△"
        else:
            loser = b if fixture.winner == a else a
            marks[fixture.winner][loser] += "○"
            marks[loser][fixture.winner] += "×"
    return marks


ROUND_NAMES = {1: gettext_lazy("Final"), 2: gettext_lazy("Semi-finals"),
               3: gettext_lazy("Quarter-finals")}


def bracket(fixtures: Sequence[Fixture]) -> list[dict[str, Any]]:
    """The knockout's rounds in bracket order, each {"round", "name", "fixtures",
    "pairs", "fed"}, named from the end ("Final", "Semi-finals", ...), the rounds to come
    included (their fixtures not drawn yet: None). `pairs` holds a round's fixtures two
    by two, the two whose winners meet in the next round together (runner.py's
    `knockout_next`), for the page to join them by lines; `fed`, `feeds`: its fixtures'
    teams come from the round before, its winners go on to the next. The third-place
    fixture, whose teams are the semi-finals' losers, is a column of its own after the
    final's, joined to none."""
    rounds: dict[int, list[Fixture]] = defaultdict(list)
    for fixture in fixtures:
        if fixture.stage in (Fixture.KNOCKOUT, Fixture.THIRD):
            rounds[fixture.round].append(fixture)
    if not rounds:
        return []
    ordered = sorted(rounds)
    first = [f for f in rounds[ordered[0]] if f.stage == Fixture.KNOCKOUT]
    total = max(len(ordered), (2 * len(first) - 1).bit_length())
    named, thirds = [], []
    for place in range(total):
        left = total - place
        name = ROUND_NAMES.get(left) or gettext("Round of %(teams)s") % {"teams": 2 ** left}
        number = ordered[place] if place < len(ordered) else None
        listed = sorted(rounds.get(number, []), key=lambda f: f.slot)
        thirds += [f for f in listed if f.stage == Fixture.THIRD]
        drawn: list[Fixture | None] = [f for f in listed if f.stage == Fixture.KNOCKOUT]
        slots = drawn + [None] * (2 ** (left - 1) - len(drawn))
        named.append({"round": number, "name": name, "fixtures": drawn, "fed": place > 0,
                      "feeds": left > 1,
                      "pairs": [slots[i:i + 2] for i in range(0, len(slots), 2)]})
    for third in thirds:
        named.append({"round": third.round, "name": gettext("Third place"),
                      "fixtures": [third], "fed": False, "feeds": False,
                      "pairs": [[third]], "third": True})
    return named


TIEBREAK_NAMES = {"solkoff": gettext_lazy("Solkoff"), "sb": gettext_lazy("SB")}


SCHEDULE_WHOLE = 160  # a schedule of more fixtures shows a few rounds, the rest as links


def page_data(tournament: Tournament, now: datetime, shown_round: int | None = None,
              public: bool = False) -> dict[str, Any]:
    """Everything a tournament's page shows, in one pass over its fixtures and matches.
    A long schedule (a round robin of 64 teams has 2,016 fixtures) shows `shown_round`,
    else the current round and the one before (the last, once finished); every round is
    a link. `public`: as everyone but the judges sees it (`seen_fixtures`)."""
    rules = rules_for(tournament.game)
    entrants = list(tournament.entrants.order_by("index"))
    fixtures, moment = seen_fixtures(tournament, now, public)
    matches = _matches_by_fixture(fixtures, now, moment)
    live = _live_headlines([m for listed in matches.values() for m in listed], now, rules)
    rows = standings_rows(tournament, fixtures, len(entrants))
    keys = list(rows[0].tiebreaks) if rows else []
    current = min((f.round for f in fixtures if not f.finished), default=None)
    last = max((f.round for f in fixtures), default=0)
    shown = _rounds_shown(len(fixtures), last, current, shown_round)
    schedule: dict[int, list[dict[str, Any]]] = defaultdict(list)
    counts: dict[int, int] = defaultdict(int)
    for fixture in fixtures:
        counts[fixture.round] += 1
        if fixture.round in shown:
            schedule[fixture.round].append(
                _fixture_entry(fixture, entrants, matches, now, rules, live))
    knockout = bracket(fixtures)
    for stage in knockout:
        stage["pairs"] = [[f and _fixture_entry(f, entrants, matches, now, rules, live)
                           for f in pair] for pair in stage["pairs"]]
        stage["fixtures"] = [f for pair in stage["pairs"] for f in pair if f]
    crossed = tournament.format != Tournament.KNOCKOUT
    order = sorted(entrants, key=lambda e: (e.group or 0, e.index))
    marks = cross_table(entrants, [f for f in fixtures if f.stage != Fixture.THIRD
                                   and f.stage != Fixture.KNOCKOUT]) if crossed else []
    return {
        "tournament": tournament, "status": _status_seen(tournament, now, moment),
        "game": rules.title,
        "format": tournament.get_format_display(), "entrants": entrants,
        "planned_rounds": _planned_rounds(tournament, fixtures, len(entrants), knockout),
        "current_round": current,
        "standings": [{**row.public(), "team": entrants[row.team]} for row in rows],
        "tiebreak_keys": keys,
        "tiebreak_names": [TIEBREAK_NAMES.get(k) or words.part(k) for k in keys],
        "cross": [{"team": e, "cells": _cross_cells([marks[e.index][o.index] for o in order])}
                  for e in order] if crossed else [],
        "cross_order": order if crossed else [],
        "bracket": knockout,
        "schedule": [{"round": number, "fixtures": schedule.get(number),
                      "count": counts[number], "current": number == current}
                     for number in sorted(counts)],
        "schedule_whole": len(shown) == len(counts),
        "groups": sorted({e.group for e in entrants if e.group is not None}),
        "rehearsals": _rehearsal_rows(tournament, entrants),
        # a game played over its own protocol rehearses on its practice server
        "rehearsal_by_name": is_protocol_played(rules),
        "unpublished": Match.objects.finished().filter(
            fixture__tournament=tournament, published=False).count(),
    }


def _rehearsal_rows(tournament: Tournament, entrants: Sequence[Entrant]) -> list[dict]:
    """Each team and whether it passed the rehearsal the tournament asks for (none when
    it asks for none)."""
    passed = rehearsals(tournament)
    if passed is None:
        return []
    return [{"team": entrant, "passed": passed.get(entrant.index, False)}
            for entrant in entrants]


def _rounds_shown(fixtures: int, last: int, current: int | None,
                  asked: int | None) -> set[int]:
    if fixtures <= SCHEDULE_WHOLE:
        return set(range(1, last + 1))
    if asked is not None and 1 <= asked <= last:
        return {asked}
    if current is None:
        return {last}
    return {current - 1, current} - {0}


def _cross_cells(marks: Sequence[str]) -> SafeString:
    """A cross table row's cells, built here: a 64-team table has 4,096 of them, and
    the marks are the table's own characters, never a team's words."""
    return mark_safe("".join('<td class="self">—</td>' if mark == "—" else f"<td>{mark}</td>"
                             for mark in marks))


def _live_headlines(matches: Sequence[MatchLine], now: datetime, rules) -> dict[int, list[int]]:
    """The running matches' latest headline numbers (as the viewer sees them), in one
    query."""
    running = [m for m in matches if m.status == Match.RUNNING and m.resolved_turns]
    if not running:
        return {}
    rows = Turn.objects.filter(functools.reduce(operator.or_, (
        Q(match_id=m.pk, number=m.resolved_turns) for m in running)))
    return {match_id: rules.headline(scores)
            for match_id, scores in rows.values_list("match_id", "scores")}


def _planned_rounds(tournament: Tournament, fixtures: Sequence[Fixture], count: int,
                    knockout: list[dict[str, Any]]) -> int:
    if tournament.format == Tournament.SWISS:
        return tournament.rounds or 0
    if tournament.format == Tournament.ROUND_ROBIN:
        return max((f.round for f in fixtures), default=0)
    group_rounds = max((f.round for f in fixtures if f.stage == Fixture.GROUP), default=0)
    if tournament.format == Tournament.GROUPS and not knockout:
        qualified = tournament.groups * tournament.advance
        return group_rounds + max(1, (max(qualified, 2) - 1).bit_length())
    return group_rounds + len(knockout)


def _fixture_entry(fixture: Fixture, entrants: Sequence[Entrant],
                   matches: dict[int, list[MatchLine]], now: datetime, rules,
                   live: dict[int, list[int]]) -> dict[str, Any]:
    """A fixture as the schedule and the bracket show it (`live`: the running matches'
    headline numbers)."""
    played = matches.get(fixture.pk, [])
    shown = [{"id": m.pk, "status": m.status, "turn": m.resolved_turns, "turns": m.turns,
              "headline": live.get(m.pk), "void": m.void} for m in played]
    if fixture.bye:
        state = "bye"
    elif fixture.finished:
        state = "finished"
    elif any(m["status"] == Match.RUNNING for m in shown):
        state = "live"
    elif played and all(m["status"] == Match.FINISHED for m in shown) and \
            len(played) >= fixture.planned:
        state = "judge"  # drawn too often: a judge decides
    elif any(m["status"] == Match.UPCOMING for m in shown):
        state = "starting"
    else:
        state = "upcoming"
    headline = rules.headline_part
    points = [p.get(headline) for p in fixture.points] if len(fixture.points) == 2 else None
    return {
        "id": fixture.pk, "round": fixture.round, "stage": fixture.stage,
        "group": fixture.group, "a": entrants[fixture.team_a],
        "b": None if fixture.bye else entrants[fixture.team_b],
        "winner": None if fixture.winner is None else entrants[fixture.winner],
        "finished": fixture.finished, "state": state, "matches": shown,
        "live_match": next((m["id"] for m in shown if m["status"] == Match.RUNNING), None),
        "points": points, "unit": words.part(headline), "decided_by": fixture.decided_by,
        "note": fixture.note,
    }
