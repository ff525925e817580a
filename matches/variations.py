"""A what-if's variation played out (docs/api.md, "What if"): the match's record up to
the branch, then the caller's turns, then each team's choice in `play_on`, by the same
pure rules as the match itself.

Pure, as the rules and the built-in players are (no Django, no database): a what-if is
played in a job process of its own (matches/jobs.py, `matches.selectors.whatif`), forked
from a process that has imported this module and nothing of Django, so that it starts at
once.
"""

from __future__ import annotations

import random
from typing import Any

from matches.bots import bots_for, level_bot, levels
from matches.bots.arena import public_state
from matches.rules import rules_for
from matches.rules.records import RecordError, parse_record
from matches.rules.turns import is_alternating

AS_PLAYED = "as-played"  # a team's choice: the actions it sent in the match
PLAY_ON_TURNS = 100  # turns the built-in players play on at most, in one what-if


class WhatIfError(ValueError):
    """A variation that cannot be played, in one line naming the field."""


def whatif_play(document: dict[str, Any], from_turn: int, turns: Any, play_on: Any,
                seed: str) -> dict[str, Any]:
    """A what-if (`matches.selectors.whatif.whatif`) on a match's record, as plain
    data, its built-in players seeded by `seed`."""
    rules = rules_for(document["game"])
    limit = rules.max_turns if is_alternating(rules) else document["turns"]
    given = turns if turns is not None else []
    if not isinstance(given, list) or from_turn + len(given) > limit:
        raise WhatIfError(f"turns: a list of at most {limit - from_turn} turns")
    played_before = document["actions"]
    checked = _checked(document | {"turns": limit}, played_before[:from_turn], given)
    choices, more = _choices(document["game"], play_on,
                             min(PLAY_ON_TURNS, limit - from_turn - len(given)))
    state = rules.initial_state(checked)
    history: list[dict[str, Any]] = []
    for number, actions in enumerate(checked.actions[:from_turn], start=1):
        state, outcomes = rules.resolve_turn(state, actions)
        history.append({"turn": number, "outcomes": outcomes})
    # the branch's position, where the first turn of the variation starts from
    branch = {**rules.view(state), "outcomes": history[-1]["outcomes"] if history else []}
    rngs = [random.Random(f"{seed}-{team}") for team in (0, 1)]
    states: list[dict[str, Any]] = []
    played: list[list[list[dict[str, Any]]]] = []
    for index in range(len(given) + more):
        if index >= len(given) and rules.is_over(state, limit):
            break  # (given turns are replayed all, as a record's are)
        number = from_turn + index + 1
        asked = given[index] if index < len(given) else [None, None]
        public = public_state(rules, document["board"], document["agents"], limit,
                              rules.view(state), history)
        sent: list[list[dict[str, Any]]] = [[], []]
        for team in (0, 1):
            if asked[team] is not None:
                sent[team] = asked[team]
            elif public["to_move"] is not None and team != public["to_move"]:
                continue
            elif choices[team] == AS_PLAYED:
                sent[team] = played_before[number - 1][team] if number <= len(
                    played_before) else []
            elif public["to_move"] is not None and rules.must_pass(state):
                sent[team] = rules.pass_move()
            elif choices[team] is not None:
                sent[team] = choices[team](public, team, rngs[team])
        state, outcomes = rules.resolve_turn(state, sent)
        states.append({**rules.view(state), "outcomes": outcomes})
        played.append(sent)
        history.append({"turn": number, "outcomes": outcomes})
    answer = {"from_turn": from_turn, "states": states, "turns": played}
    if rules.is_over(state, limit):
        answer["result"] = rules.result(state)
    # who leads after each turn, as the replay draws it (the last by the result)
    answer["leads"] = [rules.lead(each["scores"], answer.get("result") if turn == len(states) - 1
                                  else None) for turn, each in enumerate(states)]
    # what each turn did on the board, as the replay marks it
    answer["lasts"] = rules.last_turns(states, branch)
    # how each moved the score difference, as the replay marks it
    answer["swings"] = rules.swings([branch["scores"], *(each["scores"] for each in states)])[1:]
    # what a screen remembers of each (Procon 2020: the treasures it took)
    answer["news"] = [rules.drawing_news(document["board"], each) for each in states]
    return answer


def _checked(document: dict[str, Any], before: list, given: list):
    """The record of the match up to the branch and the given turns (a team's null read
    as no actions), checked as any record is: its errors name the given turns."""
    shaped = []
    for turn in given:
        if isinstance(turn, list) and len(turn) == 2:
            turn = [[] if actions is None else actions for actions in turn]
        shaped.append(turn)
    try:
        return parse_record({**document, "actions": [*before, *shaped]})
    except RecordError as error:
        said = str(error).replace(f"actions[{len(before)}", "turns[0")
        for index in range(1, len(given)):
            said = said.replace(f"actions[{len(before) + index}", f"turns[{index}")
        raise WhatIfError(said) from None


def _choices(game: str, play_on: Any, room: int) -> tuple[list[Any], int]:
    """Each team's choice for the turns after the given ones (a bot, AS_PLAYED or None),
    and how many such turns."""
    if play_on is None:
        return [None, None], 0
    if not isinstance(play_on, dict):
        raise WhatIfError('play_on: expected {"turns": K, "teams": {"0": "level-2"}}')
    more = play_on.get("turns", 0)
    if type(more) is not int or not 0 <= more <= room:
        raise WhatIfError(f"play_on.turns: a whole number from 0 to {room}")
    teams = play_on.get("teams", {})
    if not isinstance(teams, dict) or not set(teams) <= {"0", "1"}:
        raise WhatIfError('play_on.teams: {"0": choice, "1": choice}, either or both')
    known = [f"level-{n}" for n in range(1, len(levels(game)) + 1)] if bots_for(game) else []
    choices: list[Any] = [None, None]
    for key, seat in teams.items():
        if seat == AS_PLAYED:
            choices[int(key)] = AS_PLAYED
            continue
        bot = level_bot(game, seat) if isinstance(seat, str) else None
        if bot is None:
            offered = ", ".join([AS_PLAYED, *known]) if known else \
                f"{AS_PLAYED}; no built-in player: its programs play over its own protocol"
            raise WhatIfError(f"play_on.teams.{key}: one of {offered}")
        choices[int(key)] = bot
    return choices, more
