"""What if (docs/api.md, "What if"): from any turn of a match, other actions, or a
built-in player playing on for either team, computed by the same pure rules as the
match itself; nothing is stored. The turns up to the branch are the match's counted
actions (its record); the variation's are the caller's, then the players'."""

from __future__ import annotations

import random
from typing import Any

from matches.bots import bots_for, level_bot, levels
from matches.models import Match
from matches.rules import rules_for
from matches.rules.records import RecordError, parse_record
from matches.rules.turns import is_alternating
from matches.selectors.records import match_record


class WhatIfError(ValueError):
    """A variation that cannot be played, in one line naming the field."""


def whatif(match: Match, from_turn: Any, turns: Any, play_on: Any = None) -> dict[str, Any]:
    """The timeline/1 states of the turns after `from_turn` with the given `turns` (each
    [team 0's actions, team 1's], as match-record/1 writes them), then `play_on`'s
    built-in players (`{"turns": K, "teams": {"0": "level-3"}}`; a team without one
    does nothing); every turn's actions as played (`turns`), and the result if the
    variation ends the game."""
    if type(from_turn) is not int or not 0 <= from_turn <= match.resolved_turns:
        raise WhatIfError(f"from_turn: a turn of the match, 0 to {match.resolved_turns}")
    record = match_record(match, upto=from_turn).to_json()
    rules = rules_for(match.game)
    limit = rules.max_turns if is_alternating(rules) else match.turns
    record["turns"] = limit
    given = turns if turns is not None else []
    if not isinstance(given, list) or from_turn + len(given) > limit:
        raise WhatIfError(f"turns: a list of at most {limit - from_turn} turns")
    try:
        checked = parse_record({**record, "actions": [*record["actions"], *given]})
    except RecordError as error:
        raise WhatIfError(str(error).replace(f"actions[{from_turn}", "turns[0")) from None
    players, more = _players(match.game, play_on, limit - from_turn - len(given))
    state = rules.initial_state(checked)
    states: list[dict[str, Any]] = []
    played: list[list[list[dict[str, Any]]]] = []
    history: list[dict[str, Any]] = []
    for number, actions in enumerate(checked.actions, start=1):  # every one, as a record
        state, outcomes = rules.resolve_turn(state, actions)
        if number > from_turn:
            states.append({**rules.view(state), "outcomes": outcomes})
            played.append(actions)
        history.append({"turn": number, "outcomes": outcomes})
    rngs = [random.Random(f"whatif-{match.pk}-{from_turn}-{team}") for team in (0, 1)]
    for _ in range(more):
        if rules.is_over(state, limit):
            break
        view = rules.view(state)
        number = view["turn"] + 1
        public = {"game": match.game, "turns": limit, "agents": match.agents,
                  "board": match.board.data, "turn": view["turn"], "strategy_turn": number,
                  "state": view, "actions": history,
                  "to_move": rules.mover(number) if is_alternating(rules) else None}
        sent: list[list[dict[str, Any]]] = [[], []]
        for team, player in enumerate(players):
            if public["to_move"] is not None and team != public["to_move"]:
                continue
            if public["to_move"] is not None and rules.must_pass(state):
                sent[team] = rules.pass_move()
            elif player is not None:
                sent[team] = player(public, team, rngs[team])
        state, outcomes = rules.resolve_turn(state, sent)
        states.append({**rules.view(state), "outcomes": outcomes})
        played.append(sent)
        history.append({"turn": number, "outcomes": outcomes})
    answer = {"from_turn": from_turn, "states": states, "turns": played}
    if rules.is_over(state, limit):
        answer["result"] = rules.result(state)
    return answer


def _players(game: str, play_on: Any, room: int) -> tuple[list[Any], int]:
    """Each team's built-in player for the turns after the given ones, and how many."""
    if play_on is None:
        return [None, None], 0
    if not isinstance(play_on, dict):
        raise WhatIfError('play_on: expected {"turns": K, "teams": {"0": "level-2"}}')
    more = play_on.get("turns", 0)
    if type(more) is not int or not 0 <= more <= room:
        raise WhatIfError(f"play_on.turns: a whole number from 0 to {room}")
    teams = play_on.get("teams", {})
    if not isinstance(teams, dict) or not set(teams) <= {"0", "1"}:
        raise WhatIfError('play_on.teams: {"0": level, "1": level}, either or both')
    known = [f"level-{n}" for n in range(1, len(levels(game)) + 1)] if bots_for(game) else []
    players: list[Any] = [None, None]
    for key, seat in teams.items():
        bot = level_bot(game, seat) if isinstance(seat, str) else None
        if bot is None:
            offered = ", ".join(known) or "none: its programs play over its own protocol"
            raise WhatIfError(f"play_on.teams.{key}: a built-in player ({offered})")
        players[int(key)] = bot
    return players, more
