"""A match's stored record and states: the record so far, the board as it may be shown
(a secret field veiled until its game starts), the latest state and scores, the games
of a match, the score history and the lists of matches."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_noop

from matches.models import Match, Submission
from matches.rules import rules_for
from matches.rules.records import MatchRecord


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def match_record(match: Match, upto: int | None = None) -> MatchRecord:
    """The match-record/1 of a match: the counted submissions of its resolved turns."""
    upto = match.resolved_turns if upto is None else upto
    actions: list[list[list[dict]]] = [[[], []] for _ in range(upto)]
    if upto:  # (before turn 1 there is nothing to read)
        counted = Submission.objects.filter(match=match, counted=True, turn__lte=upto)
        for turn, index, team_actions in counted.values_list("turn", "team__index", "actions"):
            actions[turn - 1][index] = team_actions
    teams = tuple({"name": team.name} for team in match.teams.all())  # (prefetched, often)
    return _record(match, teams, actions)


def _record(match: Match, teams: tuple, actions: list) -> MatchRecord:
    return MatchRecord(game=match.game, board=match.board.data, agents=match.agents,
                       turns=match.turns, teams=teams, actions=actions, title=match.title)


def initial_view(match: Match) -> dict[str, Any]:
    """The empty board before turn 1 (the rules need no team names for it); nothing of
    a secret board before its start (`veiled_view`)."""
    rules = rules_for(match.game)
    view = rules.view(rules.initial_state(_record(match, ({"name": ""}, {"name": ""}), [])))
    return veiled_view(view) if match.board_hidden(timezone.now()) else view


# A secret board before its game starts (Procon 2020's second field): shown to no one,
# judges and the match's own teams included. Its size, points, obstacles, treasures and
# start cells are all part of it; so are the scores its start cells would give.
SECRET_BOARD = {"name": gettext_noop("secret field"), "secret": True}


def veiled_view(view: dict[str, Any]) -> dict[str, Any]:
    """A state with nothing of its board: no cells, no agents, every score part 0."""
    return {"turn": view["turn"], "cells": [], "agents": [[], []],
            "scores": [dict.fromkeys(score, 0) for score in view["scores"]]}


def board_shown(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """The board as the pages, sockets and API show it: its name and data, or only
    SECRET_BOARD while it is secret."""
    if match.board_hidden(now or timezone.now()):
        return dict(SECRET_BOARD)
    return {"name": match.board.name, **match.board.data}


def board_name_shown(match: Match, now: datetime | None = None) -> str:
    """`board_shown`'s name alone (a list's line names the board, nothing more)."""
    return SECRET_BOARD["name"] if match.board_hidden(now or timezone.now()) \
        else match.board.name


def stored_turns(match: Match):
    """The match's stored turns as this instance shows them: 1 to its `resolved_turns`
    (a delayed copy's are fewer: access/delay.py). Every read of a match's turns
    goes through here."""
    return match.turn_rows.filter(number__lte=match.resolved_turns)


def latest_view(match: Match) -> dict[str, Any]:
    """The state after the last resolved turn (turn 0: the empty board)."""
    row = stored_turns(match).order_by("-number").first()
    return row.state() if row else initial_view(match)


def latest_scores(match: Match) -> list[dict[str, int]]:
    """The scores after the last resolved turn (turn 0: before any)."""
    last = stored_turns(match).order_by("-number").values_list("scores", flat=True).first()
    return last or initial_view(match)["scores"]


def match_games(first: Match) -> list[Match]:
    """The games of a match so far, in order, from its first."""
    return [first, *first.later_games.order_by("start_at", "pk")]


def games_in_order(games: list[Match], this: int, rules) -> list[tuple[list, dict]]:
    """Each game's latest scores and its result (or {}) in the team order of game index
    `this`: where the teams swap sides every game, the games an odd number apart from
    it are turned round."""
    finals = []
    for index, game in enumerate(games):
        scores, result = latest_scores(game), dict(game.result or {})
        if rules.sides_swap and (index - this) % 2:
            scores = scores[::-1]
            if result.get("winner") is not None:
                result["winner"] = 1 - result["winner"]
        finals.append((scores, result))
    return finals


def recent_matches(now: datetime, matches=None, limit: int = 30) -> list[Match]:
    """Running first, then upcoming (soonest first), then the latest finished, among
    `matches` (a queryset: those the viewer may see; all by default)."""
    matches = Match.objects.all() if matches is None else matches
    related = matches.select_related("board").prefetch_related("teams")
    running = list(related.running(now).order_by("start_at"))
    upcoming = list(related.upcoming(now).order_by("start_at")[:limit])
    finished = list(related.finished().order_by("-start_at")[:limit])
    return running + upcoming + finished


def drawing_states(match: Match, upto: int | None = None) -> list[dict[str, Any]]:
    """The timeline/1 states its rules' `drawing_extras` need for turn `upto` (the
    latest by default), ending with that turn's: every one from the empty board when the
    rules read the history, else the turn's and the one before."""
    upto = match.resolved_turns if upto is None else upto
    rows = stored_turns(match).filter(number__lte=upto).order_by("number")
    if not rules_for(match.game).drawing_history:
        rows = rows.filter(number__gte=upto - 1)
    states = [row.state() for row in rows]
    return [initial_view(match), *states] if upto <= 1 or not states or \
        states[0]["turn"] == 1 else states


def view_before(match: Match, number: int) -> dict[str, Any] | None:
    """The timeline/1 state before turn `number` (1 or more): the empty board before
    turn 1, else turn `number - 1`'s (None if it is not stored)."""
    if number <= 1:
        return initial_view(match)
    row = stored_turns(match).filter(number=number - 1).first()
    return row.state() if row else None


def score_history(match: Match) -> list[dict[str, Any]]:
    rows = stored_turns(match).order_by("number").values_list("number", "scores")
    first = initial_view(match)["scores"]
    return [{"turn": 0, "scores": first}] + [{"turn": n, "scores": s} for n, s in rows]
