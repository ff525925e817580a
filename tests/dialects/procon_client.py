"""A team's program for the official Procon 30 answer API and the Vietnamese Procon 2020
one, written from their documentation (docs/dialects.md): the raw token in
`Authorization` (the Vietnamese also as `?token=` or in the posted body), cells counted
from 1, agents by `agentID`, teams by `teamID`. `http` is Django's test client."""

from __future__ import annotations

import json
import random
from typing import Any

STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


class ProconClient:
    def __init__(self, http, prefix: str, token: str, carry: str = "header") -> None:
        self.http, self.prefix, self.token, self.carry = http, prefix, token, carry

    def get(self, path: str) -> tuple[int, Any]:
        extra = {"HTTP_AUTHORIZATION": self.token} if self.carry == "header" else {}
        query = f"?token={self.token}" if self.carry != "header" else ""  # GET has no body
        answer = self.http.get(f"/{self.prefix}/{path}{query}", **extra)
        return answer.status_code, answer.json()

    def action(self, match_id: int, actions: list[dict[str, Any]]) -> tuple[int, Any]:
        body: dict[str, Any] = {"actions": actions}
        extra = {"HTTP_AUTHORIZATION": self.token} if self.carry == "header" else {}
        if self.carry == "body":
            body["token"] = self.token
        query = f"?token={self.token}" if self.carry == "query" else ""
        answer = self.http.post(f"/{self.prefix}/matches/{match_id}/action{query}",
                                json.dumps(body),
                                content_type="application/json; charset=utf-8", **extra)
        return answer.status_code, answer.json()

    def decide(self, state: dict[str, Any], team_id: int, rng: random.Random) -> list[dict]:
        """Each agent steps to a random cell on the field, away from obstacles; removes a
        tile of the other team's next to it now and then."""
        width, height = state["width"], state["height"]
        blocked = {(o["x"], o["y"]) for o in state.get("obstacles", [])}
        mine = next(team for team in state["teams"] if team["teamID"] == team_id)
        actions = []
        for agent in mine["agents"]:
            rng.shuffle(STEPS)
            for dx, dy in STEPS:
                x, y = agent["x"] + dx, agent["y"] + dy
                if 1 <= x <= width and 1 <= y <= height and (x, y) not in blocked:
                    owner = state["tiled"][y - 1][x - 1]
                    kind = "remove" if owner not in (0, team_id) and rng.random() < 0.5 else "move"
                    actions.append({"agentID": agent["agentID"], "type": kind, "dx": dx, "dy": dy})
                    break
        return actions
