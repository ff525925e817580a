"""The replay page: every resolved turn embedded, nothing of a turn still being played."""

import json
import re

import pytest
from django.contrib.auth.models import Permission, User

from matches import selectors
from matches.models import Match, Submission
from matches.services.transition import turn_resolve
from tests.factories import make_match, move, put, remove, submit

pytestmark = pytest.mark.django_db



def embedded(page: str) -> dict:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page,
                      re.S)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))


@pytest.fixture
def two_turns_and_a_pending_one():
    """Turns 1 and 2 resolved; team A has already sent its actions for turn 3."""
    match, tokens = make_match(turns=5)
    submit(match, tokens[0], [put(0, 1, 1), put(1, 2, 2)], 1)
    submit(match, tokens[1], [put(0, 2, 2), put(1, 4, 3)], 1)
    turn_resolve(match_id=match.pk, number=1)
    submit(match, tokens[0], [move(0, 2, 1)], 2)
    turn_resolve(match_id=match.pk, number=2)
    submit(match, tokens[0], [remove(0, 4, 3)], 3)
    match.refresh_from_db()
    return match


def test_the_page_embeds_every_resolved_turn_and_nothing_pending(client,
                                                                 two_turns_and_a_pending_one):
    match = two_turns_and_a_pending_one
    assert Submission.objects.filter(match=match, turn=3, status_code=202).exists()
    page = client.get(f"/matches/{match.pk}/replay").content.decode()
    data = embedded(page)
    rows = [row.state() for row in match.turn_rows.order_by("number")]
    assert [state["turn"] for state in data["states"]] == [0, 1, 2]
    assert data["states"][1:] == rows
    assert '"remove"' not in page  # turn 3's submission is nobody's business yet
    assert data["status"] == "running" and data["result"] is None
    assert data["verdict"] is None and data["verdicts"] is None  # no words before the end


def test_turn_zero_is_the_empty_start_position(client, two_turns_and_a_pending_one):
    match = two_turns_and_a_pending_one
    start = embedded(client.get(f"/matches/{match.pk}/replay").content.decode())["states"][0]
    assert start["turn"] == 0 and "outcomes" not in start
    assert set("".join(start["cells"])) == {"."}
    assert start["agents"] == [[None, None], [None, None]]
    assert all(score["total"] == 0 for score in start["scores"])


def test_the_page_carries_the_board_teams_and_marks(client, two_turns_and_a_pending_one):
    match = two_turns_and_a_pending_one
    page = client.get(f"/matches/{match.pk}/replay").content.decode()
    data = embedded(page)
    assert data["board"]["points"] == match.board.data["points"]
    assert [team["name"] for team in data["teams"]] == ["Alpha", "Beta"]
    assert data["turns"] == 5 and data["agents"] == 2
    assert data["marks"] == {"swing": 10, "conflicts": 2}
    assert ">Alpha<" in page and ">Beta<" in page and "startReplay(" in page
    assert f'href="/matches/{match.pk}/"' in page and "back to live" in page


def test_a_finished_match_replays_with_its_result(client):
    match, _ = make_match(turns=1)
    turn_resolve(match_id=match.pk, number=1)
    Match.objects.filter(pk=match.pk).update(published=True)
    data = embedded(client.get(f"/matches/{match.pk}/replay").content.decode())
    assert data["status"] == "finished" and data["result"]["decided_by"] == "draw"
    assert len(data["states"]) == 2
    # the result in words, as the venue's `end` says it, in every language
    assert data["verdict"] == "A draw: 0 points each"
    assert data["verdicts"]["en"] == data["verdict"]
    assert set(data["verdicts"]) == {"ja", "vi", "en"} and data["verdicts"]["ja"] != data["verdict"]


def test_a_finished_match_has_the_verdict_of_its_scores(client):
    match, tokens = make_match(turns=1)
    submit(match, tokens[0], [put(0, 1, 1)], 1)
    turn_resolve(match_id=match.pk, number=1)
    data = embedded(client.get(f"/matches/{match.pk}/replay").content.decode())
    assert data["result"]["winner"] == 0
    match = Match.objects.get(pk=match.pk)
    assert data["verdict"] == selectors.verdict(match, selectors.latest_scores(match))
    assert data["verdict"].startswith("Alpha wins by ")


def test_the_venue_screen_links_to_the_replay(client):
    match, _ = make_match()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'href="/matches/{match.pk}/replay"' in page


def test_a_private_match_has_no_replay_but_for_judges(client):
    match, _ = make_match(teams=("Hidden", "Secret"), public=False)
    assert client.get(f"/matches/{match.pk}/replay").status_code == 404
    assert client.get("/matches/999/replay").status_code == 404
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    assert b"Hidden" in client.get(f"/matches/{match.pk}/replay").content


@pytest.mark.parametrize(("points", "agents", "swing", "conflicts"), [
    (1, 2, 10, 2),     # a small board: the floor of 10
    (16, 6, 72, 6),    # 0.75 × 6 agents × 16
    (-8, 8, 48, 8),    # negative values count by their size
])
def test_the_mark_thresholds_follow_the_board_and_the_agents(points, agents, swing, conflicts):
    board = {"width": 4, "height": 3, "points": [[points] * 4 for _ in range(3)]}
    match, _ = make_match(board=board, agents=agents)
    assert selectors.swing_threshold(match) == swing
    assert selectors.conflict_threshold(match) == conflicts
