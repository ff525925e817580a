"""The screens touch the page only when what they show changes. Their clocks redraw ten
times a second, and a write of an unchanged text or attribute still makes the browser
restyle and repaint: a venue screen that did so cost a sixth of a core with nothing to
show (issue 29). Counted here with a MutationObserver, which sees every such write."""

import pytest

from tests.e2e.conftest import published_vectors
from tests.factories import make_match

pytestmark = pytest.mark.e2e

WATCH = """(seconds) => new Promise((done) => {
  const seen = [];
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      seen.push(`${record.type} ${record.attributeName || ""} ${node.className || node.tagName}`);
    }
  });
  observer.observe(document.documentElement, { subtree: true, childList: true,
                                              attributes: true, characterData: true });
  setTimeout(() => { observer.disconnect(); done(seen); }, seconds * 1000);
})"""


@pytest.fixture
def matches(transactional_db):
    """A finished, published match and one that starts in an hour (made before the
    browser starts: Playwright's loop forbids database calls after)."""
    (finished,) = published_vectors(["kakomimasu/random_s7_04"]).values()
    upcoming, _ = make_match(start_in=3600)
    return finished, upcoming.pk


def test_a_finished_match_s_screen_writes_nothing(live_server_process, matches, pages):
    finished, _ = matches
    page = pages.open(f"{live_server_process}/matches/{finished}/", size=(1920, 1080))
    page.wait_for_selector("[data-status][data-kind=finished]")
    page.wait_for_timeout(500)  # the snapshot drawn
    assert page.evaluate(WATCH, 2) == []


def test_countdowns_in_minutes_write_once_a_second(live_server_process, matches, pages):
    """'starts in 59:58' on the venue screen, the list's line of the match: each text
    changes once a second, and nothing else is written."""
    _, upcoming = matches
    page = pages.open(f"{live_server_process}/matches/{upcoming}/", size=(1920, 1080))
    page.wait_for_selector("[data-status][data-kind=upcoming]")
    page.wait_for_timeout(500)
    seen = page.evaluate(WATCH, 2.5)
    assert 1 <= len(seen) <= 6, seen  # a node and its text, each second
    assert all("starts-in" in line or "childList" in line for line in seen), seen

    page = pages.open(f"{live_server_process}/", size=(1920, 1080))
    page.wait_for_selector(".countdown", state="attached")
    page.wait_for_timeout(500)
    seen = page.evaluate(WATCH, 2.5)
    assert len(seen) <= 6 and all(line == "childList  countdown" for line in seen), seen
