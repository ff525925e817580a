"""Read queries shared by the API, the pages and the websocket consumers.

Nothing here ever reads a submission of a turn that is not resolved yet: the
public views are built from Turn rows and counted submissions only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from matches.models import Match, Submission, Turn
from matches.rules import rules_for
from matches.rules.procon2020 import treasures_taken
from matches.rules.records import MatchRecord


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
    """The empty board before turn 1 (the rules need no team names for it)."""
    rules = rules_for(match.game)
    return rules.view(rules.initial_state(_record(match, ({"name": ""}, {"name": ""}), [])))


def latest_view(match: Match) -> dict[str, Any]:
    """The state after the last resolved turn (turn 0: the empty board)."""
    row = match.turn_rows.order_by("-number").first()
    return row.state() if row else initial_view(match)


def next_deadline(match: Match, now: datetime) -> datetime | None:
    """The deadline of the strategy step now open, or of the next one to open."""
    if match.over:
        return None
    turn = match.next_turn_to_open(now)
    return match.deadline(turn) if turn <= match.turns else None


def match_meta(match: Match) -> dict[str, Any]:
    return {
        "id": match.pk,
        "game": match.game,
        "title": str(match),
        "turns": match.turns,
        "agents": match.agents,
        "strategy_ms": match.strategy_ms,
        "transition_ms": match.transition_ms,
        "start_at": epoch_ms(match.start_at),
        "teams": [{"index": t.index, "name": t.name} for t in match.teams.all()],
        "board": {"name": match.board.name, **match.board.data},
    }


def timing(match: Match, now: datetime) -> dict[str, Any]:
    turn = match.strategy_turn(now)
    return {
        "status": match.status(now),
        "turn": match.resolved_turns,
        "strategy_turn": turn,
        "deadline": epoch_ms(next_deadline(match, now)),
        "server_time": epoch_ms(now),
        "result": match.result,
    }


def public_state(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """GET /api/matches/{id}: the match as everyone may see it."""
    now = now or timezone.now()
    rows = match.turn_rows.order_by("number").values_list("number", "outcomes")
    return {
        **match_meta(match),
        **timing(match, now),
        "state": latest_view(match),
        "actions": [{"turn": number, "outcomes": outcomes} for number, outcomes in rows],
    }


def match_summary(match: Match, now: datetime) -> dict[str, Any]:
    """One line of the list of matches."""
    last = match.turn_rows.order_by("-number").values_list("scores", flat=True).first()
    return {
        "id": match.pk,
        "game": match.game,
        "title": str(match),
        "teams": [t.name for t in match.teams.all()],
        "board": match.board.name,
        "turns": match.turns,
        "scores": last or initial_view(match)["scores"],
        **timing(match, now),
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


def turn_message(match: Match, row: Turn, now: datetime) -> dict[str, Any]:
    """The websocket message of one transition: a timeline/1 state plus timing."""
    return {
        "type": "turn",
        "match": match.pk,
        **row.state(),
        "deadline": epoch_ms(match.deadline(row.number + 1)) if row.number < match.turns else None,
        "server_time": epoch_ms(now),
    }


def turn_messages_since(match: Match, since: int, now: datetime) -> list[dict[str, Any]]:
    rows = match.turn_rows.filter(number__gt=since).order_by("number")
    return [turn_message(match, row, now) for row in rows]


def score_history(match: Match) -> list[dict[str, Any]]:
    rows = match.turn_rows.order_by("number").values_list("number", "scores")
    first = initial_view(match)["scores"]
    return [{"turn": 0, "scores": first}] + [{"turn": n, "scores": s} for n, s in rows]


# The parts of a snapshot that change only with a turn, per (match, turn), so that a
# crowd connecting at once costs one set of queries, not one per viewer.
_SNAPSHOTS: dict[tuple[int, int], dict[str, Any]] = {}


def snapshot(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """The first websocket message: meta, the latest state, the chart, the clock."""
    now = now or timezone.now()
    key = (match.pk, match.resolved_turns)
    if key not in _SNAPSHOTS:
        if len(_SNAPSHOTS) > 256:
            _SNAPSHOTS.clear()
        _SNAPSHOTS[key] = {"match": match_meta(match), "state": latest_view(match),
                           "history": score_history(match), **_drawing_extras(match)}
    return {"type": "snapshot", **_SNAPSHOTS[key], **timing(match, now)}


def _drawing_extras(match: Match) -> dict[str, Any]:
    """What a screen joining late cannot tell from the latest state alone: Procon 2020's
    treasures already taken, as [x, y] cells."""
    if match.game != "procon2020":
        return {}
    states = [initial_view(match), *(row.state() for row in match.turn_rows.order_by("number"))]
    return {"treasures_taken": sorted(treasures_taken(match.board.data, states))}


def viewers_change(match_id: int, change: int) -> int:
    """Count a viewer in (+1) or out (-1); the cache is shared by every server process."""
    key = f"viewers:{match_id}"
    cache.add(key, 0, timeout=None)
    return max(cache.incr(key, change), 0)


def viewers(match_id: int) -> int:
    return max(cache.get(f"viewers:{match_id}", 0), 0)


def viewers_news(match_id: int) -> int | None:
    """The viewer count to tell a match's sockets with a turn: None when they were last
    told the same number (a newcomer hears the count when it connects), so that a
    steady audience is not written a second message per turn."""
    count, key = viewers(match_id), f"viewers-told:{match_id}"
    if cache.get(key) == count:
        return None
    cache.set(key, count, timeout=24 * 3600)
    return count


def end_message(match: Match) -> dict[str, Any]:
    return {"type": "end", "match": match.pk, "turn": match.resolved_turns,
            "result": match.result}


# --- replay -----------------------------------------------------------------------

# The replay marks a turn on its timeline when the score difference (A − B) moves by
# at least this much, or by three quarters of what one team's agents would gain by
# each walling a cell of the board's mean |point| value, whichever is more.
SWING_AT_LEAST = 10


def swing_threshold(match: Match) -> int:
    """The change of the score difference in one turn that counts as a big swing."""
    values = [abs(value) for row in match.board.data.get("points", []) for value in row]
    mean = sum(values) / len(values) if values else 0
    return max(SWING_AT_LEAST, round(0.75 * match.agents * mean))


def conflict_threshold(match: Match) -> int:
    """Conflicts in one turn (both teams) that count as many: one team's agent count."""
    return max(2, match.agents)


def replay_data(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """The replay page's data: the match, the empty board, then every stored turn
    (Turn rows only: nothing of a turn still being played), and the mark thresholds."""
    now = now or timezone.now()
    rows = match.turn_rows.order_by("number")
    return {
        **match_meta(match),
        "status": match.status(now),
        "result": match.result,
        "states": [initial_view(match)] + [row.state() for row in rows],
        "marks": {"swing": swing_threshold(match), "conflicts": conflict_threshold(match)},
    }
