"""Every message a websocket sends, one builder per message type (docs/live-protocol.md).

Versioned messages (`snapshot`, `turn`, `end`) carry the turn number; throwaway ones
(`viewers`, `matches`, `summary`, `error`) carry none. Nothing else in the project builds
a socket message: the consumers and the broadcast call these.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.utils import timezone, translation

from matches import selectors
from matches.caches import Kept, identity
from matches.models import Match, Turn
from matches.rules import GameRules, rules_for
from matches.selectors.notices import for_everyone


def turn(match: Match, row: Turn, now: datetime,
         before: dict[str, Any] | None = None) -> dict[str, Any]:
    """One transition: a timeline/1 state plus the next deadline and the server's time,
    who leads (`lead`), the side panel's parts (`panel`) as the game's rules say, the
    outcomes' reasons in every language (`reasons`), what mattered in the turn
    (`callouts`, in every language) and what the screens mark of it on the board
    (`last`, the rules' `last_turn`), how it moved the score difference (`swing`, the
    rules' `swing`) and what a screen must remember of it (the rules' `drawing_news`,
    for a game whose drawing remembers earlier turns; `before`: the turn before's
    state, read here when the caller has not)."""
    state = row.state()
    rules = rules_for(match.game)
    if before is None and row.number:
        before = selectors.view_before(match, row.number)
    names = None if _quiet(before, state) else [team.name for team in match.teams.all()]
    said = selectors.every_language(lambda: (  # (one pass over the languages for both)
        rules.panel(state),
        names and selectors.callouts_this_language(rules, before, state, names)))
    panels = {code: panel for code, (panel, _) in said.items()}
    return {
        "type": "turn",
        "match": match.pk,
        **state,
        "lead": rules.lead(state["scores"]),
        "panel": panels["en"],
        "panels": panels,
        "reasons": selectors.reasons_said(state.get("outcomes")),
        "last": rules.last_turn(state, before),
        "swing": before and rules.swing(before["scores"], state["scores"]),
        "callouts": names and selectors.callouts_unless_quiet(
            {code: callouts for code, (_, callouts) in said.items()}),
        "deadline": selectors.epoch_ms(_deadline_after(match, row.number, now)),
        "server_time": selectors.epoch_ms(now),
        **selectors.move_clock_fields(match, now, row.number),
        **(rules.drawing_news(match.board.data, state) if rules.drawing_history else {}),
    }


def _callouts(match: Match, before: dict[str, Any] | None,
              state: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | None:
    """What the game's rules find notable in the turn from `before` to `state`, in every
    language; None before the first turn."""
    if _quiet(before, state):
        return None
    names = [team.name for team in match.teams.all()]
    return selectors.callouts_every_language(match.game, before, state, names)


def _quiet(before: dict[str, Any] | None, state: dict[str, Any]) -> bool:
    """No turn between `before` and `state` to call out (before the first turn)."""
    return before is None or before is state or before.get("turn") == state.get("turn")


def _deadline_after(match: Match, number: int, now: datetime) -> datetime | None:
    """The next deadline after turn `number`: the next strategy step's, or when the
    next mover's thinking time runs out (none after the last turn)."""
    if match.alternating:
        return selectors.move_clock(match, now, number)["deadline"]
    return match.deadline(number + 1) if number < match.turns else None


def turns_since(match: Match, since: int, now: datetime) -> list[dict[str, Any]]:
    """The `turn` messages after turn `since`, in order (a reconnecting client's catch-up)."""
    rows = selectors.stored_turns(match).filter(number__gt=since).order_by("number")
    return [turn(match, row, now) for row in rows]


def end(match: Match, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """The result, who won (`lead`) and the result in plain words (`verdict`). `state`:
    the last turn's timeline/1 state, when the caller has it (the transition that just
    stored it): nothing is read back then."""
    scores = state["scores"] if state is not None else selectors.latest_scores(match)
    verdicts = selectors.verdicts(match, scores)
    return {"type": "end", "match": match.pk, "turn": match.resolved_turns,
            "result": match.result,
            "lead": rules_for(match.game).lead(scores, match.result),
            "verdict": verdicts and verdicts["en"], "verdicts": verdicts,
            "decisive": _decisive(match, state)}


def _decisive(match: Match, state: dict[str, Any] | None = None) -> list[list[int]]:
    """The cells that decided a finished match (its rules say which), to mark at the end."""
    if match.result is None or match.board_hidden(timezone.now()):
        return []
    state = state or selectors.latest_view(match)
    return rules_for(match.game).decisive(state, match.result)


# The parts of a snapshot that change only with a turn, per (match, turn), and their
# JSON text: a crowd connecting at once costs one set of queries and one encoding, not
# one per viewer.
_SNAPSHOTS = Kept("snapshots", entries=256, limit=128 << 20)


def _snapshot_parts(match: Match, now: datetime) -> tuple[dict[str, Any], str]:
    key = (identity(match), match.start_at, match.resolved_turns, match.board_hidden(now),
           repr(match.result))

    def build() -> tuple[dict[str, Any], str]:
        state = selectors.latest_view(match)
        rules = rules_for(match.game)
        panels = selectors.every_language(lambda: rules.panel(state))
        hidden = match.board_hidden(timezone.now()) or not match.resolved_turns
        before = None if hidden else selectors.view_before(match, match.resolved_turns)
        parts = {"match": selectors.match_meta(match), "state": state, "panel": panels["en"],
                 "panels": panels, "reasons": selectors.reasons_said(state.get("outcomes")),
                 "last": rules.last_turn(state, before),
                 "callouts": _callouts(match, before, state),
                 "decisive": _decisive(match, state),
                 "history": selectors.score_history(match),
                 **_drawing_extras(match)}
        return parts, json.dumps(parts, separators=(",", ":"))[1:-1]

    return _SNAPSHOTS.get(key, build)


def _moment(match: Match, now: datetime) -> dict[str, Any]:
    with translation.override("en"):  # `verdict` in English; `verdicts` in every language
        return {**selectors.timing(match, now), "notices": for_everyone()}


def snapshot(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """The first message on a socket: meta, the latest state, the chart, the clock."""
    now = now or timezone.now()
    return {"type": "snapshot", **_snapshot_parts(match, now)[0], **_moment(match, now)}


def snapshot_text(match: Match, now: datetime | None = None) -> dict[str, Any]:
    """`snapshot` as the consumers send it: `{"type", "turn", "text"}`, the text joined
    from the kept encoding of what changes only with a turn and the moment's fields."""
    now = now or timezone.now()
    moment = _moment(match, now)
    head = json.dumps({"type": "snapshot", **moment}, separators=(",", ":"))
    return {"type": "snapshot", "turn": moment["turn"],
            "text": head[:-1] + "," + _snapshot_parts(match, now)[1] + "}"}


def _drawing_extras(match: Match) -> dict[str, Any]:
    """What a screen joining late cannot tell from the latest state alone (the game's
    rules say what: Procon 2020's treasures already taken, say)."""
    if match.board_hidden(timezone.now()):
        return {}
    return rules_for(match.game).drawing_extras(match.board.data,
                                                 selectors.drawing_states(match))


def step(turn: int, team: int, command: str | None, result: str, state: dict[str, Any], *,
         rules: GameRules | None = None, reason: str = "", cells=None,
         before: dict[str, Any] | None = None) -> dict[str, Any]:
    """One player's step of a game its protocol server plays (docs/live-protocol.md,
    `step`): the command, what became of it, the position after, and, as the game's
    `rules` say of that position, who leads (`lead`) and the cards' words (`panel`,
    `panels`), so a screen never shows a step's number beside a turn's words, and what
    the screens mark of the step on the board (`last`, the rules' `last_turn` of the
    position with this step as its one outcome, played on `before`, the position
    before the step); `reason` for a fault, `cells` the cells a look or a search
    read."""
    message = {"type": "step", "turn": turn, "team": team, "command": command,
               "result": result, "state": state}
    if rules is not None:
        panels = selectors.every_language(lambda: rules.panel(state))
        outcomes: list[list[dict[str, Any]]] = [[], []]
        outcomes[team] = [{"command": command, "result": result}]
        message.update(lead=rules.lead(state["scores"]), panel=panels["en"], panels=panels,
                       last=rules.last_turn({**state, "outcomes": outcomes}, before))
    if reason:
        message["reason"] = reason
        message["reasons"] = selectors.reasons_said([[{"reason": reason}]])
    if cells is not None:
        message["cells"] = [list(cell) for cell in cells]
    return message


def viewers(count: int) -> dict[str, Any]:
    return {"type": "viewers", "count": count}


def matches(summaries: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    """The first message on the list socket: every match the viewer may see."""
    return {"type": "matches", "matches": summaries, "server_time": selectors.epoch_ms(now)}


def summary(match: Match, now: datetime,
            scores: list[dict[str, int]] | None = None) -> dict[str, Any]:
    """One match's line of the list, after a transition (whose `scores` the caller has)
    or a change of visibility."""
    return {"type": "summary", "match": selectors.match_summary(match, now, scores)}


def withdrawn(match: Match) -> dict[str, Any]:
    """A judge took a public match back: the lists drop its line, and the sockets of
    those who may no longer watch it are closed (4404) after this message."""
    return {"type": "withdrawn", "match": match.pk}


def error(code: str, detail: str) -> dict[str, Any]:
    """Why a socket is about to be closed (with a 44xx close code), as the API's errors."""
    return {"type": "error", "error": code, "detail": detail}


def control(match: Match, action: str, now: datetime) -> dict[str, Any]:
    """The judges' hand on a running match (services/control.py): `action` (`paused`,
    `resumed`, `extended`), the pause if it is held (`since`, `reason`, `remaining_ms`),
    its start and next deadline as they are now, and an alternating game's clocks."""
    return {"type": "control", "action": action, "paused": selectors.paused_now(match),
            "start_at": selectors.epoch_ms(match.start_at),
            "deadline": selectors.epoch_ms(selectors.next_deadline(match, now)),
            "server_time": selectors.epoch_ms(now), **selectors.move_clock_fields(match, now)}


def notices(up: list[dict[str, Any]]) -> dict[str, Any]:
    """The judges' announcements to everyone, as they are now (newest first): each
    `{"id", "text", "at"}`; an empty list when the last was taken down."""
    return {"type": "notices", "notices": up}


def changed(page: str, key: int | None, version: int) -> dict[str, Any]:
    """A page's live data changed (`page`: "tournament", "room"; `key`: which one, the
    tournament's id): a client whose copy is older than `version` (epoch ms from which a
    read shows the change) reads it again once, at that moment."""
    return {"type": "changed", "page": page, "key": key, "version": version}


def line(summary_of: dict[str, Any], tournament_id: int) -> dict[str, Any]:
    """A match of a tournament after a turn, as its page's schedule shows it (`summary_of`:
    the match's summary): its status, turn and each team's one number. Throwaway: the
    next one replaces it."""
    return {"type": "line", "tournament": tournament_id, "match": summary_of["id"],
            "status": summary_of["status"], "turn": summary_of["turn"],
            "turns": summary_of["turns"], "headline": summary_of["headline"]}


def next_game(games: list[int]) -> dict[str, Any]:
    """A later game of a match of several was made: the match's games so far, in order
    (their ids), to the sockets of the games before it (a venue screen moves on to the
    next one, a team's play page offers it). Throwaway: it carries no turn."""
    return {"type": "next_game", "games": games}
