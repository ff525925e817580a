"""/practice/: a practice match started in the browser, by the same service as the API,
in the page's language; the matches under way listed."""

import pytest

from matches.models import Match

pytestmark = pytest.mark.django_db


def test_a_server_without_practice_says_so_and_makes_nothing(client, settings):
    settings.PRACTICE = "off"
    page = client.get("/practice/")
    assert page.status_code == 200 and "offers no practice" in page.content.decode()
    client.post("/practice/", {"game": "kakomimasu", "opponent": "level-1"})
    assert not Match.objects.exists()


def test_a_guest_starts_a_match_and_is_shown_its_token_once(client, settings):
    settings.PRACTICE = "open"
    form = client.get("/practice/").content.decode()
    assert 'name="game"' in form and "Blokus Duo" in form and "A-1" in form
    assert "CHaser" not in form.split('name="game"')[1].split("</select>")[0]
    answer = client.post("/practice/", {"game": "kakomimasu", "opponent": "level-3",
                                        "board": "A-1", "turns": "10",
                                        "strategy_seconds": "2", "name": "Hà Nội"})
    assert answer.status_code == 201
    match = Match.objects.get()
    page = answer.content.decode()
    assert f'href="/matches/{match.pk}/play"' in page and f'href="/matches/{match.pk}/"' in page
    token = page.split("data-token>")[1].split("<")[0]
    assert match.teams.get(index=0).name == "Hà Nội" and match.turns == 10
    shown = client.get(f"/api/matches/{match.pk}", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert shown.json()["you"] == 0
    listed = client.get("/practice/").content.decode()
    assert f'href="/matches/{match.pk}/"' in listed and token not in listed


def test_a_refusal_is_said_in_the_pages_language(client, settings):
    settings.PRACTICE = "open"
    answer = client.post("/practice/", {"game": "procon2020", "opponent": "level-1",
                                        "board": "A-1"}, HTTP_ACCEPT_LANGUAGE="ja")
    assert answer.status_code == 400
    assert "この盤はこのゲームでは使えません" in answer.content.decode()
    assert not Match.objects.exists()
    for bad in ({"game": "kakomimasu", "opponent": "level-1", "turns": "many"},
                {"game": "chess", "opponent": "level-1"},
                {"game": "kakomimasu", "opponent": "level-1", "token": "nope"}):
        assert client.post("/practice/", bad).status_code == 400
    assert not Match.objects.exists()


def test_the_front_page_links_practice_only_where_the_server_offers_it(client, settings):
    settings.PRACTICE = "off"
    assert 'href="/practice/"' not in client.get("/").content.decode()
    settings.PRACTICE = "teams"
    assert 'href="/practice/"' in client.get("/").content.decode()
