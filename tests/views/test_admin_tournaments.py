"""Tournaments, their teams and fixtures in the Django admin: listed and readable; a
tournament's name, start and visibility editable (the runners look again at once), its
teams' names; its tokens never shown; fixtures never typed (their results are the
runner's or the judges')."""

import json

import pytest
from django.contrib.auth.models import User

from matches.models import Tournament
from tests.commands.calls import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    User.objects.create_superuser("root", password="pw")
    client.login(username="root", password="pw")
    return client


def test_a_tournament_its_teams_and_fixtures_in_the_admin(admin_client):
    made = json.loads(run("createtournament", "Cup", "--game", "kakomimasu", "--format",
                          "round-robin", "--teams", "Nara", "Hanoi", "Osaka", "--start-in",
                          "3600", "--json"))
    tournament = Tournament.objects.get(pk=made["id"])
    listed = admin_client.get("/admin/matches/tournament/").content.decode()
    assert "Cup" in listed
    page = admin_client.get(f"/admin/matches/tournament/{tournament.pk}/change/")
    text = page.content.decode()
    assert page.status_code == 200 and "Hanoi" in text
    assert all(team["token"] not in text for team in made["teams"])
    assert tournament.entrants.first().token_hash not in text
    fixtures = admin_client.get("/admin/matches/fixture/").content.decode()
    assert fixtures.count("Cup") >= 3  # round robin of three: three fixtures
    assert admin_client.get("/admin/matches/fixture/add/").status_code == 403
    assert admin_client.get("/admin/matches/tournament/add/").status_code == 403
    fixture = tournament.fixtures.first()
    form = admin_client.get(f"/admin/matches/fixture/{fixture.pk}/change/").content.decode()
    assert 'name="winner"' not in form  # read, never typed
