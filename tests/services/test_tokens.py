"""A lost token reissued (`reissuetoken`, matches/services/tokens.py): the new one plays
the team's match (and a tournament team's every match), the old one is refused at
once here and within a second in every other process (the tokens' generation on the
shared cache); the new token is printed once and only its digest kept."""

import json

import pytest

from matches import access
from matches.models import Entrant, Team, token_hash
from tests.commands.calls import refusal, run
from tests.factories import make_match

pytestmark = pytest.mark.django_db


def token_of(said: str) -> str:
    return said.rsplit(": ", 1)[1].strip()


def sends(client, match, token) -> int:
    return client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                       content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {token}").status_code


def test_a_reissued_token_plays_and_the_old_one_is_refused(client,
                                                           django_capture_on_commit_callbacks):
    match, tokens = make_match(teams=("Nara", "Hanoi"))
    assert sends(client, match, tokens[1]) == 202  # known to this process from now on
    with django_capture_on_commit_callbacks(execute=True):  # the generation moves on commit
        said = run("reissuetoken", str(match.pk), "B")
    assert said.startswith("Hanoi's new token (shown once; the old one no longer works): ")
    new = token_of(said)
    assert Team.objects.get(match=match, index=1).token_hash == token_hash(new)
    assert new not in str(list(Team.objects.values_list("token_hash", flat=True)))
    assert sends(client, match, tokens[1]) == 401
    assert sends(client, match, new) == 202
    assert sends(client, match, tokens[0]) == 202  # the other team's is untouched


def test_another_process_drops_its_teams_within_a_second_of_a_reissue(client):
    match, tokens = make_match(teams=("Nara", "Hanoi"))
    assert sends(client, match, tokens[0]) == 202
    looked = access.GENERATION.last
    # another process reissues: only the shared generation moves (this one's caches stay)
    Team.objects.filter(match=match, index=0).update(token_hash=token_hash("elsewhere"))
    access.cache.set(access.TOKENS_GENERATION, "another process's reissue")
    assert sends(client, match, tokens[0]) == 202  # within the second: still kept here
    access.GENERATION.expire()  # a second later
    assert sends(client, match, tokens[0]) == 401
    assert access.GENERATION.last != looked


def test_a_tournament_teams_token_reissued_by_seed_or_name(django_capture_on_commit_callbacks):
    made = json.loads(run("createtournament", "Cup", "--game", "kakomimasu", "--format",
                          "round-robin", "--teams", "Nara", "Hanoi", "--start-in", "3600",
                          "--json"))
    assert access.team_by_authorization(f"Bearer {made['teams'][1]['token']}").name == "Hanoi"
    with django_capture_on_commit_callbacks(execute=True):
        new = token_of(run("reissuetoken", "--tournament", str(made["id"]), "hanoi"))
    assert Entrant.objects.get(tournament_id=made["id"], index=1).token_hash == token_hash(new)
    assert access.team_by_authorization(f"Bearer {made['teams'][1]['token']}") is None
    assert access.team_by_authorization(f"Bearer {new}").name == "Hanoi"
    assert refusal("reissuetoken", "--tournament", str(made["id"]), "Osaka") == \
        "no team 'Osaka' there"
    assert refusal("reissuetoken", "999999", "A") == "there is no match 999999"
