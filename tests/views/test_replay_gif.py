"""/matches/<id>/replay.gif: a range of turns as an animated GIF in the screens' look,
for every game; each frame's cells in the team colours; drawn once per distinct clip;
refused in words for a range that is not the match's; private as its match is."""

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from matches.clips import PAD, STRIP, cell_size
from matches.rules.records import parse_record
from matches.services.archive import match_import
from matches.views import pages

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
BLUE, ORANGE, STONE = (47, 129, 247), (240, 136, 62), (61, 68, 77)


def longest(game: str):
    """The game's longest vector of a few agents a team (a stress test's hundreds of
    agents cover every wall)."""
    paths = sorted((path for path in (VECTORS / game).glob("*.record.json")
                    if json.loads(path.read_text())["agents"] <= 8),
                   key=lambda path: len(json.loads(path.read_text())["actions"]))
    record = json.loads(paths[-1].read_text())
    timeline = json.loads(paths[-1].with_name(paths[-1].name.replace(".record", ".timeline"))
                          .read_text())
    return record, timeline


def frames(content: bytes) -> list[Image.Image]:
    gif = Image.open(io.BytesIO(content))
    shown = []
    for index in range(gif.n_frames):
        gif.seek(index)
        shown.append(gif.convert("RGB"))
    return shown


@pytest.mark.parametrize("game", ("kakomimasu", "procon2020", "chaser", "blokus-duo"))
def test_each_frame_shows_its_turns_cells_in_the_screens_colours(client, game):
    record, timeline = longest(game)
    match = match_import(parse_record(record), published=True)
    last = len(timeline["states"]) - 1
    answer = client.get(f"/matches/{match.pk}/replay.gif?from=0&to={last}&ms=200")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/gif"
    shown = frames(answer.content)
    assert len(shown) == last + 1
    board = record["board"]
    cell = cell_size(board["width"], board["height"])
    left = (shown[0].size[0] - board["width"] * cell) // 2
    colours = {"A": BLUE, "B": ORANGE, "#": STONE}
    checked = 0
    for picture, state in zip(shown, timeline["states"], strict=True):
        for y, row in enumerate(state["cells"]):
            for x, char in enumerate(row):
                agents = [at for team in state["agents"] for at in team if at]
                if char in colours and [x, y] not in agents:
                    corner = (left + x * cell + 2, STRIP + PAD + y * cell + 2)
                    assert picture.getpixel(corner) == colours[char], (state["turn"], x, y)
                    checked += 1
    assert checked > 0, (game, len(shown), last)


def test_a_clip_is_drawn_once_and_asked_again_by_its_etag(client):
    record, _ = longest("kakomimasu")
    match = match_import(parse_record(record), published=True)
    drawn = pages.CLIPS.built
    first = client.get(f"/matches/{match.pk}/replay.gif?from=1&to=3&lang=ja&theme=light")
    again = client.get(f"/matches/{match.pk}/replay.gif?from=1&to=3&lang=ja&theme=light")
    assert first.content == again.content and pages.CLIPS.built == drawn + 1
    cached = client.get(f"/matches/{match.pk}/replay.gif?from=1&to=3&lang=ja&theme=light",
                        HTTP_IF_NONE_MATCH=first["ETag"])
    assert cached.status_code == 304
    other = client.get(f"/matches/{match.pk}/replay.gif?from=1&to=3&lang=ja&theme=dark")
    assert other.content != first.content


@pytest.mark.parametrize(("query", "words"), [
    ("from=5&to=2", "from and to"), ("from=0&to=999", "from and to"), ("from=x", "from and to"),
    ("ms=5", "ms:"), ("lang=fr", "lang:"), ("theme=blue", "theme:")])
def test_a_clip_that_is_not_the_matchs_is_refused_in_words(client, query, words):
    record, _ = longest("kakomimasu")
    match = match_import(parse_record(record), published=True)
    answer = client.get(f"/matches/{match.pk}/replay.gif?{query}")
    assert answer.status_code == 400 and words in answer.content.decode()


def test_a_private_matchs_clip_is_nobodys_but_its_own(client):
    record, _ = longest("kakomimasu")
    match = match_import(parse_record(record), published=False)
    assert client.get(f"/matches/{match.pk}/replay.gif").status_code == 404
