"""/matches/<id>/board.png: the board after any resolved turn as a picture, every game."""

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from PIL import Image

from matches.picture import layout
from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.services.archive import match_import
from matches.services.transition import turn_resolve
from tests.factories import make_match, put, submit

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"

# The live screen's colours in its dark theme (static/matches/app.css); territory is a
# deep tint hatched in the team colour.
BG, STONE, GOLD = (13, 17, 23), (61, 68, 77), (227, 179, 65)
BAD, EVENT, TEXT = (255, 92, 92), (255, 211, 61), (230, 237, 243)
BLUE, ORANGE = (47, 129, 247), (240, 136, 62)
LAND_A, LAND_B = (37, 98, 184), (145, 86, 46)
TEAM = (BLUE, ORANGE)
FILL = {
    "kakomimasu": {".": BG, "A": BLUE, "B": ORANGE, "a": LAND_A, "b": LAND_B},
    "procon2020": {".": BG, "A": BLUE, "B": ORANGE, "#": STONE},
    "chaser": {".": BG, "#": STONE, "*": BG},
    "blokus-duo": {".": BG, "A": BLUE, "B": ORANGE},
}


def imported(vector, published=True):
    record = parse_record((VECTORS / f"{vector}.record.json").read_bytes())
    return match_import(record, published=published)


def expected_states(vector):
    return json.loads((VECTORS / f"{vector}.timeline.json").read_text())["states"]


def picture(client, match, turn=None):
    query = {} if turn is None else {"turn": turn}
    response = client.get(f"/matches/{match.pk}/board.png", query)
    assert response.status_code == 200, response.content[:200]
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG"
    return image.convert("RGB")


def pixel(image, grid, x, y, across, down):
    left, top, _, _ = grid.box(x, y)
    return image.getpixel((left + int(across * grid.cell), top + int(down * grid.cell)))


def cell_colours(image, grid, x, y, box=(0, 0, 1, 1)):
    """How many pixels of each colour cell (x, y) has within `box` (fractions of the
    cell: left, top, right, bottom)."""
    left, top, _, _ = grid.box(x, y)
    edges = zip(box, (left, top, left, top), strict=True)
    part = image.crop([origin + round(share * grid.cell) for share, origin in edges])
    return {colour: count for count, colour in part.getcolors(part.width * part.height)}


@pytest.mark.parametrize("vector, turn", [
    ("kakomimasu/random_s7_04", None),  # the latest turn by default: walls, territory, ✕, ⚡
    ("procon2020/random_s7_02", 39),
    ("chaser/random_s7_00", 10),
    ("blokus-duo/random_s7_00", 16),
])
def test_every_cell_and_agent_is_drawn_in_its_colour(client, vector, turn):
    match = imported(vector)
    states = expected_states(vector)
    turn = len(states) - 1 if turn is None else turn
    state = states[turn]
    image = picture(client, match, turn)
    width, height = len(state["cells"][0]), len(state["cells"])
    grid = layout(width, height)
    assert image.size == grid.size and 700 <= image.width <= 1000 and image.height >= 400
    assert image.getpixel((3, 60)) == BLUE and image.getpixel((image.width - 3, 60)) == ORANGE
    colours = FILL[match.game]
    last = rules_for(match.game).last_turn(state, states[turn - 1])
    marked = {(x, y) for x, y, *_ in last["marks"]} | failed_targets(state)
    marked |= {tuple(end) for move in last["moves"] for end in move[:2]}  # under an arrow
    standing = {tuple(at) for team in state["agents"] for at in team if at}
    for y, row in enumerate(state["cells"]):
        for x, char in enumerate(row):
            if char in "ab":  # territory: the tint, hatched in the team colour
                seen = cell_colours(image, grid, x, y, (0.15, 0.15, 0.85, 0.85))
                assert max(seen, key=seen.get) == colours[char], (x, y, char)
                assert seen.get(TEAM["ab".index(char)], 0) > grid.cell, (x, y, char)
            elif (x, y) not in marked | standing:
                assert pixel(image, grid, x, y, 0.2, 0.2) == colours[char], (x, y, char)
            if char == "*":  # a CHaser item: a gold dot in the middle
                assert pixel(image, grid, x, y, 0.5, 0.5) == GOLD, (x, y)
    for team, colour in enumerate(TEAM):
        for at in filter(None, state["agents"][team]):
            if match.game == "chaser":  # a large disc with the player's letter
                assert pixel(image, grid, *at, 0.26, 0.5) == colour, (team, at)
            else:  # the badge with its number, in the upper left corner
                assert pixel(image, grid, *at, 0.04, 0.21) == colour, (team, at)
    for x, y, result in failed_targets(state, results=True):
        mark = BAD if result == "invalid" else EVENT
        corner = cell_colours(image, grid, x, y, (0.55, 0.55, 1, 1))
        assert corner.get(mark, 0) > grid.cell, (x, y)  # the large round mark
        assert cell_colours(image, grid, x, y, (0, 0, 1, 0.1)).get(mark, 0) > 10  # the frame


def failed_targets(state, results=False):
    """The cells failed actions aimed at (those named by x and y)."""
    width, height = len(state["cells"][0]), len(state["cells"])
    found = {(o["x"], o["y"], o["result"]) for team in state.get("outcomes", []) for o in team
             if o["result"] != "ok" and 0 <= o.get("x", -1) < width
             and 0 <= o.get("y", -1) < height}
    return found if results else {(x, y) for x, y, _ in found}


def test_a_turn_is_its_own_position_not_the_last(client):
    match = imported("blokus-duo/random_s7_00")
    grid = layout(14, 14)
    for turn in (0, 1, 2, 9):
        image = picture(client, match, turn)
        cells = expected_states("blokus-duo/random_s7_00")[turn]["cells"]
        drawn = ["".join({BG: ".", BLUE: "A", ORANGE: "B"}[pixel(image, grid, x, y, 0.2, 0.2)]
                         for x in range(14)) for y in range(14)]
        assert drawn == cells


def test_a_treasure_shows_until_it_is_taken(client):
    match = imported("procon2020/treasure_first_move_only")
    grid = layout(10, 10)

    def gold(turn, x, y):
        return cell_colours(picture(client, match, turn), grid, x, y).get(GOLD, 0)

    # B moves onto (7, 3) in turn 2; A steps onto (2, 3) in turn 4
    assert gold(1, 7, 3) > grid.cell ** 2 // 10 and gold(1, 2, 3) > grid.cell ** 2 // 10
    assert gold(2, 7, 3) == 0 and gold(3, 2, 3) > 0
    assert gold(4, 2, 3) == 0 and gold(6, 7, 3) == 0


@pytest.mark.parametrize("turn", ["9", "-1", "abc", "1.5", "99999999999", "\u0663"])
def test_a_turn_not_played_is_a_clear_400(client, turn):
    match = imported("kakomimasu/enclosure_ring")
    assert match.resolved_turns == 8
    response = client.get(f"/matches/{match.pk}/board.png", {"turn": turn})
    assert response.status_code == 400
    assert response.content.decode().startswith("turn: expected a whole number from 0 to 8")


def test_a_running_match_is_drawn_up_to_its_last_resolved_turn_only(client):
    match, tokens = make_match(turns=5)
    for team, target in ((0, (1, 1)), (1, (4, 3))):
        submit(match, tokens[team], [put(0, *target)], 1)
    turn_resolve(match_id=match.pk, number=1)
    submit(match, tokens[0], [put(1, 3, 0)], 2)  # pending: nobody may see it yet
    match.refresh_from_db()
    grid = layout(6, 5)
    image = picture(client, match)
    assert pixel(image, grid, 1, 1, 0.2, 0.2) == BLUE
    assert pixel(image, grid, 4, 3, 0.2, 0.2) == ORANGE
    assert pixel(image, grid, 3, 0, 0.2, 0.2) == BG
    assert client.get(f"/matches/{match.pk}/board.png", {"turn": 2}).status_code == 400



def test_a_private_match_is_a_404_except_for_judges(client):
    match = imported("chaser/items_decide", published=False)
    assert client.get(f"/matches/{match.pk}/board.png").status_code == 404
    assert client.get(f"/matches/{match.pk + 1000}/board.png").status_code == 404
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    assert picture(client, match, 0).size == layout(7, 5).size


def test_the_replay_and_the_published_list_link_to_it(client):
    match = imported("kakomimasu/enclosure_ring")
    replay = client.get(f"/matches/{match.pk}/replay").content.decode()
    assert f'href="/matches/{match.pk}/board.png"' in replay and "data-png-link" in replay
    listed = client.get("/matches/").content.decode()
    assert f'href="/matches/{match.pk}/board.png"' in listed


# --- caching: a resolved turn's picture never changes (defect 10) ---------------------


@pytest.fixture
def fresh_pictures(monkeypatch):
    """The picture cache emptied, small enough to fill."""
    from matches.picture import DRAWN

    DRAWN.reset()
    monkeypatch.setattr(DRAWN, "entries", 3)
    return DRAWN


def test_a_second_request_with_the_etag_is_a_304_without_drawing(client, fresh_pictures):
    match = imported("kakomimasu/enclosure_ring")
    first = client.get(f"/matches/{match.pk}/board.png", {"turn": 3})
    etag = first["ETag"]
    assert first.status_code == 200 and etag.startswith('"') and fresh_pictures.built == 1
    again = client.get(f"/matches/{match.pk}/board.png", {"turn": 3}, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag and again.content == b""
    assert fresh_pictures.built == 1
    other = client.get(f"/matches/{match.pk}/board.png", {"turn": 4}, HTTP_IF_NONE_MATCH=etag)
    assert other.status_code == 200 and other["ETag"] != etag


def test_a_picture_is_drawn_once_for_every_viewer(client, fresh_pictures):
    match = imported("chaser/items_decide")
    pictures = {client.get(f"/matches/{match.pk}/board.png", {"turn": 2}).content
                for _ in range(5)}
    assert len(pictures) == 1 and fresh_pictures.built == 1


def test_the_cache_keeps_only_the_latest_pictures(client, fresh_pictures):
    match = imported("kakomimasu/enclosure_ring")
    for turn in range(8):
        assert client.get(f"/matches/{match.pk}/board.png", {"turn": turn}).status_code == 200
    assert len(fresh_pictures) == 3 and fresh_pictures.built == 8
    client.get(f"/matches/{match.pk}/board.png", {"turn": 7})  # still kept
    assert fresh_pictures.built == 8
    client.get(f"/matches/{match.pk}/board.png", {"turn": 0})  # long gone: drawn again
    assert fresh_pictures.built == 9


def test_the_cache_is_bounded_in_bytes_too(monkeypatch):
    from matches.picture import DRAWN as drawn

    drawn.reset()
    monkeypatch.setattr(drawn, "limit", 2500)
    for key in "abcde":
        drawn.get(key, lambda: b"x" * 1000)
    assert len(drawn) == 2 and drawn.size() == 2000


def test_a_published_matchs_picture_is_public_and_a_private_one_private(client):
    public = imported("kakomimasu/enclosure_ring")
    named = client.get(f"/matches/{public.pk}/board.png", {"turn": 2})
    assert named["Cache-Control"] == "public, max-age=3600"
    latest = client.get(f"/matches/{public.pk}/board.png")  # changes with the next turn
    assert latest["Cache-Control"] == "public, no-cache"
    private = imported("chaser/items_decide", published=False)
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    answer = client.get(f"/matches/{private.pk}/board.png", {"turn": 1})
    assert answer.status_code == 200 and "public" not in answer["Cache-Control"]
    assert answer["Cache-Control"].startswith("private")


def test_renaming_a_team_changes_the_picture_and_its_etag(client, fresh_pictures):
    match = imported("kakomimasu/enclosure_ring")
    before = client.get(f"/matches/{match.pk}/board.png", {"turn": 1})
    match.teams.filter(index=0).update(name="Renamed")
    after = client.get(f"/matches/{match.pk}/board.png", {"turn": 1},
                       HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert after.content != before.content


# --- the same marks as the screens (defect 15) --------------------------------------


def test_the_leader_is_marked_as_the_rules_say_and_the_result_decides(monkeypatch):
    """Drawn here, in this process (the server draws in its drawing worker's)."""
    from matches import picture as drawing
    from matches.rules import rules_for

    marked = []
    monkeypatch.setattr(drawing, "_leader_mark", lambda draw, left, top: marked.append(left))
    vector = "chaser/item_block_traps_self"  # Cool takes an item, Hot traps Cool
    record = parse_record((VECTORS / f"{vector}.record.json").read_bytes())
    states = expected_states(vector)
    result = json.loads((VECTORS / f"{vector}.timeline.json").read_text())["result"]
    half = layout(7, 5).size[0] // 2

    def draw(turn, result=None):
        drawing.board_png(rules_for("chaser"), record.board, states[turn], title="t",
                          teams=["Cool", "Hot"], turns=record.turns, previous=states[turn - 1],
                          result=result)

    draw(1)  # 0 to 0: nobody leads
    assert marked == []
    draw(2, result)  # the last turn: Hot wins with fewer items (1 to 0)
    assert len(marked) == 1 and marked[0] >= half


def test_numbers_are_written_with_a_real_minus_sign():
    from matches.picture import _number

    assert _number(-3) == "\u22123" and _number(0) == "0" and _number(12) == "12"


def test_a_picture_is_drawn_in_each_language_once(client):
    """The words under the numbers are in the viewer's language: one picture (and ETag)
    a language, each drawn once."""
    match = imported("kakomimasu/enclosure_ring")
    english = client.get(f"/matches/{match.pk}/board.png?lang=en")
    japanese = client.get(f"/matches/{match.pk}/board.png?lang=ja")
    assert english["ETag"] != japanese["ETag"] and english.content != japanese.content
    again = client.get(f"/matches/{match.pk}/board.png?lang=ja",
                       HTTP_IF_NONE_MATCH=japanese["ETag"])
    assert again.status_code == 304
