"""The board at one turn as a PNG picture, for any of the four games.

Pure: Pillow only, no Django, and no game named: the game's rules object describes
what to draw (`picture_style`) and its score (`headline`, `score_words`). In: the
rules, the board as stored (a parsed record's `board`) and one timeline/1 state; out:
PNG bytes. Drawn pictures are kept in a small LRU (`DRAWN`) by `picture_key`.
The colours and marks are the live screen's (static/matches/app.css,
docs/screens.md): walls solid in the team colour with a darker border, territory a
30 % tint, point values in every cell (negative ones underlined), agents as circles
with their number, last turn's failed actions as a red ✕ or a yellow ⚡ on the target.
A header strip names the match, the turn and each team with its score.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

RGB = tuple[int, int, int]
Cell = tuple[int, int]


def _mix(colour: RGB, share: float, base: RGB) -> RGB:
    return tuple(round(share * c + (1 - share) * b) for c, b in zip(colour, base, strict=True))


BG, PANEL, LINE = (13, 17, 23), (22, 27, 34), (48, 54, 61)
TEXT, MUTED, WHITE = (230, 237, 243), (157, 167, 179), (255, 255, 255)
BAD, EVENT, GOLD = (255, 92, 92), (255, 211, 61), (227, 179, 65)
STONE, STONE_EDGE = (61, 68, 77), (110, 118, 129)  # obstacles and CHaser blocks
TEAM = ((47, 129, 247), (240, 136, 62))
TEAM_DARK = ((17, 88, 199), (179, 90, 20))
LAND = tuple(_mix(colour, 0.3, BG) for colour in TEAM)

HEADER, MARGIN, MIN_WIDTH = 112, 16, 720
# Part of every picture's key: raise it whenever the drawing changes, so that neither
# this process nor a browser keeps showing a picture drawn the old way.
DRAWING_VERSION = 1
# Fonts for names beyond Latin (Procon teams are often named in Japanese), if installed.
WIDE_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Regular.otf", "DejaVuSans.ttf")


@dataclass(frozen=True)
class Layout:
    """Where the board's cells are in the picture."""

    cell: int
    left: int
    top: int
    size: tuple[int, int]

    def box(self, x: int, y: int) -> tuple[int, int, int, int]:
        left, top = self.left + x * self.cell, self.top + y * self.cell
        return left, top, left + self.cell, top + self.cell

    def at(self, x: int, y: int, across: float, down: float) -> tuple[int, int]:
        """The point of cell (x, y) at these fractions of its width and height."""
        left, top, _, _ = self.box(x, y)
        return left + int(across * self.cell), top + int(down * self.cell)


def layout(width: int, height: int) -> Layout:
    """Cells of 28 to 64 px (40 at 24 × 24), the board about 960 px at most."""
    cell = max(28, min(64, 960 // max(width, height)))
    board_width, board_height = width * cell, height * cell
    image_width = max(board_width + 2 * MARGIN, MIN_WIDTH)
    return Layout(cell, (image_width - board_width) // 2, HEADER + MARGIN,
                  (image_width, HEADER + board_height + 2 * MARGIN))


def board_png(rules: Any, board: dict[str, Any], state: dict[str, Any], *, title: str,
              teams: Sequence[str], turns: int, taken: Collection[Cell] = ()) -> bytes:
    """The picture of `state` (a timeline/1 state) on `board` as the game's rules
    describe it (`Presentation.picture_style`, `headline`, `score_words`); `taken`:
    the treasures collected by then (the rules' `drawing_extras`)."""
    grid = layout(board["width"], board["height"])
    image = Image.new("RGB", grid.size, BG)
    draw = ImageDraw.Draw(image)
    _header(draw, grid.size[0], title, teams, state, turns, rules)
    taken = {tuple(cell) for cell in taken}
    treasures = {(t["x"], t["y"]): t["point"] for t in board.get("treasures", [])
                 if (t["x"], t["y"]) not in taken}
    style = rules.picture_style()
    _cells(draw, grid, board, state["cells"], style, treasures)
    _agents(draw, grid, state["agents"], style.get("labels"))
    _failures(draw, grid, board, state)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def picture_key(**what: Any) -> str:
    """A short hash of everything a picture shows (match, turn, state, names, ...) and
    of the drawing's version: equal keys, equal pictures. Used as the ETag."""
    text = json.dumps([DRAWING_VERSION, what], sort_keys=True, default=sorted,
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Drawn:
    """The pictures drawn lately, by key: at most `entries` of them and `limit` bytes
    in all, the least recently used going first. `drawn` counts the pictures drawn
    (a resolved turn's picture never changes, so one drawing serves every viewer)."""

    def __init__(self, entries: int = 64, limit: int = 8 << 20) -> None:
        self.entries, self.limit = entries, limit
        self.drawn = 0
        self._pictures: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pictures)

    def size(self) -> int:
        return sum(len(png) for png in self._pictures.values())

    def get(self, key: str, draw: Callable[[], bytes]) -> bytes:
        with self._lock:
            if key in self._pictures:
                self._pictures.move_to_end(key)
                return self._pictures[key]
        png = draw()  # outside the lock: two requests may draw one picture twice, rarely
        with self._lock:
            self.drawn += 1
            self._pictures[key] = png
            self._pictures.move_to_end(key)
            while len(self._pictures) > self.entries or (
                    len(self._pictures) > 1 and self.size() > self.limit):
                self._pictures.popitem(last=False)
        return png


DRAWN = Drawn()


# --- text --------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _font(size: int, wide: bool = False) -> ImageFont.FreeTypeFont:
    for name in WIDE_FONTS if wide else ():
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _font_for(text: str, size: int) -> ImageFont.FreeTypeFont:
    return _font(size, wide=any(ord(char) > 0xFF for char in text))


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, room: float) -> str:
    """The text, cut with "..." to fit in `room` pixels."""
    text, font = text[:200], _font_for(text, size)
    if draw.textlength(text, font=font) <= room:
        return text
    while text and draw.textlength(text + "...", font=font) > room:
        text = text[:-1]
    return text + "..."


def _text(draw: ImageDraw.ImageDraw, at: tuple[float, float], text: str, size: int,
          fill: RGB, anchor: str = "la", bold: bool = True) -> None:
    # The default font has no bold; a stroke thickens large text (small text would blur).
    draw.text(at, text, font=_font_for(text, size), fill=fill, anchor=anchor,
              stroke_width=1 if bold and size >= 20 else 0, stroke_fill=fill)


# --- the header strip ----------------------------------------------------------------


def _header(draw: ImageDraw.ImageDraw, width: int, title: str, teams: Sequence[str],
            state: dict[str, Any], turns: int, rules: Any) -> None:
    draw.rectangle((0, 0, width - 1, HEADER - 1), fill=PANEL)
    draw.line((0, HEADER - 1, width, HEADER - 1), fill=LINE, width=2)
    turn = f"Turn {state['turn']} / {turns}"
    _text(draw, (width - 16, 12), turn, 22, TEXT, "ra")
    room = width - 48 - draw.textlength(turn, font=_font(22))
    _text(draw, (16, 14), _fit(draw, title, 18, room), 18, MUTED, bold=False)
    half = width // 2
    draw.line((half, 48, half, 84), fill=LINE, width=2)
    numbers = rules.headline(state["scores"])
    for team, name in enumerate(teams[:2]):
        number, details = str(numbers[team]), rules.score_words(state["scores"][team])
        outer, inner = (20, half - 20) if team == 0 else (width - 20, half + 20)
        side, other = ("la", "ra") if team == 0 else ("ra", "la")
        draw.rectangle((0, 44, 7, 100) if team == 0 else (width - 8, 44, width - 1, 100),
                       fill=TEAM[team])
        _text(draw, (inner, 40), number, 36, TEXT, other)
        room = half - 36 - 16 - draw.textlength(number, font=_font(36))
        _text(draw, (outer, 46), _fit(draw, name, 26, room), 26, TEAM[team], side)
        _text(draw, (outer, 82), details, 15, MUTED, side, bold=False)


# --- cells -----------------------------------------------------------------------------


def _square(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, fill: RGB,
            edge: RGB = LINE, edge_width: int = 1) -> None:
    left, top, right, bottom = grid.box(x, y)
    draw.rectangle((left, top, right - 1, bottom - 1), fill=fill, outline=edge,
                   width=edge_width)


def _wall_width(grid: Layout) -> int:
    return max(2, round(grid.cell * 0.06))


def _points(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, value: int,
            colour: RGB, raised: bool = False) -> None:
    """The cell's point value; a negative one with a minus sign and underlined. Raised
    and smaller over a treasure's badge."""
    centre = grid.at(x, y, 0.5, 0.3 if raised else 0.5)
    text = str(value)
    size = max(11, round(grid.cell * (0.3 if raised else 0.42)))
    _text(draw, centre, text, size, colour, "mm")
    if value < 0:
        left, _, right, bottom = draw.textbbox(centre, text, font=_font(size), anchor="mm")
        draw.line((left, bottom + 2, right, bottom + 2), fill=colour, width=2)


def _cells(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
           cells: Sequence[str], style: dict[str, Any], treasures: dict[Cell, int]) -> None:
    """Every cell as the game's style says (see `Presentation.picture_style`), then the
    marked cells still empty and the treasures still on the board."""
    for y, row in enumerate(cells):
        for x, char in enumerate(row):
            if char in style.get("blocks", ""):
                _block(draw, grid, x, y, style.get("crossed", False))
                continue
            colour = _ground(draw, grid, cells, style, x, y)
            if char in style.get("items", ""):
                draw.ellipse((*grid.at(x, y, 0.32, 0.32), *grid.at(x, y, 0.68, 0.68)),
                             fill=GOLD, outline=BG)
            if style.get("values"):
                _points(draw, grid, x, y, board["points"][y][x], colour, (x, y) in treasures)
    for team, marked in enumerate(style.get("marked", ((), ()))):
        for x, y in marked:
            if cells[y][x] == ".":  # e.g. the square a team's first piece must cover
                draw.ellipse((*grid.at(x, y, 0.3, 0.3), *grid.at(x, y, 0.7, 0.7)),
                             outline=TEAM[team], width=max(2, grid.cell // 12))
    for (x, y), point in treasures.items():
        _treasure(draw, grid, x, y, point)


def _ground(draw: ImageDraw.ImageDraw, grid: Layout, cells: Sequence[str],
            style: dict[str, Any], x: int, y: int) -> RGB:
    """A wall, a piece's square, a team's land or the floor; returns the colour its
    point value is written in."""
    char = cells[y][x]
    walls, pieces, land = (style.get(key, ()) for key in ("walls", "pieces", "territory"))
    if char in walls:
        team = walls.index(char)
        _square(draw, grid, x, y, TEAM[team], TEAM_DARK[team], _wall_width(grid))
        return WHITE
    if char in pieces:
        _piece(draw, grid, cells, x, y, pieces.index(char))
        return WHITE
    if char in land:
        _square(draw, grid, x, y, LAND[land.index(char)])
        return TEXT
    _square(draw, grid, x, y, BG)
    return MUTED


def _block(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, crossed: bool) -> None:
    """A stone: an obstacle (crossed) or a block."""
    _square(draw, grid, x, y, STONE, STONE_EDGE, _wall_width(grid))
    if not crossed:
        return
    (left, top), (right, bottom) = grid.at(x, y, 0.3, 0.3), grid.at(x, y, 0.7, 0.7)
    width = max(2, round(grid.cell * 0.07))
    draw.line((left, top, right, bottom), fill=STONE_EDGE, width=width)
    draw.line((left, bottom, right, top), fill=STONE_EDGE, width=width)


def _treasure(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, point: int) -> None:
    """A gold frame, and a gold badge with the treasure's value under the cell's own."""
    left, top, right, bottom = grid.box(x, y)
    draw.rectangle((left, top, right - 1, bottom - 1), outline=GOLD, width=_wall_width(grid))
    (left, top), (right, bottom) = grid.at(x, y, 0.16, 0.54), grid.at(x, y, 0.84, 0.9)
    draw.rounded_rectangle((left, top, right, bottom), radius=grid.cell // 10, fill=GOLD)
    _text(draw, ((left + right) / 2, (top + bottom) / 2), str(point),
          max(10, round(grid.cell * 0.28)), BG, "mm")


def _piece(draw: ImageDraw.ImageDraw, grid: Layout, cells: Sequence[str], x: int, y: int,
           team: int) -> None:
    """One square of a team's piece; the piece's outline is thick. Pieces of one colour
    never share an edge, so every edge between squares of one colour is inside a piece."""
    char = cells[y][x]

    def same(x: int, y: int) -> bool:
        return 0 <= y < len(cells) and 0 <= x < len(cells[y]) and cells[y][x] == char

    edge = max(3, round(grid.cell * 0.08))
    _square(draw, grid, x, y, TEAM[team], TEAM_DARK[team])
    left, top, right, bottom = grid.box(x, y)
    sides = {(0, -1): (left, top, right - 1, top + edge - 1),
             (0, 1): (left, bottom - edge, right - 1, bottom - 1),
             (-1, 0): (left, top, left + edge - 1, bottom - 1),
             (1, 0): (right - edge, top, right - 1, bottom - 1)}
    for (dx, dy), side in sides.items():
        if not same(x + dx, y + dy):
            draw.rectangle(side, fill=TEAM_DARK[team])


# --- agents and failed actions -----------------------------------------------------


def _agents(draw: ImageDraw.ImageDraw, grid: Layout, agents: Sequence[Sequence[Any]],
            labels: Sequence[str] | None) -> None:
    """A circle in the team's dark colour, a white outline, the agent's number."""
    outline = max(2, round(grid.cell * 0.07))
    size = max(10, round(grid.cell * 0.4))
    for team, team_agents in enumerate(agents):
        for number, at in enumerate(team_agents):
            if not at:
                continue
            x, y = at
            box = (*grid.at(x, y, 0.12, 0.12), *grid.at(x, y, 0.88, 0.88))
            draw.ellipse(box, fill=TEAM_DARK[team], outline=WHITE, width=outline)
            label = labels[team] if labels else str(number)
            _text(draw, grid.at(x, y, 0.5, 0.5), label, size, WHITE, "mm")


def _failures(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
              state: dict[str, Any]) -> None:
    """Last turn's failed actions: ✕ invalid, ⚡ conflict, on the target's upper right."""
    for team, outcomes in enumerate(state.get("outcomes") or ()):
        for outcome in outcomes:
            target = None if outcome.get("result") == "ok" else _target(
                outcome, state["agents"][team])
            if target is None:
                continue
            x, y = target
            if 0 <= x < board["width"] and 0 <= y < board["height"]:
                mark = _cross if outcome.get("result") == "invalid" else _bolt
                mark(draw, grid.at(x, y, 0.62, 0.03), grid.cell * 0.36)


def _target(outcome: dict[str, Any], agents: Sequence[Any]) -> Cell | None:
    """The cell an action aimed at: its x, y (Kakomimasu), or for a Procon 2020 move or
    remove, dx, dy from where its agent stands (an action that failed moved nobody)."""
    def whole(key: str) -> bool:
        return type(outcome.get(key)) is int

    if whole("x") and whole("y"):
        return outcome["x"], outcome["y"]
    agent = outcome.get("agent")
    if whole("dx") and whole("dy") and type(agent) is int and 0 <= agent < len(agents):
        at = agents[agent]
        return (at[0] + outcome["dx"], at[1] + outcome["dy"]) if at else None
    return None


def _cross(draw: ImageDraw.ImageDraw, corner: tuple[int, int], size: float) -> None:
    left, top = corner
    width = max(2, round(size / 6))
    for line in ((left, top, left + size, top + size), (left, top + size, left + size, top)):
        draw.line(line, fill=BG, width=width + 2)
        draw.line(line, fill=BAD, width=width)


def _bolt(draw: ImageDraw.ImageDraw, corner: tuple[int, int], size: float) -> None:
    left, top = corner
    shape = ((0.6, 0), (0.1, 0.58), (0.45, 0.58), (0.3, 1), (0.9, 0.4), (0.55, 0.4), (0.75, 0))
    draw.polygon([(left + a * size, top + b * size) for a, b in shape], fill=EVENT, outline=BG)
