"""Whole matches between built-in players, in-process and without a server: the pure
rules resolve each turn, and each player sees what the answer API would show it (the
board, the latest state and the turns so far). For measuring the players' strength
(bench/ladder.py) and for tests that every level plays whole legal matches.

A game played over a protocol of its own (CHaser) is not played here: its programs
connect to its server (bench/ladder.py starts one).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from matches.bots import ask
from matches.rules import rules_for
from matches.rules.records import MatchRecord
from matches.rules.turns import is_alternating


@dataclass
class Played:
    """A match played out: its result, final scores, and each team's thinking times (s)
    and actions the rules judged not ok."""

    result: dict[str, Any]
    scores: list[dict[str, int]]
    turns: int
    think: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    faults: list[int] = field(default_factory=lambda: [0, 0])
    actions: list[list[list[dict[str, Any]]]] = field(default_factory=list)


def public_state(rules: Any, board: dict[str, Any], agents: int, turns: int,
                 view: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    """What a built-in player is given to choose the next turn's actions: the match's
    state as the answer API shows it (its board, the latest state, the turns so far and,
    where the teams take turns, whose move it is)."""
    number = view["turn"] + 1
    return {"game": rules.game, "turns": turns, "agents": agents, "board": board,
            "turn": view["turn"], "strategy_turn": number, "state": view, "actions": history,
            "to_move": rules.mover(number) if is_alternating(rules) else None}


def play_match(game: str, board: dict[str, Any], agents: int, turns: int, players,
               seed: int | str = 0, opening: tuple[int, Any] = (0, None),
               budgets: tuple[float | None, float | None] = (None, None)) -> Played:
    """Play `players` (team 0's bot, team 1's bot: public state, team, rng -> actions)
    against each other on `board` until the rules say the match is over. An `opening`
    of (turns, bot): that bot plays both teams' first turns (a varied start, where a
    game has one board and its players choose alike). `budgets`: each team's seconds a
    move, given to a bot that takes a budget (None: its quick default)."""
    rules = rules_for(game)
    alternating = is_alternating(rules)
    turns = rules.max_turns if alternating else turns
    record = MatchRecord(game=game, board=board, agents=agents, turns=turns,
                         teams=({"name": "A"}, {"name": "B"}))
    state = rules.initial_state(record)
    view = rules.view(state)
    rngs = [random.Random(f"{seed}-{team}") for team in (0, 1)]
    played = Played(result={}, scores=view["scores"], turns=0)
    history: list[dict[str, Any]] = []
    while not rules.is_over(state, turns):
        number = view["turn"] + 1
        public = public_state(rules, board, agents, turns, view, history)
        sent: list[list[dict[str, Any]]] = [[], []]
        for team in (0, 1):
            if alternating and team != public["to_move"]:
                continue
            if alternating and rules.must_pass(state):
                sent[team] = rules.pass_move()
                continue
            if number <= opening[0]:
                sent[team] = opening[1](public, team, rngs[team])
                continue
            started = time.perf_counter()
            sent[team] = ask(players[team], public, team, rngs[team], budgets[team])
            played.think[team].append(time.perf_counter() - started)
        state, outcomes = rules.resolve_turn(state, sent)
        for team, side in enumerate(outcomes):
            played.faults[team] += sum(outcome.get("result") == "invalid" for outcome in side)
        played.actions.append(sent)
        history.append({"turn": number, "outcomes": outcomes})
        view = rules.view(state)
    played.result, played.scores, played.turns = rules.result(state), view["scores"], view["turn"]
    return played


def play_chaser(board: dict[str, Any], turns: int, players) -> Played:
    """A CHaser game between two program objects (matches/bots/chaser.py's `Player`s:
    Cool first), each told exactly what the server would tell it (the ready digits, then
    its command's reply), on the pure rules; no sockets."""
    from matches.rules import chaser

    state = chaser.new_state(board, turns)
    played = Played(result={}, scores=[], turns=0)
    while not chaser.decided(state):
        for side in (0, 1):
            ready = chaser.ready_digits(state, side)
            started = time.perf_counter()
            command = players[side].choose(ready)
            played.think[side].append(time.perf_counter() - started)
            state, outcome = chaser.step(state, side, command)
            if outcome["result"] != "ok":
                played.faults[side] += 1
            else:
                players[side].heard(command, outcome["reply"])
            if chaser.decided(state):
                break
        else:
            state = chaser.end_turn(state)
    rules = rules_for("chaser")
    played.result, played.turns = rules.result(state), state.turn
    played.scores = [{"items": items} for items in state.items]
    return played
