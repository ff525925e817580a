"""The HTML pages: shells that name the match and its teams; bad addresses are refused."""

import pytest

from tests.factories import make_match

pytestmark = pytest.mark.django_db


def test_the_front_page_lists_nothing_until_there_are_matches(client):
    assert "No matches yet" in client.get("/").content.decode()
    make_match()
    page = client.get("/").content.decode()
    assert 'data-empty hidden' in page and 'data-list="running"' in page


def test_the_venue_screen_names_the_teams(client):
    match, _ = make_match()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert ">Alpha<" in page and ">Beta<" in page and "startVenue(" in page
    assert client.get("/matches/999/").status_code == 404


def test_the_wall_shows_up_to_six_matches_in_the_order_given(client):
    first, _ = make_match()
    second, _ = make_match(teams=("Gamma", "Delta"))
    page = client.get(f"/screens/?matches={second.pk},{first.pk}").content.decode()
    assert page.index(">Gamma<") < page.index(">Alpha<") and 'data-count="2"' in page


@pytest.mark.parametrize(("query", "status"), [
    ("matches=1,x", 400), ("matches=1,2,3,4,5,6,7", 400), ("matches=999", 404)])
def test_the_wall_refuses_bad_addresses(client, query, status):
    make_match()
    assert client.get(f"/screens/?{query}").status_code == status
