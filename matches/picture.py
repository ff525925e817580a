"""The board at one turn as a PNG picture, for any of the four games.

Pure: Pillow only, no Django, and no game named: the game's rules object describes
what to draw (`picture_style`) and its score (`headline`, `score_words`). In: the
rules, the board as stored (a parsed record's `board`) and one timeline/1 state; out:
PNG bytes. Drawn pictures are kept in a small LRU (`DRAWN`) by `picture_key`.
The colours and marks are the live screen's in its dark theme (static/matches/app.css,
docs/screens.md): coordinates on the top and left edges, walls solid in the team colour
with a darker border, territory a deep tint hatched in the team colour, point values in
every cell (a negative one with a real minus sign, italic and underlined), agents as a
ring in the team colour and a badge with the number, the last turn's moves as short
arrows and the cells it acted on framed or tinted (the rules' `last_turn`), its failed
actions as a framed cell and a large round ✕ (invalid) or ⚡ (conflict). A header strip
names the match, the turn and each team with its score, the leader's marked ▲ (the
rules' `leader`, the result deciding at the end).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from matches.caches import Kept

RGB = tuple[int, int, int]
Cell = tuple[int, int]


BG, PANEL, LINE = (13, 17, 23), (22, 27, 34), (48, 54, 61)
TEXT, MUTED, WHITE = (230, 237, 243), (157, 167, 179), (255, 255, 255)
BAD, EVENT, GOLD = (255, 92, 92), (255, 211, 61), (227, 179, 65)
STONE, STONE_EDGE = (61, 68, 77), (110, 118, 129)  # obstacles and CHaser blocks
TEAM = ((47, 129, 247), (240, 136, 62))
TEAM_DARK = ((17, 88, 199), (179, 90, 20))
# Territory: at least 3:1 from the background and 4.5:1 under TEXT (app.css --land-*).
LAND = ((37, 98, 184), (145, 86, 46))
ON_TEAM = BG  # text and edges on a team colour (app.css --on-team)

HEADER, MARGIN, MIN_WIDTH = 112, 16, 720
EDGE = 0.55  # the coordinates' margin, in cells
# Part of every picture's key: raise it whenever the drawing changes, so that neither
# this process nor a browser keeps showing a picture drawn the old way.
DRAWING_VERSION = 3
# Fonts for names beyond Latin (Procon teams are often named in Japanese), if installed.
WIDE_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Regular.otf", "DejaVuSans.ttf")
# Bold fonts with a real minus sign (U+2212) for the values, if installed.
BOLD_FONTS = ("DejaVuSans-Bold.ttf", "NotoSansCJK-Bold.ttc", "NotoSansCJK-Regular.ttc")
MINUS = "\u2212"


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
    """Cells of 28 to 64 px (38 at 24 × 24), the board about 960 px at most, with its
    coordinates' margin above and to the left."""
    cell = max(28, min(64, int(960 // (max(width, height) + EDGE))))
    edge = round(EDGE * cell)
    board_width, board_height = width * cell + edge, height * cell + edge
    image_width = max(board_width + 2 * MARGIN, MIN_WIDTH)
    return Layout(cell, (image_width - board_width) // 2 + edge, HEADER + MARGIN + edge,
                  (image_width, HEADER + board_height + 2 * MARGIN))


def board_png(rules: Any, board: dict[str, Any], state: dict[str, Any], *, title: str,
              teams: Sequence[str], turns: int, taken: Collection[Cell] = (),
              previous: dict[str, Any] | None = None,
              result: dict[str, Any] | None = None) -> bytes:
    """The picture of `state` (a timeline/1 state) on `board` as the game's rules
    describe it (`Presentation.picture_style`, `last_turn`, `headline`, `score_words`,
    `leader`); `taken`: the treasures collected by then (the rules' `drawing_extras`);
    `previous`: the state before (where the agents came from); `result`: the match's
    result when `state` is its last, which decides who leads."""
    grid = layout(board["width"], board["height"])
    image = Image.new("RGB", grid.size, BG)
    draw = ImageDraw.Draw(image)
    _header(draw, grid.size[0], title, teams, state, turns, rules, result)
    taken = {tuple(cell) for cell in taken}
    treasures = {(t["x"], t["y"]): t["point"] for t in board.get("treasures", [])
                 if (t["x"], t["y"]) not in taken}
    style = rules.picture_style()
    _coordinates(draw, grid, board, style.get("coordinates"))
    standing = {tuple(at) for team in state["agents"] for at in team if at}
    _cells(image, grid, board, state["cells"], style, treasures, standing)
    last = rules.last_turn(state, previous) if state.get("turn") else {}
    _traces(image, grid, board, last.get("marks", ()))
    _agents(draw, grid, board, state["agents"], style.get("labels"))
    _failures(draw, grid, board, state, rules)
    _moves(draw, grid, board, last.get("moves", ()))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def picture_key(**what: Any) -> str:
    """A short hash of everything a picture shows (match, turn, state, names, ...) and
    of the drawing's version: equal keys, equal pictures. Used as the ETag."""
    text = json.dumps([DRAWING_VERSION, what], sort_keys=True, default=sorted,
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


# The pictures drawn lately, by key (a resolved turn's picture never changes, so one
# drawing serves every viewer; `built` counts the pictures drawn).
DRAWN = Kept("board pictures", entries=64, limit=8 << 20)


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


@lru_cache(maxsize=32)
def _bold(size: int) -> ImageFont.FreeTypeFont:
    """A bold font for values and marks, with a real minus sign where one is installed."""
    for name in BOLD_FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return _font(size)


def _number(value: int) -> str:
    """A number as the screens write it: a real minus sign (U+2212), not a hyphen."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


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
            state: dict[str, Any], turns: int, rules: Any,
            result: dict[str, Any] | None) -> None:
    draw.rectangle((0, 0, width - 1, HEADER - 1), fill=PANEL)
    draw.line((0, HEADER - 1, width, HEADER - 1), fill=LINE, width=2)
    turn = f"Turn {state['turn']} / {turns}"
    _text(draw, (width - 16, 12), turn, 22, TEXT, "ra")
    room = width - 48 - draw.textlength(turn, font=_font(22))
    _text(draw, (16, 14), _fit(draw, title, 18, room), 18, MUTED, bold=False)
    half = width // 2
    draw.line((half, 48, half, 84), fill=LINE, width=2)
    numbers = rules.headline(state["scores"])
    leader = rules.leader(state["scores"], result)["team"]
    for team, name in enumerate(teams[:2]):
        number, details = _number(numbers[team]), rules.score_words(state["scores"][team])
        outer, inner = (20, half - 20) if team == 0 else (width - 20, half + 20)
        side, other = ("la", "ra") if team == 0 else ("ra", "la")
        draw.rectangle((0, 44, 7, 100) if team == 0 else (width - 8, 44, width - 1, 100),
                       fill=TEAM[team])
        mark = 26 if team == leader else 0  # ▲ before the leader's number, as on the cards
        _text(draw, (inner + mark if team == 1 else inner, 40), number, 36, TEXT, other)
        wide = draw.textlength(number, font=_font(36))
        room = half - 36 - 16 - wide - mark
        if mark:
            _leader_mark(draw, inner - wide - mark if team == 0 else inner, 52)
        _text(draw, (outer, 46), _fit(draw, name, 26, room), 26, TEAM[team], side)
        _text(draw, (outer, 82), details, 15, MUTED, side, bold=False)


def _leader_mark(draw: ImageDraw.ImageDraw, left: float, top: float) -> None:
    draw.polygon(((left + 9, top), (left + 18, top + 16), (left, top + 16)), fill=TEXT)


# --- coordinates and cells --------------------------------------------------------------


def _coordinates(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
                 names: str | None) -> None:
    """Each column's and row's name on the top and left edges: from 0, as the API counts
    them, or as the game's own codes name them (`picture_style`'s `coordinates`)."""
    size = max(10, round(grid.cell * 0.32))
    for i in range(max(board["width"], board["height"])):
        name = names[i] if names and i < len(names) else str(i)
        if i < board["width"]:
            _text(draw, grid.at(i, 0, 0.5, -0.12), name, size, MUTED, "md")
        if i < board["height"]:
            _text(draw, grid.at(0, i, -0.15, 0.5), name, size, MUTED, "rm")


def _square(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, fill: RGB,
            edge: RGB = LINE, edge_width: int = 1) -> None:
    left, top, right, bottom = grid.box(x, y)
    draw.rectangle((left, top, right - 1, bottom - 1), fill=fill, outline=edge,
                   width=edge_width)


def _wall_width(grid: Layout) -> int:
    return max(2, round(grid.cell * 0.06))


def _line(grid: Layout, share: float) -> int:
    return max(1, round(grid.cell * share))


def _points(image: Image.Image, grid: Layout, x: int, y: int, value: int, colour: RGB,
            where: tuple[float, float, float] = (0.5, 0.5, 0.42)) -> None:
    """The cell's point value at (across, down) of the cell, `size` of its height; a
    negative one with a real minus sign, italic and underlined."""
    across, down, share = where
    centre = grid.at(x, y, across, down)
    size = max(10, round(grid.cell * share))
    if value >= 0:
        ImageDraw.Draw(image).text(centre, str(value), font=_bold(size), fill=colour,
                                   anchor="mm")
        return
    _italic(image, centre, _number(value), size, colour)


def _italic(image: Image.Image, centre: tuple[int, int], text: str, size: int,
            colour: RGB) -> None:
    """Text slanted as italic (the upright font sheared by a fifth), underlined."""
    font = _bold(size)
    left, top, right, bottom = font.getbbox(text)
    slant = round(0.2 * (bottom - top))
    width, height = right - left + slant + 2, bottom - top + 2
    mask = Image.new("L", (width, height))
    ImageDraw.Draw(mask).text((1 - left, 1 - top), text, font=font, fill=255)
    # output (u, v) takes input (u + k v - k h, v): the top leans right
    mask = mask.transform(mask.size, Image.Transform.AFFINE,
                          (1, 0.2, -0.2 * height, 0, 1, 0), resample=Image.Resampling.BICUBIC)
    corner = (centre[0] - width // 2, centre[1] - height // 2)
    image.paste(colour, (*corner, corner[0] + width, corner[1] + height), mask)
    under = corner[1] + height + 1
    ImageDraw.Draw(image).line((corner[0], under, corner[0] + width - slant, under),
                               fill=colour, width=2)


def _cells(image: Image.Image, grid: Layout, board: dict[str, Any], cells: Sequence[str],
           style: dict[str, Any], treasures: dict[Cell, int], standing: set[Cell]) -> None:
    """Every cell as the game's style says (see `Presentation.picture_style`), then the
    marked cells still empty and the treasures still on the board. A value under an
    agent is a little smaller and lower, clear of the agent's badge."""
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(cells):
        for x, char in enumerate(row):
            if char in style.get("blocks", ""):
                _block(draw, grid, x, y, style.get("crossed", False))
                continue
            colour = _ground(draw, grid, cells, style, x, y)
            if char in style.get("items", ""):
                draw.ellipse((*grid.at(x, y, 0.32, 0.32), *grid.at(x, y, 0.68, 0.68)),
                             fill=GOLD, outline=BG)
            if not style.get("values"):
                continue
            where = ((0.5, 0.3, 0.3) if (x, y) in treasures else
                     (0.53, 0.6, 0.34) if (x, y) in standing else (0.5, 0.5, 0.42))
            _points(image, grid, x, y, board["points"][y][x], colour, where)
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
        return ON_TEAM
    if char in pieces:
        _piece(draw, grid, cells, x, y, pieces.index(char))
        return ON_TEAM
    if char in land:
        _land(draw, grid, x, y, land.index(char))
        return TEXT
    _square(draw, grid, x, y, BG)
    return MUTED


def _land(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, team: int) -> None:
    """Territory: the deep tint, hatched with thin stripes of the team colour running
    from the lower left to the upper right, so that it never looks like a solid wall."""
    _square(draw, grid, x, y, LAND[team])
    left, top, right, bottom = grid.box(x, y)
    period, width = max(6, grid.cell * 0.3), _line(grid, 0.06)
    offset = (left + top) % period  # stripes continue from cell to cell
    step = -offset
    while step < 2 * grid.cell:
        # the line x + y = left + top + step, clipped to the cell
        start = (left + max(0, step - grid.cell + 1), top + min(step, grid.cell - 1))
        end = (left + min(step, grid.cell - 1), top + max(0, step - grid.cell + 1))
        if step >= 0:
            draw.line((*start, *end), fill=TEAM[team], width=width)
        step += period
    draw.rectangle((left, top, right - 1, bottom - 1), outline=LINE)


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
    draw.text(((left + right) / 2, (top + bottom) / 2), _number(point),
              font=_bold(max(10, round(grid.cell * 0.28))), fill=BG, anchor="mm")


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


# --- the last turn, agents and failed actions ----------------------------------------


def _on_board(board: dict[str, Any], x: Any, y: Any) -> bool:
    return (type(x) is int and type(y) is int and 0 <= x < board["width"]
            and 0 <= y < board["height"])


def _traces(image: Image.Image, grid: Layout, board: dict[str, Any],
            marks: Sequence[Sequence[Any]]) -> None:
    """What the last turn did to cells (the rules' `last_turn`): "acted" a dashed frame,
    "read" a tint and a frame in the reader's colour, "placed" a white dot ringed dark."""
    draw = ImageDraw.Draw(image, "RGBA")
    for x, y, kind, team in marks:
        if not _on_board(board, x, y):
            continue
        if kind == "read":
            left, top, right, bottom = grid.box(x, y)
            draw.rectangle((left, top, right - 1, bottom - 1), fill=(*TEAM[team], 77),
                           outline=TEAM[team], width=_line(grid, 0.06))
        elif kind == "placed":
            box = (*grid.at(x, y, 0.32, 0.32), *grid.at(x, y, 0.68, 0.68))
            draw.ellipse(box, fill=WHITE, outline=ON_TEAM, width=_line(grid, 0.05))
        else:
            _dashed_frame(draw, grid, x, y, 0.12, TEXT, BG)


def _dashed_frame(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, inset: float,
                  colour: RGB, casing: RGB) -> None:
    """A square frame of dashes, `inset` into the cell, each dash edged in `casing`."""
    (left, top), (right, bottom) = grid.at(x, y, inset, inset), grid.at(x, y, 1 - inset, 1 - inset)
    width, dash = _line(grid, 0.07), max(3, grid.cell * 0.12)
    for side in ((left, top, right, top), (right, top, right, bottom),
                 (right, bottom, left, bottom), (left, bottom, left, top)):
        x0, y0, x1, y1 = side
        length = max(abs(x1 - x0), abs(y1 - y0))
        at = 0.0
        while at < length:
            end = min(at + dash, length)
            segment = (x0 + (x1 - x0) * at / length, y0 + (y1 - y0) * at / length,
                       x0 + (x1 - x0) * end / length, y0 + (y1 - y0) * end / length)
            draw.line(segment, fill=casing, width=width + 2)
            draw.line(segment, fill=colour, width=width)
            at += 2 * dash


def _agents(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
            agents: Sequence[Sequence[Any]], labels: Sequence[str] | None) -> None:
    """A ring in the team colour round the cell and a badge with the agent's number in
    its upper left corner, both edged in the dark ink; a team's one player (`labels`) a
    large ringed disc with its letter."""
    for team, team_agents in enumerate(agents):
        for number, at in enumerate(team_agents):
            if at and _on_board(board, *at):
                if labels:
                    _player(draw, grid, *at, team, labels[team])
                else:
                    _agent(draw, grid, *at, team, str(number))


def _agent(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, team: int,
           label: str) -> None:
    casing, width = _line(grid, 0.03), _line(grid, 0.07)
    ring = (*grid.at(x, y, 0.03, 0.03), *grid.at(x, y, 0.97, 0.97))
    radius = round(grid.cell * 0.2)
    draw.rounded_rectangle(ring, radius, outline=ON_TEAM, width=width + 2 * casing)
    inner = (ring[0] + casing, ring[1] + casing, ring[2] - casing, ring[3] - casing)
    draw.rounded_rectangle(inner, radius, outline=TEAM[team], width=width)
    font = _bold(max(9, round(grid.cell * 0.34)))
    wide = max(grid.cell * 0.5, draw.textlength(label, font=font) + grid.cell * 0.14)
    left, top = grid.at(x, y, -0.04, -0.04)
    badge = (left, top, left + wide, top + grid.cell * 0.5)
    draw.rounded_rectangle(badge, radius=grid.cell * 0.25, fill=TEAM[team], outline=ON_TEAM,
                           width=casing)
    draw.text(((badge[0] + badge[2]) / 2, (badge[1] + badge[3]) / 2), label, fill=ON_TEAM,
              anchor="mm", font=font)


def _player(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, team: int,
            label: str) -> None:
    casing, width = _line(grid, 0.03), _line(grid, 0.1)
    box = (*grid.at(x, y, 0.06, 0.06), *grid.at(x, y, 0.94, 0.94))
    draw.ellipse(box, outline=ON_TEAM, width=width + 2 * casing)
    draw.ellipse((box[0] + casing, box[1] + casing, box[2] - casing, box[3] - casing),
                 outline=TEAM[team], width=width)
    badge = (*grid.at(x, y, 0.2, 0.2), *grid.at(x, y, 0.8, 0.8))
    draw.ellipse(badge, fill=TEAM[team], outline=ON_TEAM, width=casing)
    draw.text(grid.at(x, y, 0.5, 0.5), label, fill=ON_TEAM, anchor="mm",
              font=_bold(max(10, round(grid.cell * 0.42))))


def _failures(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
              state: dict[str, Any], rules: Any) -> None:
    """Last turn's failed actions on their target: a thick frame (solid: invalid,
    dashed: conflict) and a large round mark in its lower right corner, a ✕ in red or a
    ⚡ in amber, edged in the dark ink."""
    for team, outcomes in enumerate(state.get("outcomes") or ()):
        for outcome in outcomes:
            # (an action that failed moved nobody: its agent is where it stood)
            target = None if outcome.get("result") == "ok" else rules.action_target(
                outcome, state["agents"][team])
            if target is None or not _on_board(board, *target):
                continue
            invalid = outcome.get("result") == "invalid"
            _failure_frame(draw, grid, *target, BAD if invalid else EVENT, dashed=not invalid)
            left, top = grid.at(*target, 0.54, 0.54)
            size = grid.cell * 0.5
            draw.ellipse((left, top, left + size, top + size), fill=BAD if invalid else EVENT,
                         outline=ON_TEAM, width=_line(grid, 0.03))
            (_cross if invalid else _bolt)(draw, (left + size * 0.25, top + size * 0.22),
                                           size * 0.54)


def _failure_frame(draw: ImageDraw.ImageDraw, grid: Layout, x: int, y: int, colour: RGB,
                   dashed: bool) -> None:
    left, top, right, bottom = grid.box(x, y)
    width = _line(grid, 0.1)
    if dashed:
        _dashed_frame(draw, grid, x, y, 0.05, colour, ON_TEAM)
        return
    draw.rectangle((left, top, right - 1, bottom - 1), outline=colour, width=width)
    draw.rectangle((left + width, top + width, right - 1 - width, bottom - 1 - width),
                   outline=ON_TEAM, width=_line(grid, 0.025))


def _cross(draw: ImageDraw.ImageDraw, corner: tuple[float, float], size: float) -> None:
    left, top = corner
    width = max(2, round(size / 5))
    for line in ((left, top, left + size, top + size), (left, top + size, left + size, top)):
        draw.line(line, fill=ON_TEAM, width=width)


def _bolt(draw: ImageDraw.ImageDraw, corner: tuple[float, float], size: float) -> None:
    left, top = corner
    shape = ((0.6, 0), (0.1, 0.58), (0.45, 0.58), (0.3, 1), (0.9, 0.4), (0.55, 0.4), (0.75, 0))
    draw.polygon([(left + a * size, top + b * size) for a, b in shape], fill=ON_TEAM)


def _moves(draw: ImageDraw.ImageDraw, grid: Layout, board: dict[str, Any],
           moves: Sequence[Sequence[Any]]) -> None:
    """Each move of the last turn as a short arrow across the edge between the two
    cells, in the team colour on a dark casing (drawn over everything, as on screen)."""
    shown = [move for move in moves if _on_board(board, *move[0]) and _on_board(board, *move[1])]
    for casing in (True, False):
        for (x0, y0), (x1, y1), team in shown:
            _arrow(draw, grid, (x0, y0), (x1, y1), ON_TEAM if casing else TEAM[team],
                   0.18 if casing else 0.09)


def _arrow(draw: ImageDraw.ImageDraw, grid: Layout, start: Cell, end: Cell, colour: RGB,
           width: float) -> None:
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    length = (dx * dx + dy * dy) ** 0.5 or 1
    ux, uy = dx / length, dy / length
    origin = grid.at(0, 0, 0, 0)

    def point(x: float, y: float) -> tuple[float, float]:
        return origin[0] + x * grid.cell, origin[1] + y * grid.cell

    sx, sy = x0 + 0.5 + dx * 0.26, y0 + 0.5 + dy * 0.26  # clear of both cells' middles
    ex, ey = x0 + 0.5 + dx * 0.64, y0 + 0.5 + dy * 0.64
    head = 0.18 + width
    bx, by = ex - ux * head, ey - uy * head
    draw.line((*point(sx, sy), *point(bx, by)), fill=colour, width=max(2, round(width * grid.cell)))
    tip = point(ex + ux * (width - 0.1), ey + uy * (width - 0.1))
    side = head * 0.8 + (width - 0.1)
    wings = (point(bx - uy * side, by + ux * side), point(bx + uy * side, by - ux * side))
    draw.polygon((tip, *wings), fill=colour)
