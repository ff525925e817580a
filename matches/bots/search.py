"""The search of the stronger built-in players of the grid games (levels 3 and 4): the
rules themselves try each candidate action on the true position. Level 3 uses `improve`
(below); level 4 `anytime` (further down), which uses whatever time it is given.

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

from matches.bots import clock
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


# --- level 4: a search that uses the time it is given ---------------------------------
#
# `anytime` keeps a complete joint action of the team at every moment (at first the fast
# policy's own), so that it can stop whenever its time is up. Agent after agent, in a
# random order, it tries every action worth trying for that agent with the others' kept,
# and keeps whichever is worth most. An action's worth is the score difference a few
# turns later: the turn is resolved by the rules against the other team's expected
# actions (the fast policy's), then both teams play the fast policy (with a little
# noise) for the rest of the look-ahead. Each pass over the agents adds one more such
# playout to every comparison (the same playouts for every candidate of a pass: fair
# comparisons), so more time means more passes (agents re-chosen once the others have
# changed) and better-measured choices. (Looking further with more time was tried,
# and played worse: the quick policy's playouts drift from real play over many turns.)
#
# Without a budget the search does a fixed amount of work (`quick` evaluations; it stops
# sooner after a pass that changed nothing), which keeps it quick and, for a given seed,
# always the same; with one it stops at its deadline (then it may vary from run to run),
# keeping back a little time for returning, and starts no evaluation that would end
# past it if it took as long as the longest one so far (on a 24×24 Kakomimasu board
# with 14 agents one takes some 60 ms: the last one had ended up to 30 ms late).


@dataclass(frozen=True)
class Playout:
    """What level 4's search needs of a game beyond its `Grid`."""

    # (state, team, rng) -> a quick full turn of the team, read off the rules' state
    policy: Callable[[Any, int, random.Random], list[Action]]
    # (state, team, agent) -> every action worth trying for that agent
    options: Callable[[Any, int, int], list[Action]]


def anytime(grid: Grid, playout: Playout, state: Any, team: int, rng: random.Random,
            turns_left: int, budget: float | None, depth: int = 3, quick: int = 120,
            samples: int = 6, plan: list[Action] | None = None,
            expected: list[Action] | None = None) -> list[Action]:
    """The team's actions for this turn (see above): `depth` turns of look-ahead at most
    (fewer near the end), at most `samples` playouts a comparison; `budget` seconds,
    or `quick` evaluations where it is None."""
    started = clock.now()
    # the deadline keeps back a little for what follows the last evaluation
    deadline = None if budget is None else started + budget - min(0.05, budget * 0.2)
    depth = max(0, min(depth, turns_left - 1))
    if expected is None:
        expected = playout.policy(state, 1 - team, random.Random(rng.random()))
    if plan is None:
        plan = playout.policy(state, team, random.Random(rng.random()))
    chosen = {action["agent"]: action for action in plan}
    seeds: list[float] = []
    evaluations = 0
    slowest = [0.0]  # the longest evaluation so far: the next may take as long

    def out_of_time() -> bool:
        if deadline is None:
            return evaluations >= quick
        return clock.now() + slowest[0] >= deadline

    def value(actions: list[Action]) -> float:
        began = clock.now()
        worth = measured(actions)
        slowest[0] = max(slowest[0], clock.now() - began)
        return worth

    def measured(actions: list[Action]) -> float:
        sent = [actions, expected] if team == 0 else [expected, actions]
        first, _ = grid.rules.resolve_turn(state, sent)
        total = 0.0
        for seed in seeds:
            after, play = first, random.Random(seed)
            for _ in range(depth):
                after, _ = grid.rules.resolve_turn(
                    after, [playout.policy(after, 0, play), playout.policy(after, 1, play)])
            totals = grid.totals(after)
            total += totals[team] - totals[1 - team]
        return total / len(seeds)

    agents = list(range(grid.agents(state, team)))
    aimed = {grid.target(state, 1 - team, action) for action in expected
             if action.get("type") == "put"}
    most = 1 if not depth else samples if deadline is None else 64
    while len(seeds) < most:
        seeds.append(rng.random())
        changed = False
        rng.shuffle(agents)
        for agent in agents:
            if out_of_time():
                return list(chosen.values())
            taken = {grid.target(state, team, action)
                     for other, action in chosen.items() if other != agent} | aimed
            taken.discard(None)
            options = [action for action in playout.options(state, team, agent)
                       if grid.target(state, team, action) not in taken]
            current = chosen.get(agent)
            if grid.target(state, team, current or {}) in aimed and options:
                current = None  # a put onto theirs: both would fail
            if current is not None:  # measured first: a search cut short keeps it
                options = [current] + [action for action in options if action != current]
            best, best_value = current, None
            for action in options:
                trial = dict(chosen)
                trial[agent] = action
                worth = value(list(trial.values())) + rng.random() * 1e-3
                evaluations += 1
                if action == current:
                    worth += 0.5  # a change must be worth it
                if best_value is None or worth > best_value:
                    best, best_value = action, worth
                if out_of_time():
                    break
            if best is not None and best != current:
                chosen[agent] = best
                changed = True
        if not changed and len(seeds) > 1 and deadline is None:
            break
    return list(chosen.values())
