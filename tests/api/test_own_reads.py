"""A match's state read with a token: its own team's read passes the visitors' counts
freely; a token of another match (a practice match's, say) reads another public match
as any visitor does, under the address's rate of small reads and byte budget
(matches/admission.py, `visitor_read`; docs/api.md, "Limits and what is kept"). The
same for the heavy reads (a what-if, an analysis): only the match's own teams (a
match's first game's token in its later games too) and the judges pass their gate."""

import json
from datetime import timedelta

import pytest
from django.db.models import F

from matches import admission
from matches.models import Match
from tests.factories import make_alternating_match, make_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_reads_an_address(monkeypatch):
    monkeypatch.setattr(admission, "SMALL_READS", admission.RequestRate(0.0, 2.0))


@pytest.mark.parametrize("path", ("/api/matches/{id}", "/v1/matches/{id}"))
def test_another_matchs_token_reads_as_a_visitor_and_its_own_team_freely(
        client, two_reads_an_address, path):
    watched, watched_tokens = make_match(teams=("Nara", "Hanoi"))
    _, other_tokens = make_match(teams=("Osaka", "Hue"))

    def read(token):
        return client.get(path.format(id=watched.pk), HTTP_AUTHORIZATION=f"Bearer {token}",
                          REMOTE_ADDR="192.0.2.30").status_code

    assert [read(other_tokens[0]) for _ in range(3)] == [200, 200, 429]
    assert [read(watched_tokens[1]) for _ in range(5)] == [200] * 5


@pytest.fixture
def heavy_place_taken():
    """An address whose one place at the heavy reads' gate is held (a picture of its
    being drawn, say): a visitor's heavy read from it now is refused."""
    address = "192.0.2.31"
    ticket = admission.GATES["heavy"].enter(address)
    assert ticket is not None
    yield address
    ticket.release()


def heavy_read(client, path, match, token, address):
    """A what-if or an analysis of `match` with `token`, from `address`: its status."""
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}", "REMOTE_ADDR": address}
    if path == "whatif":
        return client.post(f"/api/matches/{match.pk}/whatif", json.dumps({"from_turn": 0}),
                           content_type="application/json", **headers).status_code
    return client.get(f"/api/matches/{match.pk}/{path}", **headers).status_code


@pytest.mark.parametrize("path", ("whatif", "analysis"))
def test_another_matchs_token_waits_at_the_heavy_gate_and_its_own_team_passes(
        client, heavy_place_taken, path):
    watched, watched_tokens = make_alternating_match(teams=("Nara", "Hanoi"))
    _, other_tokens = make_match(teams=("Osaka", "Hue"))
    assert heavy_read(client, path, watched, other_tokens[0], heavy_place_taken) == 429
    assert heavy_read(client, path, watched, watched_tokens[1], heavy_place_taken) == 200


def test_a_first_games_token_passes_the_heavy_gate_in_its_later_game(client, heavy_place_taken):
    from tests.services.test_two_games import two_games

    first, second, tokens = two_games()
    Match.objects.filter(pk__in=(first.pk, second.pk)).update(
        start_at=F("start_at") - timedelta(days=1))  # both games played a day ago
    _, other_tokens = make_match(teams=("Osaka", "Hue"))
    assert heavy_read(client, "whatif", second, other_tokens[0], heavy_place_taken) == 429
    assert heavy_read(client, "whatif", second, tokens[0], heavy_place_taken) == 200
