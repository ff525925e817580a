"""Records and stored timelines for export, the judges' verification by recompute, and
the replay's data with the thresholds of its marks."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.utils import timezone

from matches.models import Match
from matches.rules import rules_for
from matches.rules.records import first_difference
from matches.rules.timeline import compute_timeline
from matches.selectors.debug import debug_turns
from matches.selectors.moments import leads, match_meta
from matches.selectors.records import (
    initial_view,
    latest_scores,
    match_record,
    score_history,
    stored_turns,
    veiled_view,
)
from matches.selectors.verdicts import final_result, reasons_said, verdicts


@dataclass(frozen=True)
class Verdict:
    verified: bool
    turns: int
    detail: str  # "" when verified, else where the stored turns first differ

    def __str__(self) -> str:
        if self.verified:
            return f"verified: {self.turns} stored turns equal the replay of the record"
        return f"differs: {self.detail}"


def match_export(match: Match, *, debug: bool | None = None) -> dict[str, Any]:
    """The match's record; with its teams' debug output where a judge published it
    with it (or where `debug` says: `exportrecord --debug`)."""
    record = match_record(match)
    if match.debug_public if debug is None else debug:
        record = replace(record, debug=debug_turns(match, [0, 1]))
    return record.to_json()


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
    """Replay the counted submissions and compare with the stored turns. A running match
    goes on while it is read: the match is read afresh (a caller's copy may be turns
    old), and the replay goes as far as the stored turns that were read, not as far as
    the match has got by the time its submissions are."""
    match = Match.objects.select_related("board").get(pk=match.pk)
    stored = stored_timeline(match)
    replayed = compute_timeline(match_record(match, upto=len(stored["states"]) - 1))
    if match.board_hidden(timezone.now()):  # its empty board is stored veiled: so the replay's
        replayed["states"][0] = veiled_view(replayed["states"][0])
    if not match.over:
        replayed.pop("result", None)  # a running match has no result yet
    elif (match.result or {}).get("decided_by") == "void":
        replayed["result"] = match.result  # the judges voided it: its turns still verify
    elif (match.result or {}).get("decided_by") == "time" and "result" not in replayed:
        replayed["result"] = match.result  # lost on time: the clocks decided, not a move
    elif "result" in replayed:  # a game of several: the match's result, from every game
        replayed["result"] = final_result(match, replayed["states"][-1]["scores"],
                                          replayed["result"])
    difference = first_difference(replayed, stored)
    detail = f"{difference} (expected: the replay; computed: the stored turns)"
    return Verdict(difference is None, len(stored["states"]) - 1, detail if difference else "")


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


def biggest_swing(match: Match) -> dict[str, int] | None:
    """The turn that moved the score difference most (the rules' `swing`, as the replay
    marks it), as the TV replays it between matches: {"turn", "team" (who gained),
    "points"}; None for a match with no turn or none that moved the difference by more
    than 1, the least a score moves (a CHaser item: "the biggest swing +1" says nothing
    worth a replay)."""
    history = score_history(match)
    swings = rules_for(match.game).swings([entry["scores"] for entry in history])
    best = None
    for entry, swing in zip(history, swings, strict=True):
        if swing and (best is None or swing["points"] > best["points"]):
            best = {"turn": entry["turn"], **swing}
    return best if best is not None and best["points"] > 1 else None


def conflict_threshold(match: Match, now: datetime | None = None) -> int:
    """Conflicts in one turn (both teams) that count as many: one team's agent count
    (2 while a secret board's is unknown)."""
    if match.board_hidden(now or timezone.now()):
        return 2
    return max(2, match.agents)


def drawing_news_of(match: Match, states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each state's `drawing_news`, as its rules say (nothing while the board is
    secret)."""
    rules = rules_for(match.game)
    if match.board_hidden(timezone.now()) or not rules.drawing_history:
        return [{} for _ in states]
    return [rules.drawing_news(match.board.data, state) for state in states]


def replay_data(match: Match, now: datetime | None = None,
                states: bool = True) -> dict[str, Any]:
    """The replay page's data: the match, the empty board, then every stored turn
    (Turn rows only: nothing of a turn still being played), the result in words in
    every language (`verdicts`, as the live protocol's; `verdict` in English), the
    mark thresholds, and after each turn who leads, what it did on the board, how it
    moved the score difference and what a screen remembers of it (`leads`, `lasts`,
    `swings`, `news`: each as a live turn's `lead`, `last`, `swing` and its rules'
    `drawing_news`) (`states=False`: all but the states and what follows from them,
    which `texts.replay_text` joins itself)."""
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
        rows = stored_turns(match).order_by("number")
        data["states"] = [initial_view(match)] + [row.state() for row in rows]
        data["leads"] = leads(match, [state["scores"] for state in data["states"]])
        # what each turn did on the board, as the screens mark it (the rules' last_turn)
        data["lasts"] = rules_for(match.game).last_turns(data["states"])
        # how each turn moved the score difference (the rules' swing; the marks' measure)
        data["swings"] = rules_for(match.game).swings(
            [state["scores"] for state in data["states"]])
        # what a screen remembers of each turn (Procon 2020: the treasures it took)
        data["news"] = drawing_news_of(match, data["states"])
        data["reasons"] = [{}] + [reasons_said(row.outcomes) for row in rows]
    return data
