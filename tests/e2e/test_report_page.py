"""A team reads its report on its own match in the browser (/matches/<id>/report): the
token asked once (the play page's key in this tab), each turn's requests with their
answers and latencies, its invalid actions in the page's language, its missed steps; a
token that is not the match's shows nothing."""

import json
import urllib.request

import pytest

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match, put

pytestmark = pytest.mark.e2e


def send(base, match, token, actions):
    request = urllib.request.Request(
        f"{base}/api/matches/{match.pk}/actions", data=json.dumps({"actions": actions}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.fixture
def played(transactional_db, live_server_process):
    """A private match in which team A sent a refused request, then actions with one
    invalid, in turn 1, and nothing in turn 2; both turns resolved (made before the
    browser runs: the ORM may not be called beside Playwright's loop)."""
    base = live_server_process
    match, tokens = make_match(strategy=600, turns=3, public=False)
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    assert send(base, match, tokens[0], "nope") == 400
    assert send(base, match, tokens[0], [put(0, 1, 1), {"agent": 1, "type": "move",
                                                       "x": 0, "y": 0}]) == 202
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    Match.objects.filter(pk=match.pk).update(start_at=match.start_at - match.period)
    match.refresh_from_db()
    turn_resolve(match_id=match.pk, number=2, now=match.deadline(2))
    return match, tokens[0], other_tokens[0]


def test_a_team_reads_its_report_in_its_language(played, live_server_process, browser):
    base = live_server_process
    match, token, other_token = played
    page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="ja",
                            extra_http_headers={"Accept-Language": "ja"})
    page.goto(f"{base}/matches/{match.pk}/report")
    page.fill("[data-token-input]", other_token)
    page.locator("button[type=submit]").click()
    page.locator("[data-token-refusal]").wait_for(state="visible")
    assert page.locator("[data-report]").is_hidden()
    page.fill("[data-token-input]", token)
    page.locator("button[type=submit]").click()
    page.locator("[data-report]").wait_for(state="visible")
    summary = page.locator("[data-summary]").inner_text()
    assert "2件送信、1件受理" in summary and "invalid_actions × 1" in summary
    rows = page.locator("[data-turns] tr")
    assert rows.count() == 2
    first, second = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert "ms後に受理" in first and "採用" in first and "400 invalid_actions" in first
    assert "エージェント1：" in first and "not on the board" not in first  # said in Japanese
    assert "送信なし" in second and "missed" in rows.nth(1).get_attribute("class")
    page.reload()  # the token is kept in this tab: no second asking
    page.locator("[data-report]").wait_for(state="visible")
    page.close()
