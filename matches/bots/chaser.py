"""The demo's CHaser programs: they connect to a CHaser server over TCP and play as any
contest program does (docs/rules/chaser.md): the name, then `gr`, a command and `#` for
every `@`, until a reply starting with `0`.

Two players, each deciding from the ten digits it was sent after `gr` (the 3 × 3 around
it, digit 5 its own cell: 1 2 3 / 4 5 6 / 7 8 9) and what it remembers:
- `Collector`, a cautious item collector: captures the other when it stands next to it,
  takes an item next to it when the cell keeps an open side, else walks on, searching
  ahead now and then for items and for the other player;
- `Hunter`: looks for the other player with searches, walks towards it, and puts a block
  on it (a capture) when next to it, or beside it when diagonal to box it in.
Neither ever walks onto a block (being buried loses).
"""

from __future__ import annotations

import random
import socket
import threading

FLOOR, OTHER, BLOCK, ITEM = "0", "1", "2", "3"
WAYS = "udlr"
SIDE = {"u": 2, "d": 8, "l": 4, "r": 6}  # the ready digit of each neighbour
BACK = {"u": "d", "d": "u", "l": "r", "r": "l"}
# the digits beside a neighbour, on the side away from the player: left/right of up, ...
FLANKS = {"u": (1, 3), "d": (7, 9), "l": (1, 7), "r": (3, 9)}
# a diagonal digit -> the two neighbours that touch it
CORNERS = {1: "ul", 3: "ur", 7: "dl", 9: "dr"}


class Player:
    name = "bot"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)
        self.heading = self.rng.choice(WAYS)
        self.steps = 0
        self.seen_other: str | None = None  # the way a search last saw the other player

    def choose(self, ready: str) -> str:
        """The command for this step, from the ready digits."""
        self.steps += 1
        cells = ready[1:]
        at = {way: cells[SIDE[way] - 1] for way in WAYS}
        for way in WAYS:  # the other player next to us: a block on it wins
            if at[way] == OTHER:
                return "p" + way
        return self.decide(cells, at)

    def decide(self, cells: str, at: dict[str, str]) -> str:
        raise NotImplementedError

    def heard(self, command: str, reply: str) -> None:
        """The reply to our command: a search tells where the other player is."""
        if command[0] == "s":
            self.seen_other = command[1] if OTHER in reply[1:] else (
                None if self.seen_other == command[1] else self.seen_other)

    def walk(self, at: dict[str, str], prefer: str | None = None) -> str:
        """A walk onto an open cell: the preferred way, else straight on, else a turn;
        back only when nothing else is open. A put if boxed in."""
        ways = [way for way in WAYS if at[way] in (FLOOR, ITEM)]
        if not ways:
            return "p" + self.heading  # nowhere to go: nothing is lost by a put
        order = [prefer, self.heading] + self.rng.sample(WAYS, 4)
        for way in order:
            if way in ways and (way != BACK[self.heading] or len(ways) == 1):
                self.heading = way
                return "w" + way
        self.heading = ways[0]
        return "w" + ways[0]


class Collector(Player):
    name = "Coll"

    def decide(self, cells: str, at: dict[str, str]) -> str:
        for way in self.rng.sample(WAYS, 4):
            # an item whose cell keeps an open side once ours turns to a block
            if at[way] == ITEM and any(cells[i - 1] != BLOCK for i in FLANKS[way]):
                self.heading = way
                return "w" + way
        if self.steps % 6 == 0:
            return "s" + self.heading
        return self.walk(at)


class Hunter(Player):
    name = "Hunt"

    def decide(self, cells: str, at: dict[str, str]) -> str:
        for digit, ways in CORNERS.items():  # diagonal: close one of its sides
            if cells[digit - 1] == OTHER:
                for way in ways:
                    if at[way] in (FLOOR, ITEM):
                        return "p" + way
        if self.seen_other and at[self.seen_other] in (FLOOR, ITEM):
            return self.walk(at, self.seen_other)
        if self.steps % 3 == 0:
            return "s" + WAYS[(self.steps // 3) % 4]
        return self.walk(at, self.seen_other)


GAME = "chaser"
PLAYERS = {"collector": Collector, "hunter": Hunter}


def play(host: str, port: int, player: Player, stop: threading.Event | None = None,
         timeout: float = 30.0) -> None:
    """Connect and play one game as `player`, as a contest program does; return at its
    end (a reply starting with 0, or the server closing)."""
    with socket.create_connection((host, port), timeout=timeout) as connection:
        lines = connection.makefile("rb")
        connection.sendall(player.name.encode() + b"\r\n")
        while stop is None or not stop.is_set():
            if lines.readline().strip() != b"@":
                return
            connection.sendall(b"gr\r\n")
            ready = lines.readline().strip().decode()
            if not ready or ready[0] == "0":
                return
            command = player.choose(ready)
            connection.sendall(command.encode() + b"\r\n")
            reply = lines.readline().strip().decode()
            if not reply:
                return
            player.heard(command, reply)
            connection.sendall(b"#\r\n")
            if reply[0] == "0":
                return
