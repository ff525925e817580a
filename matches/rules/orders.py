"""What Kakomimasu and Procon 2020 share in judging a turn's actions: the echo of an
action into its outcome, agents named more than once, an order being resolved, and
step 2 (every order sharing its target with another fails). Each game's own steps
stay in its module; these are the ones whose text is the same in both rule books.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matches.rules.base import team_named
from matches.rules.reasons import Reason
from matches.rules.words import gettext_noop

Cell = tuple[int, int]  # (x, y) on the unpadded board
AgentKey = tuple[int, int]  # (team, agent)


@dataclass(slots=True)
class Order:
    """An action that passed step 1, while it is being resolved: `out` is its outcome."""

    team: int
    agent: int
    kind: str
    target: Cell
    out: dict


# The reasons both games give (matches/rules/reasons.py), and an agent as they name it.
AGENT = Reason(gettext_noop("agent {number} of {team}"))
NO_AGENT = Reason(gettext_noop("there is no agent {agent}"))
REPEATED = Reason(gettext_noop("agent {agent} has {count} actions this turn"))
ALSO_TARGETS = Reason(gettext_noop("{agent} also targets ({x}, {y})"))


def agent_name(key: AgentKey) -> str:
    """An agent as reasons name it: "agent 5 of team 1 (B)"."""
    return AGENT(number=key[1], team=team_named(key[0]))


def echo(action: Mapping[str, Any], keys: Sequence[str], key_set: Collection[str]) -> dict:
    """The outcome's copy of an action: its known keys only (others are never emitted)."""
    if action.keys() <= key_set:
        return dict(action)
    return {key: action[key] for key in keys if key in action}


def repeated_agents(actions: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Agent numbers named more than once, with how often (all those actions are invalid)."""
    named = [action.get("agent") for action in actions]
    try:
        if len(set(named)) == len(named):
            return {}
    except TypeError:  # an unhashable "agent": count the whole numbers below
        pass
    counts: dict[int, int] = {}
    for agent in named:
        if type(agent) is int:
            counts[agent] = counts.get(agent, 0) + 1
    return {agent: n for agent, n in counts.items() if n > 1}


def is_ok(order: Order) -> bool:
    return order.out["result"] == "ok"


def fail(order: Order, reason: str) -> None:
    order.out["result"] = "conflict"
    order.out["reason"] = reason


def fail_same_targets(orders: list[Order]) -> list[Order]:
    """Step 2: every order (of either team) that shares its target with another fails.
    Returns the orders left (all of them in many turns)."""
    if len({order.target for order in orders}) == len(orders):
        return orders
    first: dict[Cell, Order] = {}
    rivals: dict[Cell, list[Order]] = {}
    for order in orders:
        if order.target in first:
            rivals.setdefault(order.target, [first[order.target]]).append(order)
        else:
            first[order.target] = order
    for (x, y), group in rivals.items():
        for order in group:
            other = next(o for o in group if o is not order)
            fail(order, ALSO_TARGETS(agent=agent_name((other.team, other.agent)), x=x, y=y))
    return [order for order in orders if order.target not in rivals]


def action_problem(action: Any, types: Sequence[str], coordinates: Sequence[str]) -> str:
    """What makes a submitted action malformed ("" when nothing): the shape only, as the
    answer API judges it on arrival; whether it can be played is the transition's call.
    `types` in the order the error lists them, "stay" last; every other type needs
    both `coordinates`, whole numbers."""
    if not isinstance(action, dict):
        return ": expected an object"
    for key in ("agent", "type"):
        if key not in action:
            return f".{key}: missing"
    if type(action["agent"]) is not int:
        return ".agent: expected a whole number"
    if action["type"] not in types:
        *others, last = (f'"{kind}"' for kind in types)
        return f".type: expected {', '.join(others)} or {last}"
    for key in () if action["type"] == "stay" else coordinates:
        if key not in action:
            return f".{key}: missing (a {action['type']} needs {' and '.join(coordinates)})"
        if type(action[key]) is not int:
            return f".{key}: expected a whole number"
    return ""


def action_fields(action: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The fields of a well-formed action that the record keeps: a stay has no target."""
    kept = keys[:2] if action["type"] == "stay" else keys
    return {key: action[key] for key in kept}
