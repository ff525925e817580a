"""The lists: two separated scores in the team colours with the game's unit, the game
named, imported boards by a human name, a replay link for finished matches."""

import json
import re
from pathlib import Path

import pytest

from matches.models import Board
from matches.rules.records import parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def imported(vector, published=True):
    return match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                        published=published)


def flat(response):
    return re.sub(r"\s+", " ", response.content.decode())


def test_published_scores_are_two_numbers_apart_with_the_games_unit(client):
    chaser = imported("chaser/items_decide")
    imported("blokus-duo/random_s7_00")
    page = flat(client.get("/matches/"))
    assert ('<strong class="team-a-text score">2</strong> <span class="dash" aria-label="to">'
            '–</span> <strong class="team-b-text score">1</strong>') in page
    assert '<span class="muted unit">items</span>' in page
    assert '<span class="muted unit">squares · fewer wins</span>' in page
    assert "CHaser (U-16) · board 7×5" in page and "Blokus Duo · board 14×14" in page
    assert f'<a href="/matches/{chaser.pk}/replay">' in page and "imported-" not in page
    assert '<span class="team-a-text">Cool wins by 1 item</span>' in page
    assert '<span class="team-a-text">A wins by 1 square</span>' in page


def test_negative_scores_have_a_real_minus_sign(client):
    match = imported("kakomimasu/enclosure_ring")
    from matches.models import Turn

    last = Turn.objects.get(match=match, number=match.resolved_turns)
    last.scores = [dict(last.scores[0], total=-109), dict(last.scores[1], total=-13)]
    last.save()
    page = flat(client.get("/matches/"))
    assert "\u2212109</strong>" in page and "\u221213</strong>" in page


def test_imported_boards_have_human_names_and_same_boards_are_shared():
    first = imported("blokus-duo/random_s7_00")
    second = imported("blokus-duo/random_s7_01")
    assert first.board == second.board and first.board.name == "Blokus Duo board 14×14"
    small, other = imported("chaser/items_decide"), imported("chaser/capture_by_put")
    assert small.board.name == "CHaser (U-16) board 7×5"
    assert other.board != small.board and other.board.name == "CHaser (U-16) board 7×5 #2"
    assert not Board.objects.filter(name__startswith="imported-").exists()


def test_the_front_page_gives_its_script_each_games_name_and_unit(client):
    page = client.get("/").content.decode()
    games = json.loads(page.split('<script id="games" type="application/json">')[1]
                       .split("</script>")[0])
    assert games["chaser"] == {"title": "CHaser (U-16)", "unit": "items",
                               "rule": "Two programs on one map take items; a player boxed in "
                                       "or on a block loses"}
    assert games["blokus-duo"]["unit"] == "squares · fewer wins"
    assert games["kakomimasu"]["unit"] == "points"


def test_boards_imported_before_get_human_names_from_the_migration():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("matches.migrations.0007_imported_board_names")
    old = imported("chaser/items_decide").board
    other = imported("chaser/capture_by_put").board
    Board.objects.filter(pk=old.pk).update(name="imported-0bfc682588ec")
    Board.objects.filter(pk=other.pk).update(name="imported-17c28ab152a6")
    Board.objects.create(name="A-1", game="kakomimasu", width=3, height=3, data={})
    migration.name_imported_boards(apps, None)
    names = sorted(Board.objects.values_list("name", flat=True))
    assert names == ["A-1", "CHaser (U-16) board 7×5", "CHaser (U-16) board 7×5 #2"]
