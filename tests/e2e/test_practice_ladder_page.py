"""The practice page's ladder in a real Chromium: each game's table within its place, on
a phone and a laptop, in every language."""

import pytest

from tests.api.test_practice_ladder import played

pytestmark = pytest.mark.e2e


@pytest.fixture
def ladder_games(transactional_db, settings):
    settings.PRACTICE, settings.PRACTICE_MAX_PER_CALLER = "open", 100
    played("Nara", "level-4", 0)
    played("Nara", "level-3", None)
    played("Trường THPT Chuyên Hà Nội – Amsterdam", "level-2", 1)


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", ["en", "vi", "ja"])
def test_each_ladder_stays_within_its_place(ladder_games, live_server_process, browser,
                                            language, size):
    """A long team name ran 40 px past a phone's screen, and over the next game's table at
    1280 × 800 (names on one line)."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{live_server_process}/practice/?lang={language}")
    tables = page.evaluate("""() => [...document.querySelectorAll('.practice-ladder table')]
      .map((table) => [table.scrollWidth, table.parentElement.clientWidth])""")
    assert tables and all(wide <= room for wide, room in tables), tables
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    page.close()
