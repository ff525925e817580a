"""The front page's line of a game in alternating turns says whose move it is (no turn
countdown: such a game waits for a move, not a deadline), and follows each move."""

import json
import urllib.request

import pytest

from tests.factories import make_alternating_match

pytestmark = [pytest.mark.e2e, pytest.mark.live_stack]


@pytest.fixture
def blokus(transactional_db):
    match, tokens = make_alternating_match(clock=600, teams=("Alpha", "Beta"))
    return match.pk, tokens


def test_a_blokus_line_says_whose_move_it_is(blokus, live_server_process, pages):
    match_id, tokens = blokus
    page = pages.open(f"{live_server_process}/", (1280, 800))
    row = page.locator(f".match-row[data-match='{match_id}']")
    page.wait_for_function(
        f"document.querySelector(\".match-row[data-match='{match_id}'] .countdown\")"
        "?.textContent === 'Alpha to move'")
    sent = urllib.request.Request(
        f"{live_server_process}/api/matches/{match_id}/actions", method="POST",
        data=json.dumps({"actions": [{"move": "55a0"}]}).encode(),
        headers={"Authorization": f"Bearer {tokens[0]}", "Content-Type": "application/json"})
    with urllib.request.urlopen(sent) as answer:
        assert answer.status == 202
    page.wait_for_function(
        f"document.querySelector(\".match-row[data-match='{match_id}'] .countdown\")"
        "?.textContent === 'Beta to move'")
    assert "next turn" not in row.inner_text()
