"""What a match is at a moment, as the API, the pages and the sockets show it: its
meta, its timing (status, deadline, leader, verdict), its public state and summary, and
a team's own submission for the open step (the one read of a turn not yet resolved:
that team's own)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from matches.access import public_filter
from matches.access.delay import DELAY_MAX_S, delayed
from matches.models import Match, Submission, Team
from matches.rules import rules_for
from matches.rules.base import match_wins
from matches.selectors.clocks import move_clock_fields, next_deadline, paused_now
from matches.selectors.records import (
    board_name_shown,
    board_shown,
    epoch_ms,
    games_in_order,
    latest_scores,
    latest_view,
    match_games,
    stored_turns,
    view_before,
)
from matches.selectors.verdicts import every_language, verdicts_now


def match_meta(match: Match) -> dict[str, Any]:
    return {
        "id": match.pk,
        "game": match.game,
        "title": str(match),
        # in every language: an untitled match is "Match 12" in each screen's own words
        "titles": every_language(lambda: str(match)),
        "turns": match.turns,
        # a secret board's number of agents is part of the secret (its start cells)
        "agents": None if match.board_hidden(timezone.now()) else match.agents,
        "strategy_ms": match.strategy_ms,
        "transition_ms": match.transition_ms,
        "clock_ms": match.clock_ms,  # each team's thinking time: alternating games only
        # how far behind this view of it is (the public's, with a spectator delay), s
        "behind_s": int(match.shown_late.total_seconds()),
        "start_at": epoch_ms(match.start_at),
        "teams": [{"index": t.index, "name": t.name, "short": t.short}
                  for t in match.teams.all()],
        "board": board_shown(match),
        "headline": rules_for(match.game).headline_part,  # the score part on the cards
        "game_of_match": game_of_match(match),
    }


def game_of_match(match: Match) -> dict[str, Any] | None:
    """Which game of a several-game match this is, every game's headline so far and the
    games each team has won so far (in this game's team order: CHaser's teams swap sides
    every game), e.g. `{"game": 2, "of": 2, "ids": [7, 8], "headlines": [[120, 96], [0, 0]],
    "wins": [1, 0], "by": "totals"}`; None for a one-game match."""
    first = match.first_game or match
    if first.match_games == 1:
        return None
    rules = rules_for(match.game)
    games = match_games(first)
    if match.shown_late:  # the public's: every game of it as far behind as this one
        games = [delayed(game) for game in games]
    finals = games_in_order(games, games.index(match), rules)
    return {"game": games.index(match) + 1, "of": first.match_games,
            "ids": [game.pk for game in games],
            "headlines": [rules.headline(scores) for scores, _ in finals],
            "wins": match_wins([final for final in finals if final[1]]), "by": rules.match_by}


def leads(match: Match, scores: list[list[dict[str, int]]]) -> list[dict[str, Any]]:
    """Who leads after each of a match's turns and the bar's share (its rules' `lead`),
    for each turn's `scores` in order; the last decided by the result once the match is
    over and `scores` reach its end (a game can be won otherwise than on points). What
    the replay draws: the screens never work out a lead themselves."""
    rules = rules_for(match.game)
    final = match.result is not None and len(scores) == match.resolved_turns + 1
    return [rules.lead(each, match.result if final and turn == len(scores) - 1 else None)
            for turn, each in enumerate(scores)]


def timing(match: Match, now: datetime,
           scores: list[dict[str, int]] | None = None) -> dict[str, Any]:
    """The match's moment: status, turns, deadline, result, and who leads (from the
    latest `scores`, read here when the caller has not): `leader`, and `lead` with the
    bar's share; once ended, `verdict`: the result in plain words."""
    turn = match.strategy_turn(now)
    rules = rules_for(match.game)
    scores = latest_scores(match) if scores is None else scores
    return {
        "status": match.status(now),
        "turn": match.resolved_turns,
        "strategy_turn": turn,
        "deadline": epoch_ms(next_deadline(match, now)),
        "server_time": epoch_ms(now),
        "paused": paused_now(match),
        **move_clock_fields(match, now),
        "result": match.result,
        "leader": rules.leader(scores, match.result),
        "lead": rules.lead(scores, match.result),
        **verdicts_now(match, scores),
    }


def public_state(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """GET /api/matches/{id}: the match as everyone may see it."""
    now = now or timezone.now()
    rows = stored_turns(match).order_by("number").values_list("number", "outcomes")
    state = latest_view(match)
    return {
        **match_meta(match),
        **timing(match, now, state["scores"]),
        "state": state,
        "last": last_marks(match, state),
        "actions": [{"turn": number, "outcomes": outcomes} for number, outcomes in rows],
    }


def last_marks(match: Match, state: dict[str, Any]) -> dict[str, list[Any]]:
    """What the screens mark on the board of `state`'s turn (its rules' `last_turn`,
    from the state before it where the turn needs it)."""
    before = view_before(match, state["turn"]) if state.get("turn") else None
    return rules_for(match.game).last_turn(state, before)


def match_summary(match: Match, now: datetime,
                  scores: list[dict[str, int]] | None = None) -> dict[str, Any]:
    """One line of the list of matches: its scores (the latest, read here when the caller
    has not), each team's one number (`headline`) and who leads, as the game's rules say."""
    scores = latest_scores(match) if scores is None else scores
    return {
        "id": match.pk,
        "game": match.game,
        "title": str(match),
        "teams": [t.name for t in match.teams.all()],
        "board": board_name_shown(match, now),
        "turns": match.turns,
        "scores": scores,
        "headline": rules_for(match.game).headline(scores),
        **timing(match, now, scores),
    }


def own_submission(match: Match, team: Team, now: datetime) -> dict[str, Any]:
    """GET /api/matches/{id}/actions, for that team only: the open strategy step and the
    team's submission that will count for it (its last accepted one; None: none yet)."""
    turn = match.strategy_turn(now)
    mine = (Submission.objects.filter(match=match, team=team, turn=turn, status_code=202)
            .order_by("-received_at", "-id").first()
            if turn else None)
    return {"turn": turn, "received_at": epoch_ms(mine.received_at) if mine else None,
            "actions": mine.actions if mine else None}


def featured_match(now: datetime, tournament: int | None = None) -> Match | None:
    """What the TV shows: the public live match that started last (the one with the most
    still to play), else the next public match to start; None when nothing is on. With
    a tournament, its matches only: the TV follows its current round."""
    public = Match.objects.filter(public_filter()).select_related("board", "fixture__tournament")
    if tournament is not None:
        public = public.filter(fixture__tournament_id=tournament)
    # as the public sees them: a match with a spectator delay that ended in the last
    # delay is running still to them (and the TV stays with it)
    ending = public.finished().filter(delay_s__gt=0, ended_at__gt=now - timedelta(
        seconds=DELAY_MAX_S))
    seen = [delayed(match, now) for match in [
        *public.running(now), *ending, *public.upcoming(now).order_by("start_at", "pk")[:20]]]
    running = [match for match in seen if match.status(now) == Match.RUNNING]
    if running:
        return max(running, key=lambda match: (match.start_at - match.shown_late, match.pk))
    upcoming = [match for match in seen if match.status(now) == Match.UPCOMING]
    return min(upcoming, key=lambda match: (match.start_at, match.pk), default=None)
