"""A real Chromium watches a Procon 2020 match's second game before and after its start:
before, a secret-field box and nothing of the field; at the start, the field appears by
itself (the socket asks for a fresh snapshot), with no reload and no script error."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from tests.commands.calls import run
from tests.e2e.conftest import in_a_thread

pytestmark = pytest.mark.e2e


@pytest.fixture
def second_game(transactional_db, live_server_process):
    """Made once the server runs (starting it may take seconds on a busy machine), the
    second game starting half a minute later: time to open its page before (the test
    then brings the start forward)."""
    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:1",
                             "--secret-board", "random:2", "--teams", "Hà Nội", "Huế",
                             "--public", "--start-in", "0", "--json"))
    second = Match.objects.get(pk=printed["games"][1])
    start = timezone.now() + timedelta(seconds=30)
    Match.objects.filter(pk=second.pk).update(start_at=start)
    return second.pk, second.board.data["width"] * second.board.data["height"], start


def test_the_secret_field_shows_itself_at_the_start(second_game, live_server_process, pages):
    match_id, cells, start = second_game
    page = pages.open(f"{live_server_process}/matches/{match_id}/", (1920, 1080),
                      before=lambda page: page.clock.install())  # (runs as the real one)
    page.wait_for_selector(".board.secret .secret-note")
    assert page.locator(".board .cell").count() == 0
    assert "Secret field" in page.inner_text(".board")
    title = page.inner_text("[data-title]")
    assert re.search(r" · game 2 of 2 \(game 1: −?\d+\s–\s−?\d+\)$", title)
    # The start comes now: the server's (the game starts at this moment), then the page's
    # (its clock jumps to the start it was told, and on)
    in_a_thread(lambda: Match.objects.filter(pk=match_id).update(start_at=timezone.now()))
    page.clock.fast_forward(max(0, round((start - timezone.now()).total_seconds() * 1000)) + 100)
    page.wait_for_function(f"document.querySelectorAll('.board .cell').length === {cells}",
                           timeout=30000)
    assert page.locator(".board.secret").count() == 0
