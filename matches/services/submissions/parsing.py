"""Reading a request's body: the answer API's JSON, each action checked for its game by
its rules (`action_problem`, `action_fields`); a body that cannot be read is a Refusal
(400) naming the field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from matches.rules import rules_for
from matches.services.submissions.answers import Refusal

MAX_BODY = 64 * 1024
MAX_ACTIONS = 256
# What PostgreSQL cannot store in text or jsonb: kept out of accepted actions.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def parse_submission(game: str, body: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """The body must be {"actions": [action, ...], "turn": n} in UTF-8 (a BOM is allowed),
    `turn` optional, with no key twice in an object; each action well-formed for the game.
    The actions, and the turn the team meant them for (None: whichever is open)."""
    data = json_read(body)
    if not isinstance(data, dict) or "actions" not in data:
        raise Refusal(400, "invalid_actions", 'the body must be an object {"actions": [...]}')
    return _actions(game, data["actions"]), _turn(data.get("turn"))


def _turn(turn: Any) -> int | None:
    """None, or a whole number from 1 (3.0 is 3, as JSON Schema's "integer" has it)."""
    if type(turn) is float and turn.is_integer():
        turn = int(turn)
    if turn is not None and (type(turn) is not int or turn < 1):
        raise Refusal(400, "invalid_actions", "turn: expected a whole number from 1")
    return turn


def parse_actions(game: str, body: bytes) -> list[dict[str, Any]]:
    """The actions of a body, as `parse_submission` reads them."""
    return parse_submission(game, body)[0]


def json_read(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8-sig"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as error:
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: not UTF-8 "
                                             f"({error.reason} at byte {error.start})") from None
    except RecursionError:
        raise Refusal(400, "malformed_json", "the body is not valid JSON: nested too deeply"
                      ) from None
    except ValueError as error:  # bad JSON, NaN, a repeated key, a number too long to read
        raise Refusal(400, "malformed_json", f"the body is not valid JSON: {error}") from None


def _actions(game: str, actions: Any) -> list[dict[str, Any]]:
    if not isinstance(actions, list):
        raise Refusal(400, "invalid_actions", "actions: expected a list")
    if len(actions) > MAX_ACTIONS:
        raise Refusal(400, "invalid_actions", f"actions: at most {MAX_ACTIONS} actions")
    rules = rules_for(game)
    parsed = []
    for index, action in enumerate(actions):
        problem = rules.action_problem(action)
        if problem:
            raise Refusal(400, "invalid_actions", f"actions[{index}]{problem}")
        fields = rules.action_fields(action)
        for key, value in fields.items():
            if isinstance(value, str) and UNSTORABLE.search(value):
                raise Refusal(400, "invalid_actions", f"actions[{index}].{key}: a NUL character "
                                                      "or a lone surrogate")
        parsed.append(fields)
    return parsed


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {json.dumps(key)} appears twice in an object")
        seen.add(key)
    return dict(pairs)
