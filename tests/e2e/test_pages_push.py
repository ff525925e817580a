"""No page asks the server again on a timer (issue 49): each live page is read over HTTP
when it opens and then follows its socket (docs/live-protocol.md, "Pages"). A real
Chromium opens each one, its clock (Playwright's) is run on for 30 s, and the page's
HTTP requests are counted: none; then a change made on the server still shows."""

import json
import re
import time
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Tournament
from matches.services.clock import clock_wake
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from tests.e2e.conftest import in_a_thread, judge_signed_in
from tests.factories import make_match

pytestmark = pytest.mark.e2e
QUIET_MS = 30_000  # the page time over which no request may go


def counted(page) -> list[str]:
    """The page's HTTP requests from now on (its sockets are none of them)."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    return asked


def quiet_for_30_s(page, asked: list[str]) -> None:
    """Let what the page does on opening end (a read its socket's opening asks for comes
    within a second, spread: static/matches/live-part.js), then run its clock on 30 s:
    no request."""
    page.clock.run_for(1_500)
    page.wait_for_load_state("networkidle")
    asked.clear()
    page.clock.run_for(QUIET_MS)
    page.wait_for_timeout(200)  # (a request the timers started would be on its way)
    assert asked == [], asked


@pytest.fixture
def upcoming_cup(transactional_db):
    created = tournament_create(Plan(
        name="Push cup", game="kakomimasu", format="round-robin", public=True,
        teams=[EntrantSpec(name) for name in ("Alpha", "Beta", "Gamma", "Delta")],
        start_at=timezone.now() + timedelta(hours=1), boards=["A-1"], turns=5))
    return created.tournament.pk


def test_the_tournament_page_asks_nothing_until_its_socket_says_it_changed(
        upcoming_cup, live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    page.goto(f"{live_server_process}/tournaments/{upcoming_cup}/")
    page.wait_for_selector("[data-live-part][data-live=open]")
    assert page.locator("#schedule a[data-match]").count() == 0  # no match made yet
    quiet_for_30_s(page, asked)

    def start_now():  # the server's runner makes round 1's matches: the page is told
        Tournament.objects.filter(pk=upcoming_cup).update(
            start_at=timezone.now(), next_check_at=timezone.now())
        clock_wake()
    in_a_thread(start_now)
    page.wait_for_selector("#schedule a[data-match]", timeout=10_000)
    assert asked and all("part=live" in url for url in asked), asked
    assert len(asked) <= 2, asked


@pytest.fixture
def later_match(transactional_db):
    """A public match an hour from now: the TV says when it starts."""
    return make_match(start_in=3600, strategy=1.0, transition=0.2, turns=3)[0].pk


def test_the_tv_asks_nothing_until_a_match_starts(later_match, live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    page.goto(f"{live_server_process}/tv/")
    page.wait_for_function("document.querySelector('[data-idle-headline]').textContent"
                           ".startsWith('Next match at ')")
    quiet_for_30_s(page, asked)

    def start_now():  # the server's clock plays its first turn: the list socket says so
        Match.objects.filter(pk=later_match).update(start_at=timezone.now())
        clock_wake()
    in_a_thread(start_now)
    page.wait_for_selector(f"section.mini[data-match='{later_match}'] .board .cell",
                           timeout=10_000)
    assert 1 <= sum("/tv/now" in url for url in asked) <= 2, asked


@pytest.fixture
def room_match(transactional_db):
    """A match under way whose step is open for an hour, and a judge."""
    from django.contrib.auth.models import Permission, User

    match, tokens = make_match(turns=10, strategy=3600, teams=("Nara", "Hanoi"))
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    return match, tokens


def test_the_control_room_asks_nothing_until_a_team_is_heard_from(room_match,
                                                                  live_server_process,
                                                                  browser):
    match, tokens = room_match
    room = judge_signed_in(browser, live_server_process)
    room.clock.install()
    asked = counted(room)
    room.goto(f"{live_server_process}/control/")
    room.wait_for_selector("[data-live-part][data-live=open]")
    countdown = room.locator(f"#match-{match.pk} [data-until]")
    before = countdown.inner_text()
    quiet_for_30_s(room, asked)
    assert countdown.inner_text() != before  # its deadline counted down here, unasked
    assert "nothing heard yet" in room.locator(f"#match-{match.pk} li").first.inner_text()
    request = urllib.request.Request(  # Nara's program sends its first answer
        f"{live_server_process}/api/matches/{match.pk}/actions", method="POST",
        data=json.dumps({"actions": []}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {tokens[0]}"})
    urllib.request.urlopen(request, timeout=5).close()
    room.wait_for_function(
        f"() => document.querySelector('#match-{match.pk} li').textContent"
        ".includes('last request')", timeout=10_000)
    assert asked and all("part=live" in url for url in asked), asked


@pytest.fixture
def private_match(transactional_db):
    """A private match under way, its first step open for an hour: a team's play page."""
    return make_match(turns=5, strategy=3600, transition=0.5, public=False)


def test_the_play_page_asks_nothing_until_its_socket_says_a_turn_was_played(
        private_match, live_server_process, browser):
    from tests.e2e.test_play import sign_in

    match, tokens = private_match
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    sign_in(page, f"{live_server_process}/matches/{match.pk}/play", tokens[0])
    page.wait_for_selector(".board .cell")
    page.wait_for_selector("[data-socket=open]")  # its team's socket, with its token
    assert "Turn 1: send your actions" in page.inner_text("[data-to-move]")
    quiet_for_30_s(page, asked)

    def deadline_now():  # step 1 ends now: the server's clock plays turn 1
        Match.objects.filter(pk=match.pk).update(
            start_at=timezone.now() - timedelta(seconds=3600 - 0.3))
        clock_wake()
    in_a_thread(deadline_now)
    page.wait_for_function("document.querySelector('[data-to-move]').textContent"
                           ".includes('Turn 2: send your actions')", timeout=10_000)
    # the match read again (told of turn 1, then at step 2's opening), and what the team
    # sent for the new step (none)
    reads = [url for url in asked if url.endswith(f"/api/matches/{match.pk}")]
    assert reads and len(reads) <= 6, asked
    assert all(url.endswith((f"/api/matches/{match.pk}", f"/api/matches/{match.pk}/actions"))
               for url in asked), asked


@pytest.fixture
def first_of_two_over(transactional_db):
    """The first game of a match of two is over; its second is not made yet (a CHaser
    game is made when it starts)."""
    from matches.services.transition import turn_resolve

    match = make_match(turns=1, start_in=-10, strategy=1.0)[0]
    Match.objects.filter(pk=match.pk).update(match_games=2)
    turn_resolve(match_id=match.pk, number=1)
    return match.pk


def test_a_games_venue_asks_for_the_next_game_once_then_waits_for_its_socket(
        first_of_two_over, live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    page.goto(f"{live_server_process}/matches/{first_of_two_over}/")
    page.wait_for_selector("[data-result]:not([hidden])")
    page.wait_for_load_state("networkidle")
    asked.clear()
    page.clock.fast_forward(21_000)  # the result has stood its while: it asks once
    page.wait_for_timeout(300)
    page.wait_for_load_state("networkidle")
    assert asked == [f"{live_server_process}/api/matches/{first_of_two_over}"], asked
    quiet_for_30_s(page, asked)


def test_a_wall_following_a_tournament_asks_nothing_until_a_round_is_drawn(
        upcoming_cup, live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    page.goto(f"{live_server_process}/screens/?tournament={upcoming_cup}")
    page.wait_for_selector(".wall .empty")
    quiet_for_30_s(page, asked)

    def start_now():  # the server's runner makes round 1's matches: the wall is told
        Tournament.objects.filter(pk=upcoming_cup).update(
            start_at=timezone.now(), next_check_at=timezone.now())
        clock_wake()
    in_a_thread(start_now)
    page.wait_for_selector("section.mini .board .cell", timeout=10_000)
    assert any("ids=1" in url for url in asked), asked


@pytest.fixture
def cup_under_way(transactional_db):
    """A tournament whose round 1 is being played, a turn every 0.7 s (the server's)."""
    from matches.tournaments.runner import tournaments_tick

    created = tournament_create(Plan(
        name="Quick cup", game="kakomimasu", format="round-robin", public=True,
        teams=[EntrantSpec(name) for name in ("Alpha", "Beta")], start_at=timezone.now(),
        boards=["A-1"], turns=30, strategy_seconds=0.5, transition_seconds=0.2))
    tournaments_tick(timezone.now())  # its match made, to start now (not a lead later)
    Match.objects.filter(fixture__tournament=created.tournament).update(start_at=timezone.now())
    return created.tournament.pk


def test_the_tournament_pages_live_scores_come_by_its_socket(cup_under_way,
                                                            live_server_process, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    asked = counted(page)
    heard = []  # what its socket said, and when (the failure's message: why it read)
    started = time.monotonic()
    page.on("websocket", lambda socket: socket.on(
        "framereceived", lambda text: heard.append((round(time.monotonic() - started, 2),
                                                     str(text)[:160]))))
    page.on("request", lambda request: heard.append((round(time.monotonic() - started, 2),
                                                     "GET " + request.url)))
    page.goto(f"{live_server_process}/tournaments/{cup_under_way}/")
    score = page.locator("#schedule .live-score")
    score.wait_for(timeout=10_000)  # (read again once the match started, if need be)
    # The socket's opening `changed` may make the page read once more: a second of spread
    # after the version's moment by the page's clock (static/matches/live-part.js). On a
    # loaded machine the socket opens late (a run of the whole suite: its `changed` 0.62 s
    # after the page, the read 1.3 s after that, past a wait of 1.2 s from the page's
    # load), so the wait counts from the `changed`, with room for the clock's offset.
    until = time.monotonic() + 10
    while not any('"changed"' in what for _, what in heard) and time.monotonic() < until:
        page.wait_for_timeout(50)
    page.wait_for_timeout(2_500)
    page.wait_for_load_state("networkidle")
    asked.clear()
    first = score.inner_text()
    page.wait_for_function(  # two turns later, written in place
        f"() => document.querySelector('#schedule .live-score').textContent !== {first!r}"
        " && document.querySelector('#schedule .live-score').textContent.startsWith('turn ')",
        timeout=10_000)
    page.wait_for_timeout(1500)
    # (what it heard, if it read: why)
    assert asked == [], "\n".join([f"read {asked}, after:"] + [
        f"{at:6.2f} s {what}" for at, what in heard if "/static/" not in what])
    written = score.text_content()  # as the server writes it: "turn 3/30 · 4 – 0"
    assert written != first and re.fullmatch(r"turn \d+/30( · −?\d+\u00a0–\u00a0−?\d+)?",
                                             written), written


@pytest.mark.parametrize("path", ["/", "/matches/{id}/", "/screens/?matches={id}",
                                  "/matches/{id}/embed", "/matches/{id}/replay"])
def test_the_other_live_pages_ask_nothing_while_a_match_is_played(room_match, path,
                                                                  live_server_process,
                                                                  browser):
    """The pages that followed their sockets already: the front page's list, the venue
    screen, the wall, the embedded board and the replay of a match under way."""
    match, _ = room_match
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.clock.install()
    asked = counted(page)
    page.goto(live_server_process + path.format(id=match.pk))
    page.wait_for_selector(".board .cell, [data-list] [data-match]")
    quiet_for_30_s(page, asked)
