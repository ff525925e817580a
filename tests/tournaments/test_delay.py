"""A tournament with a spectator delay (docs/api.md, "The spectator delay"): the public
sees a fixture settled, the standings move and the next round drawn only once the end
of the fixture's match is a delay old; the judges see it at once."""

import pytest
from django.test import Client

from matches.models import Fixture, Match
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from tests.tournaments.conftest import run_until

# the seated levels answer from a thread of their own
pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 40


def test_the_public_sees_results_and_the_next_round_a_delay_late(clock, judge_client):
    created = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="knockout", start_at=clock.now(),
        teams=[EntrantSpec(name) for name in ("Alpha", "Beta", "Gamma", "Delta")],
        boards=["A-1"], turns=3, strategy_seconds=1, transition_seconds=0.5, gap_seconds=0,
        bots=True, public=True, delay_seconds=DELAY))
    tournament = created.tournament
    tournaments_tick(clock.now())
    assert {m.delay_s for m in Match.objects.filter(fixture__tournament=tournament)} == {DELAY}
    run_until(tournament, clock, lambda: Fixture.objects.filter(
        tournament=tournament, round=2).exists())
    path = f"/api/tournaments/{tournament.pk}"

    def seen(client):
        data = client.get(path).json()
        return ([[f["finished"] for f in r["fixtures"]] for r in data["rounds"]],
                sum(row["played"] for row in data["standings"]))

    assert seen(judge_client)[0][0] == [True, True] and len(seen(judge_client)[0]) == 2
    # round 2 is drawn as round 1's last fixture is settled: the public sees neither yet
    # (a fixture settled a delay before, after a replayed draw, it may see)
    rounds, played = seen(Client())
    assert len(rounds) == 1 and False in rounds[0] and played < 4
    # its own teams read it live, as docs/api.md says of team reads
    token = created.tokens[0]
    assert seen(Client(HTTP_AUTHORIZATION=f"Bearer {token}")) == seen(judge_client)
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Delta" in page and judge_client.get(f"/tournaments/{tournament.pk}/").status_code \
        == 200
    clock.advance(DELAY + 1)
    finished, played = seen(Client())
    assert finished[0] == [True, True] and len(finished) == 2 and played == 4
