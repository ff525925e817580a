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

pytestmark = pytest.mark.e2e


@pytest.fixture
def second_game(transactional_db, live_server_process):
    """Made once the server runs (starting it may take seconds on a busy machine), the
    second game starting 12 s later: time to open its page before."""
    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:1",
                             "--secret-board", "random:2", "--teams", "Hà Nội", "Huế",
                             "--public", "--start-in", "0", "--json"))
    second = Match.objects.get(pk=printed["games"][1])
    Match.objects.filter(pk=second.pk).update(start_at=timezone.now() + timedelta(seconds=12))
    return second.pk, second.board.data["width"] * second.board.data["height"]


def test_the_secret_field_shows_itself_at_the_start(second_game, live_server_process, pages):
    match_id, cells = second_game
    page = pages.open(f"{live_server_process}/matches/{match_id}/", (1920, 1080))
    page.wait_for_selector(".board.secret .secret-note")
    assert page.locator(".board .cell").count() == 0
    assert "Secret field" in page.inner_text(".board")
    title = page.inner_text("[data-title]")
    assert re.search(r" · game 2 of 2 \(game 1: −?\d+\s–\s−?\d+\)$", title)
    page.wait_for_function(f"document.querySelectorAll('.board .cell').length === {cells}",
                           timeout=30000)
    assert page.locator(".board.secret").count() == 0
