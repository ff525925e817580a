"""The practice page's ladder in a real Chromium: each game's table within a phone's
screen in every language, the levels' own results shown."""

import pytest

from tests.api.test_practice_ladder import played

pytestmark = pytest.mark.e2e


@pytest.fixture
def ladder_games(transactional_db, settings):
    settings.PRACTICE, settings.PRACTICE_MAX_PER_CALLER = "open", 100
    played("Nara", "level-4", 0)
    played("Nara", "level-3", None)
    played("Trường THPT Chuyên Hà Nội – Amsterdam", "level-2", 1)


@pytest.mark.parametrize("language", ["en", "vi", "ja"])
def test_each_ladder_stays_within_a_phone_s_screen(ladder_games, live_server_process, browser,
                                                    language):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{live_server_process}/practice/?lang={language}")
    tables = page.evaluate("""() => [...document.querySelectorAll('.practice-ladder table')]
      .map((table) => [table.scrollWidth, table.parentElement.clientWidth])""")
    assert tables and all(wide <= room for wide, room in tables), tables
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()
