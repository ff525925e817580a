"""The community Kakomimasu client library as its samples run it, reproduced by a client
of our own written from its documented behaviour (docs/dialects.md): it joins with its
token, then reads `GET /v1/matches/{id}` without any token every 100 ms until the match
has a start time, sleeps until the start, and plays each turn with its `pic`; any answer
but 200 while it waits is fatal (the library throws "Get Match Error"). Two such programs
share one address (a team playing both sides to practise, two teams behind a school's
router), against a real server where loopback is no trusted network: a visitor's caps."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.factories import make_match

pytestmark = pytest.mark.django_db(transaction=True)


class LibraryProgram(threading.Thread):
    def __init__(self, base: str, match_id: int, token: str) -> None:
        super().__init__(daemon=True)
        self.base, self.match_id, self.token = base, match_id, token
        self.failure: str | None = None
        self.reads = 0
        self.played: list[int] = []
        # what it saw, for a failure's message: (the clock's seconds modulo 100, GET or
        # PATCH, status, the match's status and turn or the turn played or the refusal)
        self.seen: list[tuple[float, str, int, object]] = []

    def call(self, method: str, path: str, body=None, auth: str | None = None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if auth is not None:
            headers["Authorization"] = auth
        request = urllib.request.Request(self.base + path, method=method, headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, error.read()[:200]

    def run(self) -> None:
        status, joined = self.call("POST", f"/v1/matches/{self.match_id}/players",
                                   {"spec": ""}, auth=f"Bearer {self.token}")
        if status != 200:
            self.failure = f"Match Error {status}"
            return
        pic = joined["pic"]
        while True:  # waitMatching: a read every 100 ms, anything but 200 is fatal
            status, game = self.read()
            if status != 200:
                self.failure = f"Get Match Error {status}: {game!r}"
                return
            if game["startedAtUnixTime"] is not None:
                break
            time.sleep(0.1)
        time.sleep(max(0.0, game["startedAtUnixTime"] - time.time()))  # waitStart
        status, game = self.read()  # both programs read at the same moment: fatal too
        if status != 200:
            self.failure = f"Get Match Error {status}: {game!r}"
            return
        while game["status"] != "ended":
            if game["status"] == "gaming":
                status, body = self.call("PATCH", f"/v1/matches/{self.match_id}/actions",
                                         {"actions": [{"agentId": 0, "type": "NONE"}]}, auth=pic)
                if status == 200:
                    self.played.append(game["turn"])
                self.seen.append((round(time.time() % 100, 2), "PATCH", status,
                                  game["turn"] if status == 200 else body))
            # waitNextTurn: sleep until the next turn's start, then read until a 200
            time.sleep(max(0.0, game["startedAtUnixTime"] + (game["operationSec"] +
                       game["transitionSec"]) * game["turn"] - time.time()))
            while (answer := self.read())[0] != 200:
                time.sleep(0.1)
            game = answer[1]

    def read(self):
        self.reads += 1
        status, game = self.call("GET", f"/v1/matches/{self.match_id}")
        if status == 200 and game["startedAtUnixTime"] is not None:
            self.seen.append((round(time.time() % 100, 2), "GET", status,
                              (game["status"], game["turn"])))
        return status, game


def test_two_library_programs_behind_one_address_both_wait_and_play(untrusted_server_process):
    # (2 s steps: on a loaded machine a read of the library's once came back a second
    # after the start, turn 1's step of 1 s then over, and its PATCH was refused)
    match, tokens = make_match(start_in=4, strategy=2, transition=1, turns=2)
    programs = [LibraryProgram(untrusted_server_process, match.pk, token) for token in tokens]
    for program in programs:
        program.start()
    for program in programs:
        program.join(timeout=40)
    for program in programs:
        assert program.failure is None
        assert program.played == [1, 2], program.seen
