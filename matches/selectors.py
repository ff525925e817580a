"""Read queries shared by the API, the pages and the websocket consumers.

Nothing here ever reads a submission of a turn that is not resolved yet: the
public views are built from Turn rows and counted submissions only. The one
exception, `own_submission`, answers a team about its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from matches.caches import Kept, identity
from matches.models import Match, Submission, Team
from matches.rules import rules_for
from matches.rules.base import match_wins
from matches.rules.records import MatchRecord, first_difference
from matches.rules.timeline import compute_timeline


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def match_record(match: Match, upto: int | None = None) -> MatchRecord:
    """The match-record/1 of a match: the counted submissions of its resolved turns."""
    upto = match.resolved_turns if upto is None else upto
    actions: list[list[list[dict]]] = [[[], []] for _ in range(upto)]
    counted = Submission.objects.filter(match=match, counted=True, turn__lte=upto)
    for turn, index, team_actions in counted.values_list("turn", "team__index", "actions"):
        actions[turn - 1][index] = team_actions
    teams = tuple({"name": name} for name in match.teams.values_list("name", flat=True))
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


def latest_view(match: Match) -> dict[str, Any]:
    """The state after the last resolved turn (turn 0: the empty board)."""
    row = match.turn_rows.order_by("-number").first()
    return row.state() if row else initial_view(match)


def next_deadline(match: Match, now: datetime) -> datetime | None:
    """The deadline of the strategy step now open, or of the next one to open (an
    alternating game's: when the mover's thinking time runs out)."""
    if match.over:
        return None
    if match.alternating:
        return move_clock(match, now)["deadline"]
    turn = match.next_turn_to_open(now)
    return match.deadline(turn) if turn <= match.turns else None


def move_clock(match: Match, now: datetime, upto: int | None = None) -> dict[str, Any] | None:
    """An alternating game's chess clocks at `now` (None for a simultaneous game), or
    as they stood when turn `upto` was resolved: `to_move`, the team whose move it is
    (None once over); `remaining_ms`, each team's thinking time left; `deadline`, when
    the mover's runs out. The time from one turn's resolution (or the start) to the next
    is charged to that turn's mover."""
    if not match.alternating:
        return None
    rules = rules_for(match.game)
    latest = upto is None or upto >= match.resolved_turns
    upto = match.resolved_turns if upto is None else upto
    used, last = _time_used(match, upto)
    remaining = [match.clock_ms - spent for spent in used]
    to_move = None if latest and match.over else rules.mover(upto + 1)
    deadline = None
    if to_move is not None:
        deadline = last + timedelta(milliseconds=remaining[to_move])
        if latest and now > last:
            remaining[to_move] -= (now - last).total_seconds() * 1000
    elif (match.result or {}).get("decided_by") == "time":
        remaining[1 - match.result["winner"]] = 0
    return {"to_move": to_move, "remaining_ms": [max(0, round(left)) for left in remaining],
            "deadline": deadline}


# Each team's thinking time used up to a turn, per (match's identity, its start, turn):
# stored turns never change, and every message of a move asks for it several times.
TIME_USED = Kept("thinking time used", entries=1024)


def _time_used(match: Match, upto: int) -> tuple[tuple[float, float], datetime]:
    """The ms each team's moves of turns 1..upto took, and when turn `upto` was resolved
    (the start for 0): a turn's time runs from the previous one's resolution."""
    key = (identity(match), match.start_at, upto)
    kept = TIME_USED.peek(key)
    if kept is not None:
        return kept
    rules = rules_for(match.game)
    used, last, stored = [0.0, 0.0], match.start_at, 0
    for number, resolved_at in match.turn_rows.filter(number__lte=upto).order_by(
            "number").values_list("number", "resolved_at"):
        used[rules.mover(number)] += (resolved_at - last).total_seconds() * 1000
        last, stored = resolved_at, number
    if stored == upto:  # every turn up to it is stored, for good
        TIME_USED.put(key, ((used[0], used[1]), last))
    return (used[0], used[1]), last


def move_clock_fields(match: Match, now: datetime, upto: int | None = None) -> dict[str, Any]:
    """`to_move` and `clocks` (each team's thinking time left, ms) of an alternating
    game's moment (or after turn `upto`); both null for a simultaneous game."""
    clock = move_clock(match, now, upto)
    if clock is None:
        return {"to_move": None, "clocks": None}
    return {"to_move": clock["to_move"], "clocks": clock["remaining_ms"]}


def match_meta(match: Match) -> dict[str, Any]:
    return {
        "id": match.pk,
        "game": match.game,
        "title": str(match),
        "turns": match.turns,
        # a secret board's number of agents is part of the secret (its start cells)
        "agents": None if match.board_hidden(timezone.now()) else match.agents,
        "strategy_ms": match.strategy_ms,
        "transition_ms": match.transition_ms,
        "clock_ms": match.clock_ms,  # each team's thinking time: alternating games only
        "start_at": epoch_ms(match.start_at),
        "teams": [{"index": t.index, "name": t.name, "short": t.short}
                  for t in match.teams.all()],
        "board": board_shown(match),
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
    finals = games_in_order(games, games.index(match), rules)
    return {"game": games.index(match) + 1, "of": first.match_games,
            "ids": [game.pk for game in games],
            "headlines": [rules.headline(scores) for scores, _ in finals],
            "wins": match_wins([final for final in finals if final[1]]), "by": rules.match_by}


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
        **move_clock_fields(match, now),
        "result": match.result,
        "leader": rules.leader(scores, match.result),
        "lead": rules.lead(scores, match.result),
        **_verdicts_now(match, scores),
    }


# A finished match's verdict in every language, per (match's identity, its last turn,
# its result): every snapshot and summary of it carries them.
_VERDICTS = Kept("verdicts", entries=1024)


def _verdicts_now(match: Match, scores: list[dict[str, int]]) -> dict[str, Any]:
    """`verdict` in the active language and `verdicts` in every one (None before the
    end)."""
    if match.result is None:
        return {"verdict": None, "verdicts": None}
    key = (identity(match), match.resolved_turns, repr(match.result), repr(scores))
    said = _VERDICTS.get(key, lambda: verdicts(match, scores))
    language = translation.get_language() or settings.LANGUAGE_CODE
    return {"verdict": said.get(language[:2]) or verdict(match, scores), "verdicts": said}


def final_result(match: Match, scores: list[dict[str, int]],
                 game_result: dict[str, Any]) -> dict[str, Any]:
    """A game's result as its rules decide it, and, when this game decides a match of
    several, what the match's result adds (the rules' `match_result`: Procon 2020's
    totals summed in place of the game's winner; a best of three's `match`)."""
    first = match.first_game or match
    if first.match_games == 1:
        return game_result
    rules = rules_for(match.game)
    games = match_games(first)
    this = games.index(match)
    finals = games_in_order(games[:this], this, rules) + [(scores, game_result)]
    return {**game_result, **rules.match_result(finals, first.match_games)}


def every_language(build: Callable[[], Any]) -> dict[str, Any]:
    """What `build` says in each of the site's languages ({"ja", "vi", "en"}): the words a
    message carries to every viewer of a match, each screen showing its own language."""
    said = {}
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            said[code] = build()
    return said


def verdicts(match: Match, scores: list[dict[str, int]]) -> dict[str, str] | None:
    """`verdict` in every language; None before the end."""
    if match.result is None:
        return None
    return every_language(lambda: verdict(match, scores))


def verdict(match: Match, scores: list[dict[str, int]]) -> str | None:
    """The end of a match in plain words ("Alpha wins by 34 points"); None before it."""
    if match.result is None:
        return None
    names = [team.name for team in match.teams.all()]
    rules = rules_for(match.game)
    words = rules.verdict(match.result, scores, names)
    of_match = rules.match_verdict(match.result, names)
    return f"{words} · {of_match}" if of_match else words


def latest_scores(match: Match) -> list[dict[str, int]]:
    """The scores after the last resolved turn (turn 0: before any)."""
    last = match.turn_rows.order_by("-number").values_list("scores", flat=True).first()
    return last or initial_view(match)["scores"]


def public_state(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """GET /api/matches/{id}: the match as everyone may see it."""
    now = now or timezone.now()
    rows = match.turn_rows.order_by("number").values_list("number", "outcomes")
    state = latest_view(match)
    return {
        **match_meta(match),
        **timing(match, now, state["scores"]),
        "state": state,
        "actions": [{"turn": number, "outcomes": outcomes} for number, outcomes in rows],
    }


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
        "board": board_shown(match, now)["name"],
        "turns": match.turns,
        "scores": scores,
        "headline": rules_for(match.game).headline(scores),
        **timing(match, now, scores),
    }


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
    rows = match.turn_rows.filter(number__lte=upto).order_by("number")
    if not rules_for(match.game).drawing_history:
        rows = rows.filter(number__gte=upto - 1)
    states = [row.state() for row in rows]
    return [initial_view(match), *states] if upto <= 1 or not states or \
        states[0]["turn"] == 1 else states


def score_history(match: Match) -> list[dict[str, Any]]:
    rows = match.turn_rows.order_by("number").values_list("number", "scores")
    first = initial_view(match)["scores"]
    return [{"turn": 0, "scores": first}] + [{"turn": n, "scores": s} for n, s in rows]


# --- records, stored timelines and the judges' verification -------------------------

@dataclass(frozen=True)
class Verdict:
    verified: bool
    turns: int
    detail: str  # "" when verified, else where the stored turns first differ

    def __str__(self) -> str:
        if self.verified:
            return f"verified: {self.turns} stored turns equal the replay of the record"
        return f"differs: {self.detail}"


def match_export(match: Match) -> dict[str, Any]:
    return match_record(match).to_json()


def stored_timeline(match: Match) -> dict[str, Any]:
    """The timeline/1 as stored: the empty board, then every Turn row."""
    states = [initial_view(match)]
    for row in match.turn_rows.order_by("number"):
        states.append(row.state() | {"outcomes": row.outcomes})
    timeline = {"format": "timeline/1", "game": match.game, "states": states}
    if match.result is not None:
        timeline["result"] = match.result
    return timeline


def match_verify(match: Match) -> Verdict:
    stored = stored_timeline(match)
    replayed = compute_timeline(match_record(match))
    if match.board_hidden(timezone.now()):  # its empty board is stored veiled: so the replay's
        replayed["states"][0] = veiled_view(replayed["states"][0])
    if not match.over:
        replayed.pop("result", None)  # a running match has no result yet
    elif (match.result or {}).get("decided_by") == "time" and "result" not in replayed:
        replayed["result"] = match.result  # lost on time: the clocks decided, not a move
    elif "result" in replayed:  # a game of several: the match's result, from every game
        replayed["result"] = final_result(match, replayed["states"][-1]["scores"],
                                          replayed["result"])
    difference = first_difference(replayed, stored)
    detail = f"{difference} (expected: the replay; computed: the stored turns)"
    return Verdict(difference is None, len(stored["states"]) - 1, detail if difference else "")


# --- replay -----------------------------------------------------------------------

# The replay marks a turn on its timeline when the score difference (A − B) moves by
# at least this much, or by three quarters of what one team's agents would gain by
# each walling a cell of the board's mean |point| value, whichever is more.
SWING_AT_LEAST = 10


def swing_threshold(match: Match, now: datetime | None = None) -> int:
    """The change of the score difference in one turn that counts as a big swing (while
    a board is secret, nothing derived from its points or agents: the least)."""
    if match.board_hidden(now or timezone.now()):
        return SWING_AT_LEAST
    values = [abs(value) for row in match.board.data.get("points", []) for value in row]
    mean = sum(values) / len(values) if values else 0
    return max(SWING_AT_LEAST, round(0.75 * match.agents * mean))


def conflict_threshold(match: Match, now: datetime | None = None) -> int:
    """Conflicts in one turn (both teams) that count as many: one team's agent count
    (2 while a secret board's is unknown)."""
    if match.board_hidden(now or timezone.now()):
        return 2
    return max(2, match.agents)


def replay_data(match: Match, now: datetime | None = None,
                states: bool = True) -> dict[str, Any]:
    """The replay page's data: the match, the empty board, then every stored turn
    (Turn rows only: nothing of a turn still being played), the result in words in
    every language (`verdicts`, as the live protocol's; `verdict` in English) and the
    mark thresholds (`states=False`: all but the states, which `reads.replay_text`
    joins itself)."""
    now = now or timezone.now()
    said = verdicts(match, latest_scores(match)) if match.result is not None else None
    data = {
        **match_meta(match),
        "status": match.status(now),
        "result": match.result,
        "verdict": said and said["en"],
        "verdicts": said,
        "marks": {"swing": swing_threshold(match, now),
                  "conflicts": conflict_threshold(match, now)},
    }
    if states:
        rows = match.turn_rows.order_by("number")
        data["states"] = [initial_view(match)] + [row.state() for row in rows]
    return data


def own_submission(match: Match, team: Team, now: datetime) -> dict[str, Any]:
    """GET /api/matches/{id}/actions, for that team only: the open strategy step and the
    team's submission that will count for it (its last accepted one; None: none yet)."""
    turn = match.strategy_turn(now)
    mine = (Submission.objects.filter(match=match, team=team, turn=turn, status_code=202)
            .order_by("-received_at", "-id").first()
            if turn else None)
    return {"turn": turn, "received_at": epoch_ms(mine.received_at) if mine else None,
            "actions": mine.actions if mine else None}
