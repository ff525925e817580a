"""A match's state read with a token: its own team's read passes the visitors' counts
freely; a token of another match (a practice match's, say) reads another public match
as any visitor does, under the address's rate of small reads and byte budget
(matches/admission.py, `visitor_read`; docs/api.md, "Limits and what is kept")."""

import pytest

from matches import admission
from tests.factories import make_match

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
