"""The search of the stronger built-in players of the grid games (levels 3 and 4): the
rules themselves try each candidate action on the true position.

A team's plan (its greedy bot's actions) is the start, and the other team is expected
to play a given bot. Each agent in turn then takes the candidate whose turn, resolved
by the rules with the team-mates' actions chosen so far and the other team's expected
ones, leaves the best score difference; the plan's own action gets a bonus, since the
rings and areas it builds pay only when closed. Two actions aimed at one cell both fail,
so no candidate aims where a team-mate's action or an expected put of the other team
does.

A game's bot module gives the search what only it knows (`Grid`): the position from a
public state, the actions worth trying for an agent, the cell an action aims at, and
each team's total after a turn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from matches.rules import rules_for
from matches.rules.records import MatchRecord

Action = dict[str, Any]
Cell = tuple[int, int]


@dataclass(frozen=True)
class Grid:
    rules: Any
    position: Callable[[dict[str, Any]], Any]  # the rules' state from a public state
    # (public, state, team, agent, cells to avoid) -> the actions worth trying
    candidates: Callable[[dict[str, Any], Any, int, int, set], list[Action]]
    target: Callable[[Any, int, Action], Cell | None]  # (state, team, action) -> its cell
    totals: Callable[[Any], Sequence[int]]  # each team's total after a turn
    agents: Callable[[Any, int], int]  # how many agents a team has


def improve(grid: Grid, public: dict[str, Any], team: int, rng: random.Random,
            plan: list[Action], expected: list[Action], keep_bonus: float,
            passes: int = 1, rollout: tuple[int, Callable | None] = (0, None),
            samples: int = 1) -> list[Action]:
    """The team's actions: `plan` changed agent by agent wherever a candidate's resolved
    turn scores better (by more than `keep_bonus` over the plan's own action), against
    the other team's `expected` actions, `passes` times over the agents. With a
    `rollout` of (turns, bot), a turn's score is read that many turns later, both teams
    playing the bot meanwhile (the mean of `samples` such rollouts)."""
    state = grid.position(public)
    planned = {action["agent"]: action for action in plan}
    chosen = dict(planned)
    aimed = {grid.target(state, 1 - team, action) for action in expected
             if action.get("type") == "put"}

    turns, bot = rollout
    seeds = [rng.random() for _ in range(samples if turns else 1)]

    def value(actions: list[Action]) -> float:
        sent = [actions, expected] if team == 0 else [expected, actions]
        played, _ = grid.rules.resolve_turn(state, sent)
        total = 0.0
        for seed in seeds:  # the same for every candidate: fair comparisons
            after, play = played, random.Random(seed)
            for _ in range(turns):
                shown = {**public, "state": grid.rules.view(after)}
                after, _ = grid.rules.resolve_turn(after, [bot(shown, 0, play),
                                                          bot(shown, 1, play)])
            totals = grid.totals(after)
            total += totals[team] - totals[1 - team]
        return total / len(seeds)

    for _ in range(passes):
        for agent in range(grid.agents(state, team)):
            taken = {grid.target(state, team, action)
                     for other, action in chosen.items() if other != agent} | aimed
            options = grid.candidates(public, state, team, agent, taken)
            if agent in planned and planned[agent] not in options:
                options.append(planned[agent])
            best, best_value = chosen.get(agent), None
            for action in options:
                trial = dict(chosen)
                trial[agent] = action
                worth = value(list(trial.values())) + rng.random() * 0.01  # no fixed ties
                if action == planned.get(agent):
                    worth += keep_bonus
                if best_value is None or worth > best_value:
                    best, best_value = action, worth
            if best is not None:
                chosen[agent] = best
    return list(chosen.values())


def replayed(public: dict[str, Any]) -> Any:
    """The rules' position after the public state's turns, replayed from the start: the
    actions that took effect, as their outcomes echo them."""
    rules = rules_for(public["game"])
    record = MatchRecord(game=public["game"], board=public["board"], agents=public["agents"],
                         turns=public["turns"], teams=({"name": "A"}, {"name": "B"}))
    state = rules.initial_state(record)
    for turn in public["actions"]:
        sent = [[rules.action_fields(outcome) for outcome in side if outcome["result"] == "ok"]
                for side in turn["outcomes"]]
        state, _ = rules.resolve_turn(state, sent)
    return state


def mean_point(public: dict[str, Any]) -> float:
    """The mean absolute point value of the board's cells (the scale of the bonus)."""
    points = [abs(p) for row in public["board"]["points"] for p in row]
    return sum(points) / len(points)
