"""Clear answers instead of 500s, and the project's own error pages (DEBUG off, as
pytest-django runs and as the settings default)."""

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from matches.models import Submission
from tests.factories import make_match

pytestmark = pytest.mark.django_db
OUR_PAGE = 'class="page error-page"'


@pytest.mark.parametrize("matches", ["99999999999999999999999", "1,99999999999999999999",
                                     "9223372036854775808", "²", "-1", "1.0"])
def test_the_wall_answers_a_number_out_of_range_with_a_clear_400(client, matches):
    make_match()
    response = client.get(f"/screens/?matches={matches}")
    page = response.content.decode()
    assert response.status_code == 400 and OUR_PAGE in page
    assert "Matches: give match numbers separated by commas, e.g. 1,2,3." in page


def test_a_walls_error_page_is_in_the_language_asked_for(client):
    """A wall opened with a mistake in its address on a dark projector: the project's
    page, in its language, never a white page of English."""
    make_match()
    for url, status, language, says in [
            ("/screens/?matches=x&lang=ja", 400, "ja", "試合番号"),
            ("/screens/?matches=1,2,3,4,5,6,7&lang=vi", 400, "vi", "tối đa 6"),
            ("/screens/?matches=999&lang=ja", 404, "ja", "999"),
            ("/matches/999/?lang=vi", 404, "vi", "Không tìm thấy")]:
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == status and OUR_PAGE in page, (url, response.status_code)
        assert f'<html lang="{language}">' in page and says in page, (url, page[:600])
        assert f"/jsi18n/?lang={language}" in page


def test_a_missing_page_is_the_projects_404_page(client):
    for url, says in [("/screens/?matches=999", "No match 999."), ("/matches/999/", "Not found"),
                      ("/no/such/page", "Not found"),
                      ("/matches/99999999999999999999999/replay", "Not found")]:
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == 404 and OUR_PAGE in page and says in page
        assert 'href="/"' in page and "app.css" in page and "URLconf" not in page


def test_a_view_that_raises_gives_the_projects_500_page(settings):
    settings.ROOT_URLCONF = "tests.views.raising_urls"
    response = Client(raise_request_exception=False).get("/broken/")
    page = response.content.decode()
    assert response.status_code == 500 and OUR_PAGE in page and "Something went wrong" in page
    assert "a bug in a view" not in page and "Traceback" not in page


def test_a_page_for_judges_only_is_the_projects_403_page(client):
    match, _ = make_match()
    User.objects.create_user("fan", password="pw")
    client.login(username="fan", password="pw")
    response = client.get(f"/matches/{match.pk}/audit")
    assert response.status_code == 403 and OUR_PAGE in response.content.decode()
    strict = Client(enforce_csrf_checks=True)
    expired = strict.post("/accounts/login/", {"username": "fan", "password": "pw"})
    assert expired.status_code == 403 and "Form expired" in expired.content.decode()


@pytest.mark.parametrize("team", ["abc", "", " ", "2", "-1", "99999999999999999999999"])
def test_an_offline_entry_for_no_such_team_is_refused_clearly(client, team):
    match, _ = make_match(strategy=3600)
    user = User.objects.create_user("judy", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    response = client.post(f"/matches/{match.pk}/audit/enter",
                           {"team": team, "actions": '{"actions": []}', "note": "n"}, follow=True)
    assert response.redirect_chain == [(f"/matches/{match.pk}/audit", 302)]
    assert "Refused: choose the team whose actions these are (A or B)." in (
        response.content.decode())
    assert not Submission.objects.exists()
