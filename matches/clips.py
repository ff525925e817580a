"""A range of a match's turns as an animated GIF (`/matches/<id>/replay.gif`), in the
screens' look: the board's cells in the team colours, the point values, stones, items,
treasures and agents, and a strip with each team's name and score and the turn.

Pure, as `matches.picture` is (Pillow and numpy, no Django, no game named: the rules'
`picture_style`, `headline` and `drawing_extras` say what to draw), and fast: a clip is
a hundred frames, so nothing is drawn a frame that can be drawn once. Each frame is an
array of palette indices: the cells' fills from a lookup of their characters, then the
marks drawn once for the whole board (grid lines, values, crosses, dots) laid on where
they belong, then the agents' discs; the GIF encoder of Pillow stores only what changed
from the frame before. bench/clips.py prints how long a clip takes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from matches.picture import (
    BG,
    GOLD,
    LAND,
    LINE,
    MUTED,
    STONE,
    STONE_EDGE,
    TEAM,
    TEAM_DARK,
    TEXT,
    WHITE,
    _bold,
    _font_for,
    _number,
)

FRAMES = 240  # the most turns a clip shows
STRIP = 44  # the header strip's height, px
PAD = 8
BOARD_PX = 560  # the board's longer side at most, px
# The light theme's colours for what differs from the dark one (static/matches/app.css).
LIGHT = {"bg": (255, 255, 255), "line": (208, 215, 222), "text": (31, 35, 40),
         "muted": (87, 96, 106)}


@dataclass(frozen=True)
class Palette:
    """The clip's colours by index (a GIF frame holds at most 256)."""

    colours: tuple[tuple[int, int, int], ...]

    def index(self, name: str) -> int:
        return NAMES.index(name)

    def flat(self) -> list[int]:
        return [value for colour in self.colours for value in colour]


NAMES = ("bg", "line", "text", "muted", "team0", "team1", "dark0", "dark1", "land0",
         "land1", "stone", "stone_edge", "gold", "white", "ink", "unchanged")
# A frame after the first keeps only what changed: the rest is this transparent index,
# which shows the frame before through (and compresses to almost nothing).
UNCHANGED = NAMES.index("unchanged")


def palette(theme: str) -> Palette:
    light = theme == "light"
    pick = LIGHT if light else {"bg": BG, "line": LINE, "text": TEXT, "muted": MUTED}
    return Palette((pick["bg"], pick["line"], pick["text"], pick["muted"], TEAM[0], TEAM[1],
                    TEAM_DARK[0], TEAM_DARK[1], LAND[0], LAND[1], STONE, STONE_EDGE, GOLD,
                    WHITE, BG, (255, 0, 255)))


def cell_size(width: int, height: int) -> int:
    return max(8, min(28, BOARD_PX // max(width, height)))


def clip_gif(rules: Any, board: Mapping[str, Any], states: Sequence[Mapping[str, Any]], *,
             teams: Sequence[str], turns: int, turn_word: str, frame_ms: int = 500,
             theme: str = "dark", taken: Sequence[Sequence[Sequence[int]]] = ()) -> bytes:
    """The GIF of `states` (timeline/1 states, one a frame, the last held twice as long);
    `taken[i]`: the treasures collected by `states[i]` (the rules' `drawing_extras`);
    `turn_word`: "turn" in the clip's language."""
    colours = palette(theme)
    width, height = board["width"], board["height"]
    cell = cell_size(width, height)
    style = rules.picture_style()
    image_w = max(width * cell + 2 * PAD, 480)  # room for both names and the turn
    left = (image_w - width * cell) // 2
    top = STRIP + PAD
    size = (image_w, top + height * cell + PAD)
    fills = _fill_lookup(style, colours)
    ink = _board_ink(board, style, cell, colours)
    dot = _disc(cell, 0.36)
    ring, hole = _disc(cell, 0.46), _disc(cell, 0.3)
    labels = style.get("labels")
    frames = []
    before = None
    for number, state in enumerate(states[:FRAMES]):
        grid = np.array([[fills.get(char, 0) for char in row] for row in state["cells"]],
                        dtype=np.uint8) if state["cells"] else np.zeros((height, width), np.uint8)
        pixels = np.repeat(np.repeat(grid, cell, axis=0), cell, axis=1)
        _lay(pixels, ink, grid, colours, style)
        items = np.isin(np.array([list(row) for row in state["cells"]]),
                        list(style.get("items", "") or "\0"))
        if items.any():
            _stamp_cells(pixels, items, dot, cell, colours.index("gold"))
        gone = {tuple(at) for at in (taken[number] if number < len(taken) else ())}
        for treasure in board.get("treasures", ()):
            if (treasure["x"], treasure["y"]) not in gone:
                _frame_cell(pixels, treasure["x"], treasure["y"], cell, colours.index("gold"))
        for team, agents in enumerate(state.get("agents", ())):
            for agent, at in enumerate(agents):
                if at:
                    _agent(pixels, at, cell, ring, hole, colours, team,
                           labels[team] if labels else str(agent))
        frame = np.full((size[1], size[0]), colours.index("bg"), dtype=np.uint8)
        frame[top:top + height * cell, left:left + width * cell] = pixels
        picture = Image.fromarray(frame, "P")
        picture.putpalette(colours.flat())
        _strip(picture, rules, state, teams, turns, turn_word, colours)
        whole = np.asarray(picture)
        if before is not None:
            changed = whole.copy()
            changed[whole == before] = UNCHANGED
            picture = Image.fromarray(changed, "P")
            picture.putpalette(colours.flat())
        before = whole
        frames.append(picture)
    out = io.BytesIO()
    durations = [frame_ms] * (len(frames) - 1) + [frame_ms * 3]
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], loop=0,
                   duration=durations, disposal=1, optimize=False, transparency=UNCHANGED)
    return out.getvalue()


def _fill_lookup(style: Mapping[str, Any], colours: Palette) -> dict[str, int]:
    """Each cell character's fill, as the screens colour it (`picture_style`)."""
    fills: dict[str, int] = {}
    for key, names in (("walls", ("team0", "team1")), ("pieces", ("team0", "team1")),
                       ("territory", ("land0", "land1"))):
        for char, name in zip(style.get(key, ()), names, strict=False):
            fills[char] = colours.index(name)
    for char in style.get("blocks", ""):
        fills[char] = colours.index("stone")
    return fills


@dataclass
class Ink:
    """What is drawn once for the whole board: the grid lines, and each cell's marks
    (its value, a stone's cross), which take the colour that reads on the cell's fill."""

    lines: np.ndarray  # bool, the board's pixels
    marks: np.ndarray  # bool, the board's pixels
    cross: np.ndarray  # bool: the stones' crosses, where the cells are stones


def _board_ink(board: Mapping[str, Any], style: Mapping[str, Any], cell: int,
               colours: Palette) -> Ink:
    width, height = board["width"], board["height"]
    shape = (height * cell, width * cell)
    lines = np.zeros(shape, dtype=bool)
    lines[::cell, :] = lines[:, ::cell] = True
    lines[-1, :] = lines[:, -1] = True
    marks = np.zeros(shape, dtype=bool)
    if style.get("values") and cell >= 14:
        for y, row in enumerate(board["points"]):
            for x, value in enumerate(row):
                marks[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell] |= _value_mask(value, cell)
    cross = np.tile(_cross_mask(cell), (height, width)) if style.get("crossed") else \
        np.zeros(shape, dtype=bool)
    return Ink(lines, marks, cross)


def _lay(pixels: np.ndarray, ink: Ink, grid: np.ndarray, colours: Palette,
         style: Mapping[str, Any]) -> None:
    """The board's marks on this frame's fills: values dark on a team's colour, muted on
    the floor, light on land; crosses on stones; the grid lines over all."""
    cell = pixels.shape[0] // grid.shape[0]
    on_team = np.isin(grid, [colours.index("team0"), colours.index("team1")])
    stone = grid == colours.index("stone")
    tone = np.where(on_team, colours.index("ink"),
                    np.where(np.isin(grid, [colours.index("land0"), colours.index("land1")]),
                             colours.index("text"), colours.index("muted"))).astype(np.uint8)
    values = ink.marks & ~np.repeat(np.repeat(stone, cell, 0), cell, 1)
    pixels[values] = np.repeat(np.repeat(tone, cell, 0), cell, 1)[values]
    crosses = ink.cross & np.repeat(np.repeat(stone, cell, 0), cell, 1)
    pixels[crosses] = colours.index("stone_edge")
    pixels[ink.lines] = colours.index("line")


@lru_cache(maxsize=256)
def _value_mask(value: int, cell: int) -> np.ndarray:
    """A cell's value written in its middle, as a bool mask of the cell."""
    mark = Image.new("L", (cell, cell), 0)
    ImageDraw.Draw(mark).text((cell / 2, cell / 2), _number(value),
                              font=_bold(max(7, round(cell * 0.42))), fill=255, anchor="mm")
    return np.asarray(mark) > 110


@lru_cache(maxsize=16)
def _cross_mask(cell: int) -> np.ndarray:
    mark = Image.new("L", (cell, cell), 0)
    draw = ImageDraw.Draw(mark)
    low, high, width = cell * 0.28, cell * 0.72, max(1, round(cell * 0.08))
    draw.line((low, low, high, high), fill=255, width=width)
    draw.line((low, high, high, low), fill=255, width=width)
    return np.asarray(mark) > 110


@lru_cache(maxsize=32)
def _disc(cell: int, radius: float) -> np.ndarray:
    """A disc of `radius` cells at the middle of a cell, as a bool mask of the cell."""
    centre = (cell - 1) / 2
    y, x = np.ogrid[:cell, :cell]
    return (x - centre) ** 2 + (y - centre) ** 2 <= (radius * cell) ** 2


@lru_cache(maxsize=64)
def _label_mask(text: str, cell: int) -> np.ndarray:
    mark = Image.new("L", (cell, cell), 0)
    ImageDraw.Draw(mark).text((cell / 2, cell / 2), text,
                              font=_bold(max(7, round(cell * 0.4))), fill=255, anchor="mm")
    return np.asarray(mark) > 110


def _stamp_cells(pixels: np.ndarray, where: np.ndarray, mask: np.ndarray, cell: int,
                 colour: int) -> None:
    for y, x in zip(*np.nonzero(where), strict=True):
        block = pixels[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
        block[mask] = colour


def _frame_cell(pixels: np.ndarray, x: int, y: int, cell: int, colour: int) -> None:
    edge = max(2, cell // 8)
    block = pixels[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
    block[:edge, :] = block[-edge:, :] = block[:, :edge] = block[:, -edge:] = colour


def _agent(pixels: np.ndarray, at: Sequence[int], cell: int, ring: np.ndarray,
           hole: np.ndarray, colours: Palette, team: int, label: str) -> None:
    """An agent: a disc in its team's colour with a dark middle, its number or letter in
    the middle where the cells are large enough to read one."""
    x, y = at
    if not (0 <= y < pixels.shape[0] // cell and 0 <= x < pixels.shape[1] // cell):
        return
    block = pixels[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
    block[ring] = colours.index("white")
    block[_disc(cell, 0.4)] = colours.index(f"team{team}")
    if cell >= 16:
        block[hole] = colours.index(f"dark{team}")
        block[_label_mask(label, cell)] = colours.index("white")


def _strip(picture: Image.Image, rules: Any, state: Mapping[str, Any], teams: Sequence[str],
           turns: int, turn_word: str, colours: Palette) -> None:
    """Each team's name and number in its colour, and the turn in the middle."""
    draw = ImageDraw.Draw(picture)
    width = picture.size[0]
    numbers = rules.headline(state["scores"])
    middle = f"{turn_word} {state['turn']} / {turns}"
    font = _font_for(middle, 15)
    draw.text((width / 2, STRIP / 2 + 2), middle, font=font, fill=colours.index("muted"),
              anchor="mm")
    room = width / 2 - draw.textlength(middle, font=font) / 2 - 3 * PAD
    for team, (name, number) in enumerate(zip(teams, numbers, strict=True)):
        score = _number(number)
        score_room = draw.textlength(score, font=_bold(22)) + PAD
        shown = _cut(draw, name, 16, room - score_room)
        colour = colours.index(f"team{team}")
        if team == 0:
            draw.text((PAD, STRIP / 2 + 2), shown, font=_font_for(shown, 16), fill=colour,
                      anchor="lm")
            draw.text((PAD + draw.textlength(shown, font=_font_for(shown, 16)) + PAD,
                       STRIP / 2 + 2), score, font=_bold(22), fill=colours.index("text"),
                      anchor="lm")
        else:
            draw.text((width - PAD, STRIP / 2 + 2), shown, font=_font_for(shown, 16),
                      fill=colour, anchor="rm")
            draw.text((width - PAD - draw.textlength(shown, font=_font_for(shown, 16)) - PAD,
                       STRIP / 2 + 2), score, font=_bold(22), fill=colours.index("text"),
                      anchor="rm")
    draw.line((0, STRIP, width, STRIP), fill=colours.index("line"))


def _cut(draw: ImageDraw.ImageDraw, text: str, size: int, room: float) -> str:
    font = _font_for(text, size)
    if draw.textlength(text, font=font) <= room:
        return text
    while text and draw.textlength(text + "…", font=font) > room:
        text = text[:-1]
    return text + "…"

