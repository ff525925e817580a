"""A real Chromium reads a tournament's page: the schedule's columns line up from round
to round, and on a phone a table wider than the screen says that it scrolls sideways."""

import json
import re

import pytest
from django.utils import timezone

from matches.models import Fixture
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, fixture_decide, tournament_create

pytestmark = pytest.mark.e2e
NAMES = ["Trường THPT Chuyên Hà Nội – Amsterdam", "Nara 奈良高専 プロコン部", "Beta",
         "Đội Huế", "Kagawa 香川高専 詫間", "Sigma"]


@pytest.fixture
def tournament(transactional_db):
    created = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="round-robin", public=True,
        teams=[EntrantSpec(name) for name in NAMES], start_at=timezone.now(),
        boards=["A-1"], turns=5))
    tournaments_tick(timezone.now())
    for fixture in Fixture.objects.filter(tournament=created.tournament, round=1):
        fixture_decide(fixture_id=fixture.pk, winner=fixture.team_a, note="n", judge="j")
    tournaments_tick(timezone.now())
    return created.tournament.pk


COLUMNS = """() => [...document.querySelectorAll("#schedule table.schedule")].map((table) =>
  [...table.querySelector("tr").children].map((cell) =>
    Math.round(cell.getBoundingClientRect().left)))"""


def test_the_schedules_columns_line_up_from_round_to_round(tournament, live_server_process,
                                                           browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server_process}/tournaments/{tournament}/?round=all#schedule")
    page.wait_for_selector("#schedule table.schedule")
    rounds = page.evaluate(COLUMNS)
    assert len(rounds) >= 2, rounds
    assert all(columns == rounds[0] for columns in rounds), rounds


SIDEWAYS = """() => [...document.querySelectorAll(".scroll")].map((box) => ({
  wider: box.scrollWidth > box.clientWidth + 1, marked: box.dataset.sideways,
  cue: box.nextElementSibling?.matches(".sideways-cue")
       && box.nextElementSibling.checkVisibility()}))"""


def test_on_a_phone_a_table_wider_than_the_screen_says_it_scrolls(tournament,
                                                                   live_server_process,
                                                                   browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{live_server_process}/tournaments/{tournament}/")
    page.wait_for_selector("#standings table")
    page.wait_for_timeout(300)
    boxes = page.evaluate(SIDEWAYS)
    assert any(box["wider"] for box in boxes), boxes  # the cross table of six teams
    for box in boxes:
        assert box["cue"] == box["wider"] and (box["marked"] == "more") == box["wider"], boxes
    # Scrolled to its end, it says so. (Round 2's matches play meanwhile: a read of the
    # part as one ends may widen the table, so each look scrolls to its end again.)
    page.wait_for_function("""() => {
      const box = document.querySelector('.scroll[data-sideways]');
      box.scrollLeft = box.scrollWidth;
      return box.dataset.sideways === 'end';
    }""")


def test_a_table_scrolled_sideways_stays_so_when_the_part_is_read_again(tournament,
                                                                        live_server_process,
                                                                        browser):
    """The page's socket says the part changed (a match started or ended elsewhere, here
    said by the test through the page's own socket) and the part is read again: the
    table its reader scrolled to its end on a phone stays scrolled there."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    sockets = []

    def through(socket):
        socket.connect_to_server()
        sockets.append(socket)

    page.route_web_socket(re.compile(r".*/ws/tournaments/\d+/.*"), through)

    def read_again(route):  # (the same part, with a mark: it differs, so it is put in)
        answer = route.fetch()
        route.fulfill(response=answer, body=answer.text() + "<!-- read again -->")

    page.goto(f"{live_server_process}/tournaments/{tournament}/")
    page.wait_for_selector("[data-live-part][data-live=open]")
    box = "document.querySelector('#standings .scroll')"
    # (at each look, as in the test above: a read of the part may come meanwhile)
    page.wait_for_function(f"({box}.scrollLeft = {box}.scrollWidth, "
                           f"{box}.dataset.sideways === 'end')")
    page.route(re.compile(r".*[?&]part=live.*"), read_again)
    left = page.evaluate(f"{box}.scrollLeft")
    version = int(page.get_attribute("[data-live-part]", "data-version"))
    sockets[0].send(json.dumps({"type": "changed", "version": version + 1}))
    page.wait_for_function("(document.querySelector('[data-live-part]').dataset.shown"
                           " || '').includes('read again')")
    # where it was (or its new end, if a match that ended meanwhile made it narrower)
    assert left > 0
    assert page.evaluate(f"{box}.scrollLeft") == page.evaluate(
        f"Math.min({left}, {box}.scrollWidth - {box}.clientWidth)")
