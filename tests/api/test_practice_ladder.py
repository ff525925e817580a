"""The practice ladder (matches/selectors/ladder.py): OpenSkill ratings from finished
practice games, the levels fixed between them; GET /api/practice/ladder and /practice/."""

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.services.practice import Ask, practice_start

pytestmark = pytest.mark.django_db


def played(name, opponent, winner, game="kakomimasu", by=None, finish=True):
    """A practice match of `name` against `opponent`, ended with `winner` (0 is `name`)."""
    started = practice_start(Ask(game=game, opponent=opponent, name=name),
                             by or f"address:{name}", None, timezone.now() - timedelta(hours=1))
    if finish:
        Match.objects.filter(pk=started.match.pk).update(
            resolved_turns=started.match.turns,
            result={"winner": winner, "decided_by": "total" if winner is not None else "draw"})
    return started.match


@pytest.fixture
def open_practice(settings):
    settings.PRACTICE, settings.PRACTICE_MAX_PER_CALLER = "open", 100


def ladder(client, game="kakomimasu"):
    answer = client.get(f"/api/practice/ladder?game={game}")
    assert answer.status_code == 200
    return {row["name"]: row for row in answer.json()}


def test_wins_over_strong_levels_lift_a_team_past_them_and_the_levels_stay(client,
                                                                         open_practice):
    before = ladder(client)
    assert [before[f"Level {n}"]["rating"] for n in (1, 2, 3, 4)] == [7.0, 17.0, 24.0, 30.0]
    for _ in range(6):
        played("Nara", "level-4", 0)
    played("Nara", "level-3", None)
    played("Sendai", "level-1", 1)
    played("Sendai", "level-1", 1)
    played("Idle", "none", 0)  # nobody played the other side: rates nobody
    played("Unfinished", "level-1", None, finish=False)
    rows = client.get("/api/practice/ladder?game=kakomimasu").json()
    names = [row["name"] for row in rows]
    table = {row["name"]: row for row in rows}
    assert [table[f"Level {n}"]["rating"] for n in (1, 2, 3, 4)] == [7.0, 17.0, 24.0, 30.0]
    nara, sendai = table["Nara"], table["Sendai"]
    assert (nara["wins"], nara["draws"], nara["losses"], nara["games"]) == (6, 1, 0, 7)
    assert (sendai["wins"], sendai["losses"]) == (0, 2) and sendai["rating"] < 0
    # a rating is its sure part (μ − 3σ): seven games lift Nara past level 2, not yet 4
    assert names.index("Level 3") < names.index("Nara") < names.index("Level 2")
    assert names.index("Sendai") == len(names) - 1  # best first
    assert "Idle" not in table and "Unfinished" not in table
    assert len(nara["recent"]) == 5 and nara["recent"] == sorted(nara["recent"], reverse=True)
    assert ladder(client, "blokus-duo")["Level 4"]["games"] == 0  # each game its own


def test_two_teams_that_met_are_rated_against_each_other(client, open_practice):
    opened = practice_start(Ask(game="kakomimasu", opponent="anyone", name="Hanoi"),
                            "address:hanoi", None, timezone.now()).match
    joined = practice_start(Ask(game="kakomimasu", opponent="anyone", name="Osaka"),
                            "address:osaka", None, timezone.now())
    assert joined.match.pk == opened.pk
    Match.objects.filter(pk=opened.pk).update(resolved_turns=opened.turns,
                                               result={"winner": 1, "decided_by": "total"})
    table = ladder(client)
    assert table["Osaka"]["wins"] == 1 and table["Hanoi"]["losses"] == 1
    assert table["Osaka"]["rating"] > table["Hanoi"]["rating"]


def test_the_ladder_answers_only_where_practice_is_offered(client, settings):
    settings.PRACTICE = "off"
    assert client.get("/api/practice/ladder?game=kakomimasu").status_code == 404
    settings.PRACTICE = "open"
    assert client.get("/api/practice/ladder?game=chaser").status_code == 200  # its server's
    assert client.get("/api/practice/ladder?game=go").status_code == 422
    assert client.get("/api/practice/ladder").status_code == 422


def test_the_practice_page_shows_each_games_ladder(client, open_practice):
    played("Nara", "level-2", 0)
    page = client.get("/practice/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "ランキング" in page and "Nara" in page and "レベル4" in page
