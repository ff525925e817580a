"""A tournament that asks for a rehearsal (`createtournament --rehearsal`): a team passes
it by winning a practice match against level 1 with its tournament token, missing no
step; the tournament's page and its API say who has."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Tournament
from matches.services.transition import turn_resolve
from tests.commands.calls import run
from tests.factories import put

pytestmark = pytest.mark.django_db


def practise(client, token, actions_each_turn, turns=2):
    """A practice match against level 1 started with the team's (tournament) token (the
    level's seat stays idle here), the team's actions sent in the turns given with the
    practice match's own token, every turn resolved."""
    made = client.post("/api/practice", json.dumps({
        "game": "kakomimasu", "opponent": "level-1", "board": "A-1", "turns": turns,
        "strategy_seconds": 60, "agents": 2}), content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}").json()
    match, token = Match.objects.get(pk=made["match"]), made["token"]  # the match's own
    for turn in range(1, turns + 1):
        Match.objects.filter(pk=match.pk).update(
            start_at=timezone.now() - (turn - 1) * match.period - timedelta(seconds=1))
        match.refresh_from_db()
        if turn in actions_each_turn:
            answer = client.post(f"/api/matches/{match.pk}/actions", json.dumps(
                {"actions": actions_each_turn[turn]}), content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {token}")
            assert answer.status_code == 202, answer.content
        turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    match.refresh_from_db()
    return match


def test_the_page_and_the_api_say_which_teams_passed_their_rehearsal(client, settings):
    settings.PRACTICE = "teams"
    made = json.loads(run("createtournament", "Cup", "--game", "kakomimasu", "--format",
                          "round-robin", "--teams", "Nara", "Hanoi", "Osaka", "--rehearsal",
                          "--start-in", "3600", "--public", "--json"))
    tournament = Tournament.objects.get(pk=made["id"])
    nara, hanoi, osaka = (team["token"] for team in made["teams"])
    won = practise(client, nara, {1: [put(0, 0, 0)], 2: [put(1, 9, 5)]})
    assert won.result["winner"] == 0
    missed = practise(client, hanoi, {1: [put(0, 0, 0)]})  # nothing in turn 2
    assert missed.result["winner"] == 0
    teams = client.get(f"/api/tournaments/{tournament.pk}").json()["teams"]
    assert [(team["name"], team["rehearsal"]) for team in teams] == [
        ("Nara", True), ("Hanoi", False), ("Osaka", False)]
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'class="passed"' in page and page.count('class="pending"') == 2


def test_a_tournament_that_asks_for_none_says_nothing_of_it(client):
    made = json.loads(run("createtournament", "Open", "--game", "kakomimasu", "--format",
                          "round-robin", "--teams", "A", "B", "--public", "--json"))
    teams = client.get(f"/api/tournaments/{made['id']}").json()["teams"]
    assert all(team["rehearsal"] is None for team in teams)
    assert 'id="rehearsals"' not in client.get(f"/tournaments/{made['id']}/").content.decode()
