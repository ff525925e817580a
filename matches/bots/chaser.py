"""The demo's CHaser programs: they connect to a CHaser server over TCP and play as any
contest program does (docs/rules/chaser.md): the name, then `gr`, a command and `#` for
every `@`, until a reply starting with `0`.

Each decides from the ten digits it was sent after `gr` (the 3 × 3 around it, digit 5
its own cell: 1 2 3 / 4 5 6 / 7 8 9) and what it remembers:
- `Collector`, a cautious item collector: captures the other when it stands next to it,
  takes an item next to it when the cell keeps an open side, else walks on, searching
  ahead now and then for items and for the other player;
- `Hunter`: looks for the other player with searches, walks towards it, and puts a block
  on it (a capture) when next to it, or beside it when diagonal to box it in;
- `Wanderer` (level 1): a random walk, blind to the other player;
- `Mapper` (level 3): keeps a map of what it has seen, goes for the items it knows by
  the shortest path, and never steps beside the other player where it knows it is;
- `Tracker` (level 4): Mapper's map, and where the other player may stand by now; it
  walks only where the other cannot be beside it afterwards (else it looks first).
The demo and a tournament's `--bots` play Collector and Hunter; the levels are measured
by bench/ladder.py, in-process on the rules (matches/bots/arena.py `play_chaser`).
None ever walks onto a block (being buried loses).
"""

from __future__ import annotations

import random
import socket
import threading

import numpy as np

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




# --- levels (bench/ladder.py measures each against the one below) -----------------------

STEP = {"u": (0, -1), "d": (0, 1), "l": (-1, 0), "r": (1, 0)}
# the 3 x 3 digits' offsets from their centre, in reading order
SQUARE = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


class Wanderer(Player):
    """Level 1: walks to a random open neighbour (never onto a block), puts when boxed;
    it does not even look for the other player beside it."""

    name = "Wand"

    def choose(self, ready: str) -> str:
        self.steps += 1
        cells = ready[1:]
        return self.decide(cells, {way: cells[SIDE[way] - 1] for way in WAYS})

    def decide(self, cells: str, at: dict[str, str]) -> str:
        ways = [way for way in WAYS if at[way] in (FLOOR, ITEM)]
        way = self.rng.choice(ways) if ways else self.rng.choice(WAYS)
        return ("w" if ways else "p") + way


class Mapper(Player):
    """Level 3: keeps a map of what it has seen (its own position counted from its
    start), takes an item beside it whose cell keeps a way out, else the nearest item it
    knows by the shortest known path, else walks on as the collector does, searching
    ahead every `looks` steps; it never steps where the other player, as last seen, may
    stand beside it, watches the other when it is near (so that the other comes beside
    it and is captured), and after `bold` steps, when the other may be anywhere near,
    looks at the cells around the one it walks to before it walks there."""

    name = "Mapr"
    looks = 6
    probe = "s"  # how it looks ahead: "l" a look, "s" a search
    exits = 1  # the open sides a cell must keep for it to walk there
    memory = 3  # steps a sighting of the other player is kept

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__(seed)
        self.at = (0, 0)
        self.seen: dict[tuple[int, int], str] = {}
        self.other: tuple[int, int] | None = None
        self.other_at = -99  # the step the other player was last seen
        self.pending: tuple[str, tuple[int, int]] | None = None
        self.last_look = 0

    # what the replies say

    def _square(self, digits: str, centre: tuple[int, int]) -> None:
        for (dx, dy), digit in zip(SQUARE, digits, strict=True):
            cell = (centre[0] + dx, centre[1] + dy)
            if digit == OTHER:
                self.other, self.other_at = cell, self.steps
                digit = FLOOR
            if cell != self.at or digit == BLOCK:
                self.seen[cell] = digit

    def choose(self, ready: str) -> str:
        self.steps += 1
        cells = ready[1:]
        if self.other is not None and self.steps - self.other_at > self.memory:
            self.other = None  # not seen for long: it may be anywhere
        self._square(cells, self.at)
        at = {way: cells[SIDE[way] - 1] for way in WAYS}
        for way in WAYS:
            if at[way] == OTHER:
                return "p" + way  # a block on it wins
        command = self.decide(cells, at)
        kind, way = command[0], command[1]
        dx, dy = STEP[way]
        self.pending = (command, (self.at[0] + dx, self.at[1] + dy))
        if kind == "w" and at[way] != OTHER:
            if at[way] == ITEM:
                self.seen[self.at] = BLOCK  # taking an item leaves a block behind
            self.at = (self.at[0] + dx, self.at[1] + dy)
        return command

    def heard(self, command: str, reply: str) -> None:
        super().heard(command, reply)
        digits = reply[1:]
        kind, (dx, dy) = command[0], STEP[command[1]]
        if kind in "wp":
            self._square(digits, self.at)
        elif kind == "l":
            self._square(digits, (self.at[0] + 2 * dx, self.at[1] + 2 * dy))
        else:
            for distance, digit in enumerate(digits, 1):
                cell = (self.at[0] + distance * dx, self.at[1] + distance * dy)
                if digit == OTHER:
                    self.other, self.other_at = cell, self.steps
                    digit = FLOOR
                self.seen[cell] = digit

    # choosing

    def open_sides(self, cell: tuple[int, int], coming_from: tuple[int, int] | None,
                   known: bool = False) -> int:
        """The sides of `cell` that are not known blocks (`known`: that are known not to
        be blocks); where it comes from does not count when it turns to a block (an item
        taken)."""
        count = 0
        for dx, dy in STEP.values():
            side = (cell[0] + dx, cell[1] + dy)
            digit = self.seen.get(side)
            if side != coming_from and digit != BLOCK and (digit is not None or not known):
                count += 1
        return count

    def beside_other(self, cell: tuple[int, int]) -> bool:
        """Whether the other player may stand next to `cell` on its next step: where it
        was last seen, and as far from there as it has had steps to walk since."""
        if self.other is None:
            return False
        reach = 1 + max(0, self.steps - self.other_at - 1)
        return abs(cell[0] - self.other[0]) + abs(cell[1] - self.other[1]) <= reach

    def safe(self, way: str, at: dict[str, str]) -> bool:
        """Whether walking that way keeps this player alive on the other's next step."""
        if at[way] not in (FLOOR, ITEM):
            return False
        dx, dy = STEP[way]
        target = (self.at[0] + dx, self.at[1] + dy)
        if self.beside_other(target):
            return False
        if at[way] == ITEM:  # the cell it leaves turns to a block: a known way out
            return self.open_sides(target, self.at, known=True) >= self.exits
        return self.open_sides(target, None) >= self.exits

    def decide(self, cells: str, at: dict[str, str]) -> str:
        for digit, ways in CORNERS.items():  # diagonal: close one of its sides
            if cells[digit - 1] == OTHER:
                for way in ways:
                    if at[way] in (FLOOR, ITEM) and self.open_sides(self.at, None) >= 3:
                        return "p" + way
        safe = [way for way in WAYS if self.safe(way, at)]
        for way in safe:
            if at[way] == ITEM:
                self.heading = way
                return "w" + way
        if self.other is not None and self.steps - self.other_at <= 2 and \
                abs(self.other[0] - self.at[0]) + abs(self.other[1] - self.at[1]) <= 3:
            return "l" + self._way_to(self.other)  # let it come next to us; watch it
        way = self._towards(safe)
        if way:
            self.heading = way
            return self.careful("w" + way, at)
        if self.looks and self.steps - self.last_look >= self.looks:
            self.last_look = self.steps
            return self.probe + (self.heading if self.probe == "s" else self._look_way())
        if safe:  # on, as the collector walks: straight ahead while it can
            return self.careful(self.walk({way: at[way] if way in safe else BLOCK
                                           for way in WAYS}), at)
        ways = [way for way in WAYS if at[way] in (FLOOR, ITEM) and
                not self.beside_other((self.at[0] + STEP[way][0], self.at[1] + STEP[way][1]))]
        if ways:
            return "w" + self.rng.choice(ways)
        return "p" + self.heading

    cleared: tuple[int, str] | None = None
    bold = 40  # steps after which it looks before each walk (the other may be near)

    def careful(self, command: str, at: dict[str, str]) -> str:
        """A walk that way, or first a look at the cell two ahead and the cells around it
        (who stands there could put a block on this player once it has walked)."""
        if command[0] != "w" or self.steps <= self.bold or at[command[1]] == ITEM:
            return command
        dx, dy = STEP[command[1]]
        ahead = (self.at[0] + 2 * dx, self.at[1] + 2 * dy)
        if self.seen.get(ahead) == BLOCK or self.cleared == (self.steps, command[1]):
            return command
        self.cleared = (self.steps + 1, command[1])
        return "l" + command[1]

    def _way_to(self, cell: tuple[int, int]) -> str:
        dx, dy = cell[0] - self.at[0], cell[1] - self.at[1]
        if abs(dx) >= abs(dy):
            return "r" if dx > 0 else "l"
        return "d" if dy > 0 else "u"

    def _look_way(self) -> str:
        """Where the look (or search) finds the most cells not seen yet."""
        def unknown(way: str) -> int:
            dx, dy = STEP[way]
            if self.probe == "s":
                cells = [(self.at[0] + k * dx, self.at[1] + k * dy) for k in range(1, 10)]
            else:
                cx, cy = self.at[0] + 2 * dx, self.at[1] + 2 * dy
                cells = [(cx + ox, cy + oy) for ox, oy in SQUARE]
            return sum(cell not in self.seen for cell in cells)
        return max(WAYS, key=lambda way: (unknown(way), self.rng.random()))

    def _towards(self, safe: list[str]) -> str | None:
        """The first step of the shortest known path to an item it knows of, taken only
        if it is a safe step; None when it knows of none."""
        if not safe:
            return None
        start = self.at
        frontier = [(start, None)]
        visited = {start}
        for _ in range(60):
            following = []
            for cell, first in frontier:
                for way, (dx, dy) in STEP.items():
                    nxt = (cell[0] + dx, cell[1] + dy)
                    if nxt in visited:
                        continue
                    visited.add(nxt)
                    digit = self.seen.get(nxt)
                    step = first or way
                    if digit == ITEM and step in safe:
                        return step
                    if digit == FLOOR:
                        following.append((nxt, step))
            frontier = following
            if not frontier:
                break
        return None


class Tracker(Mapper):
    """Level 4: Mapper's map, and besides it the cells where the other player may stand
    now (`maybe`: every cell at first; each step of the other's widens it by one cell
    wherever no block stops it, and each cell seen without it is struck off; a sighting
    narrows it to one cell). It walks only where the other cannot stand beside it after
    the walk: where the cell two ahead is struck off, else it looks there first (a look
    also shows the items there). For its first `early` steps, while it has not seen the
    other, it walks without looking (on the contest maps the two start far apart).

    It goes for the nearest item it knows (by a path through known cells, taking no item
    on the way that would leave it no known way out), else towards the nearest cell it
    has not seen, and keeps its goal while that is no more than a step further than the
    nearest (so that it does not swing between two). It puts a block on the other when
    beside it, or on the last open side of the other when diagonal to it (the other is
    then trapped), and when the other is near it watches it for `patience` steps (the
    other may step beside it and be captured), then goes on."""

    name = "Trak"
    early = 25
    patience = 3
    memory = 6  # steps a sighting is kept
    reach = 64  # cells from the start the belief covers (a map is at most 64 a side)

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__(seed)
        size = 2 * self.reach + 1
        self.maybe = np.ones((size, size), dtype=bool)  # [y, x], (0, 0) at [reach, reach]
        self.blocks = np.zeros((size, size), dtype=bool)
        self.met = False  # whether it has ever seen the other
        self.watched = 0
        self.goal: tuple[int, int] | None = None

    # what the replies say, also of where the other may be

    def _index(self, cell: tuple[int, int]) -> tuple[int, int] | None:
        x, y = cell[0] + self.reach, cell[1] + self.reach
        size = 2 * self.reach + 1
        return (y, x) if 0 <= x < size and 0 <= y < size else None

    def _observe(self, cells: list[tuple[int, int]], digits: str) -> None:
        for cell, digit in zip(cells, digits, strict=True):
            index = self._index(cell)
            if index is not None and digit != OTHER:
                self.maybe[index] = False
                self.blocks[index] = digit == BLOCK
        for cell, digit in zip(cells, digits, strict=True):
            if digit == OTHER:
                self.met = True
                self.maybe[:] = False
                index = self._index(cell)
                if index is not None:
                    self.maybe[index] = True

    def _square(self, digits: str, centre: tuple[int, int]) -> None:
        self._observe([(centre[0] + dx, centre[1] + dy) for dx, dy in SQUARE], digits)
        super()._square(digits, centre)

    def heard(self, command: str, reply: str) -> None:
        if command[0] == "s":
            dx, dy = STEP[command[1]]
            self._observe([(self.at[0] + k * dx, self.at[1] + k * dy) for k in range(1, 10)],
                          reply[1:])
        super().heard(command, reply)

    def _spread(self) -> None:
        """The other's step: each cell where it may be reaches its four neighbours."""
        maybe = self.maybe
        grown = maybe.copy()
        grown[1:, :] |= maybe[:-1, :]
        grown[:-1, :] |= maybe[1:, :]
        grown[:, 1:] |= maybe[:, :-1]
        grown[:, :-1] |= maybe[:, 1:]
        grown[0, :] = grown[-1, :] = grown[:, 0] = grown[:, -1] = True  # beyond the belief
        self.maybe = grown & ~self.blocks

    def may_stand(self, cell: tuple[int, int]) -> bool:
        index = self._index(cell)
        return True if index is None else bool(self.maybe[index])

    # choosing

    def choose(self, ready: str) -> str:
        if self.steps:
            self._spread()  # the other has had a step since
        return super().choose(ready)

    def decide(self, cells: str, at: dict[str, str]) -> str:
        near = self.other is not None and self.steps - self.other_at <= 2 and \
            abs(self.other[0] - self.at[0]) + abs(self.other[1] - self.at[1]) <= 3
        self.watched = self.watched + 1 if near else 0
        for digit, ways in CORNERS.items():  # diagonal with one open side: close it
            if cells[digit - 1] == OTHER:
                dx, dy = SQUARE[digit - 1]
                other = (self.at[0] + dx, self.at[1] + dy)
                open_sides = [(other[0] + sx, other[1] + sy) for sx, sy in STEP.values()
                              if self.seen.get((other[0] + sx, other[1] + sy)) != BLOCK]
                for way in ways:
                    wx, wy = STEP[way]
                    if open_sides == [(self.at[0] + wx, self.at[1] + wy)]:
                        return "p" + way
        if near and self.watched <= self.patience:
            return "l" + self._way_to(self.other)
        way = self._plan(at)
        if way is None:
            return "l" + self._look_way()
        dx, dy = STEP[way]
        if (self.early >= self.steps > 1 and not self.met) or \
                not self.may_stand((self.at[0] + 2 * dx, self.at[1] + 2 * dy)):
            return "w" + way
        return "l" + way  # who stands two ahead would be beside it once it has walked

    def _plan(self, at: dict[str, str]) -> str | None:
        """The first step towards its goal: an item, else a cell not seen yet."""
        first: dict[tuple[int, int], str | None] = {self.at: None}
        goals: list[tuple[bool, int, tuple[int, int]]] = []  # (not an item, steps, cell)
        frontier = [self.at]
        for depth in range(1, 4 * self.reach):
            following = []
            for cell in frontier:
                for way, (dx, dy) in STEP.items():
                    step = (cell[0] + dx, cell[1] + dy)
                    if step in first:
                        continue
                    if cell == self.at:
                        digit = at[way]
                        if not self.safe(way, at):  # (Mapper's: exits = 1)
                            continue
                    else:
                        digit = self.seen.get(step)
                        if digit == BLOCK or (digit == ITEM and
                                              self.open_sides(step, cell, known=True) < 1):
                            continue
                    first[step] = first[cell] or way
                    if digit == FLOOR:
                        following.append(step)
                    else:  # an item, or a cell not seen: a goal, not a way through
                        goals.append((digit != ITEM, depth, step))
            frontier = following
            if not frontier:
                break
        if not goals:
            self.goal = None
            return None
        best = min(goals)
        kept = {cell: (kind, depth) for kind, depth, cell in goals}.get(self.goal)
        if kept is None or self.goal == self.at or kept[0] != best[0] or kept[1] > best[1] + 1:
            self.goal = best[2]
        return first[self.goal]


GAME = "chaser"
PLAYERS = {"collector": Collector, "hunter": Hunter, "wanderer": Wanderer, "mapper": Mapper,
           "tracker": Tracker}
DEMO = ("collector", "hunter")  # the demo's and a tournament's --bots programs
LEVELS = ("wanderer", "collector", "mapper", "tracker")  # levels 1 to 4, weakest first


def play(host: str, port: int, player: Player, stop: threading.Event | None = None,
         timeout: float = 30.0, connected=None) -> None:
    """Connect and play one game as `player`, as a contest program does; return at its
    end (a reply starting with 0, or the server closing). `connected(address)` is told
    this end's address before the name is sent (a server seating its own programs)."""
    with socket.create_connection((host, port), timeout=timeout) as connection:
        if connected is not None:
            connected(connection.getsockname())
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
