"""A team's program for the community Kakomimasu server's v1 API, written from its
documentation (docs/dialects.md) and the community library's behaviour: it joins its
match with its token, keeps the `pic` it is given for its actions, reads the Game
object without any token (so its match is public live) (flat `points` and `tiles`, row by
row; an agent off the field at (-1, -1)), and sends `PUT`/`MOVE`/`REMOVE`/`NONE` with
target cells. `http` is Django's test client."""

from __future__ import annotations

import json
import random
from typing import Any


class KakomimasuClient:
    def __init__(self, http, token: str) -> None:
        self.http, self.token, self.pic, self.index = http, token, None, None

    def join(self, match_id: int) -> tuple[int, Any]:
        answer = self.http.post(f"/v1/matches/{match_id}/players", json.dumps({"spec": ""}),
                                content_type="application/json",
                                HTTP_AUTHORIZATION=f"Bearer {self.token}")
        if answer.status_code == 200:
            self.pic, self.index = answer.json()["pic"], answer.json()["index"]
        return answer.status_code, answer.json()

    def game(self, match_id: int) -> tuple[int, Any]:
        """As the community library reads a Game: with no Authorization at all."""
        answer = self.http.get(f"/v1/matches/{match_id}")
        return answer.status_code, answer.json()

    def send(self, match_id: int, actions: list[dict[str, Any]]) -> tuple[int, Any]:
        answer = self.http.generic("PATCH", f"/v1/matches/{match_id}/actions",
                                   json.dumps({"actions": actions}),
                                   content_type="application/json; charset=utf-8",
                                   HTTP_AUTHORIZATION=self.pic or "")
        return answer.status_code, answer.json()

    def decide(self, game: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
        """Put each agent off the field on the best free cell; move the others to a
        neighbour not walled by the other team, or remove its wall there now and then."""
        field = game["field"]
        width, height = field["width"], field["height"]

        def tile(x: int, y: int) -> dict:
            return field["tiles"][y * width + x]

        taken = {(a["x"], a["y"]) for p in game["players"] for a in p["agents"]}
        free = sorted(((field["points"][y * width + x], x, y) for y in range(height)
                       for x in range(width) if tile(x, y)["type"] == 0
                       and (x, y) not in taken), reverse=True)
        actions = []
        for agent_id, agent in enumerate(game["players"][self.index]["agents"]):
            if agent["x"] < 0:
                _, x, y = free.pop(rng.randrange(min(5, len(free))))
                actions.append({"agentId": agent_id, "type": "PUT", "x": x, "y": y})
                continue
            x = min(width - 1, max(0, agent["x"] + rng.choice((-1, 0, 1))))
            y = min(height - 1, max(0, agent["y"] + rng.choice((-1, 0, 1))))
            other = tile(x, y)["type"] == 1 and tile(x, y)["player"] != self.index
            kind = "REMOVE" if other else "MOVE" if (x, y) != (agent["x"], agent["y"]) else "NONE"
            actions.append({"agentId": agent_id, "type": kind, "x": x, "y": y})
        return actions
