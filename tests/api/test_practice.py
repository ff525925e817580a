"""POST /api/practice: practice matches a team or a guest starts itself, against a level
or whoever asks next; the setting, the caps, the refusals, the seated players and the
guests' matches taken down (matches/services/practice.py, seats.py)."""

import json
import os
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Submission, Team
from matches.services import seats as seats_module
from matches.services.practice import practice_sweep
from tests.factories import make_match

pytestmark = pytest.mark.django_db


def start(client, body, token=None, address="192.0.2.1"):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post("/api/practice", json.dumps(body), content_type="application/json",
                       REMOTE_ADDR=address, **headers)


@pytest.fixture
def open_practice(settings):
    settings.PRACTICE = "open"
    return settings


def test_a_server_without_practice_says_so(client, settings):
    settings.PRACTICE = "off"
    answer = start(client, {"game": "kakomimasu", "opponent": "level-2"})
    assert answer.status_code == 404 and answer.json()["error"] == "practice_off"
    assert not Match.objects.exists()


def test_a_guest_plays_a_level_with_the_token_it_is_given(client, open_practice):
    answer = start(client, {"game": "kakomimasu", "opponent": "level-3", "board": "A-1",
                            "turns": 12, "strategy_seconds": 2, "name": "Nara 奈良"})
    assert answer.status_code == 201, answer.content
    made = answer.json()
    match = Match.objects.get(pk=made["match"])
    assert made["team"] == 0 and made["waiting"] is False
    assert made["watch"] == f"http://testserver/matches/{match.pk}/"
    assert match.turns == 12 and match.strategy_ms == 2000 and match.board.name == "A-1"
    assert match.public_live and match.practice_by == "address:192.0.2.1"
    assert match.expires_at is not None and match.fixture_id is None
    assert [(t.name, t.seat) for t in match.teams.all()] == [("Nara 奈良", ""),
                                                            ("Level 3", "level-3")]
    shown = client.get(f"/api/matches/{match.pk}",
                       HTTP_AUTHORIZATION=f"Bearer {made['token']}").json()
    assert shown["you"] == 0


def test_a_guest_moving_second_in_an_alternating_game_is_team_b(client, open_practice):
    made = start(client, {"game": "blokus-duo", "opponent": "level-1", "first": False}).json()
    match = Match.objects.get(pk=made["match"])
    assert made["team"] == 1 and match.alternating
    assert [t.seat for t in match.teams.all()] == ["level-1", ""]


def test_where_practice_is_for_teams_a_team_token_is_needed(client, settings):
    settings.PRACTICE = "teams"
    _, tokens = make_match(teams=("Hanoi", "Osaka"))
    assert start(client, {"game": "kakomimasu", "opponent": "level-1"}).json()["error"] == \
        "unauthorized"
    assert start(client, {"game": "kakomimasu", "opponent": "level-1"},
                 token="not-a-token").status_code == 401
    answer = start(client, {"game": "procon2020", "opponent": "level-4"}, token=tokens[0])
    assert answer.status_code == 201
    match = Match.objects.get(pk=answer.json()["match"])
    assert match.teams.get(index=0).name == "Hanoi" and match.expires_at is None
    assert match.practice_by.startswith("team:")
    assert match.match_games == 2  # Procon 2020's match of two games, the level in both
    assert list(Team.objects.filter(match__in=[match, *match.later_games.all()], index=1)
                .values_list("seat", flat=True)) == ["level-4", "level-4"]


@pytest.mark.parametrize("body, code", [
    ({"game": "go", "opponent": "level-1"}, "bad_game"),
    ({"game": "chaser", "opponent": "level-1"}, "bad_game"),
    ({"game": "kakomimasu", "opponent": "level-9"}, "bad_opponent"),
    ({"game": "kakomimasu"}, "bad_opponent"),
    ({"game": "kakomimasu", "opponent": "level-1", "board": "Mars-1"}, "bad_board"),
    ({"game": "kakomimasu", "opponent": "level-1", "board": {"points": 5}}, "bad_board"),
    ({"game": "kakomimasu", "opponent": "level-1", "board": {"width": "x", "height": 2,
                                                             "points": [1, 2]}}, "bad_board"),
    ({"game": "kakomimasu", "opponent": "level-1", "board": [1]}, "bad_board"),
    ({"game": "blokus-duo", "opponent": "level-1", "board": "random"}, "bad_board"),
    ({"game": "kakomimasu", "opponent": "level-1", "turns": 0}, "bad_turns"),
    ({"game": "kakomimasu", "opponent": "level-1", "turns": 2.5}, "bad_turns"),
    ({"game": "kakomimasu", "opponent": "level-1", "turns": True}, "bad_turns"),
    ({"game": "blokus-duo", "opponent": "level-1", "turns": 10}, "bad_turns"),
    ({"game": "kakomimasu", "opponent": "level-1", "strategy_seconds": 0.01},
     "bad_strategy_seconds"),
    ({"game": "kakomimasu", "opponent": "level-1", "transition_seconds": "1"},
     "bad_transition_seconds"),
    ({"game": "kakomimasu", "opponent": "level-1", "first": "yes"}, "bad_first"),
    ({"game": "blokus-duo", "opponent": "level-1", "agents": 3}, "bad_agents"),
    ({"game": "procon2020", "opponent": "level-1", "agents": 30}, "bad_agents"),
    ({"game": "kakomimasu", "opponent": "level-1", "agents": 0}, "bad_agents"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "a\x00b"}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "x" * 41}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "\ud800"}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "Level 4"}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "Level 4\u200b"}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "Ｌｅｖｅｌ ４"}, "bad_name"),
    ({"game": "kakomimasu", "opponent": "level-1", "name": "No\u2060body"}, "bad_name"),
    ([], "bad_request"),
])
def test_a_bad_request_is_refused_in_words_and_makes_nothing(client, open_practice, body, code):
    answer = start(client, body)
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"] == code and answer.json()["detail"]
    assert not Match.objects.exists()


def test_a_body_that_is_not_json_is_refused(client, open_practice):
    for body in (b"{nope", b"[" * 60_000, b"\xff\xfe"):
        answer = client.post("/api/practice", body, content_type="application/json")
        assert answer.status_code == 400 and answer.json()["error"] == "malformed_json"
    huge = client.post("/api/practice", b" " * (65 * 1024), content_type="application/json")
    assert huge.status_code == 413 and huge.json()["error"] == "too_large"


def test_a_field_file_is_a_board(client, open_practice):
    field = {"width": 10, "height": 10, "points": [[(x * y) % 7 for x in range(10)]
                                                   for y in range(10)]}
    answer = start(client, {"game": "kakomimasu", "opponent": "level-2", "board": field})
    assert answer.status_code == 201
    board = Match.objects.get(pk=answer.json()["match"]).board
    assert board.data["points"] == field["points"]


def test_practice_matches_at_once_are_capped_per_caller_and_in_all(client, open_practice):
    open_practice.PRACTICE_MAX_PER_CALLER, open_practice.PRACTICE_MAX_MATCHES = 2, 3
    open_practice.PRACTICE_GUEST_SHARE = 1.0  # the guests may take them all here
    ask = {"game": "kakomimasu", "opponent": "level-1"}
    assert [start(client, ask).status_code for _ in range(2)] == [201, 201]
    refused = start(client, ask)
    assert refused.status_code == 429 and refused.json()["error"] == "too_many_practice_matches"
    assert start(client, ask, address="192.0.2.2").status_code == 201
    full = start(client, ask, address="192.0.2.3")
    assert full.status_code == 429 and full.json()["error"] == "practice_full"
    Match.objects.filter(practice_by="address:192.0.2.1").update(resolved_turns=30)  # ended
    assert start(client, ask, address="192.0.2.3").status_code == 201


def test_guests_from_many_addresses_never_take_every_practice_match_from_the_teams(
        client, open_practice):
    from matches.models import PracticeTeam, token_hash

    open_practice.PRACTICE_MAX_PER_CALLER, open_practice.PRACTICE_MAX_MATCHES = 2, 4
    open_practice.PRACTICE_GUEST_SHARE = 0.5  # two for the guests together
    ask = {"game": "kakomimasu", "opponent": "level-1"}
    guests = [start(client, ask, address=f"192.0.2.{n}").status_code for n in range(10, 13)]
    assert guests == [201, 201, 429]
    refused = start(client, ask, address="192.0.2.99").json()
    assert refused["error"] == "practice_full" and "team's token" in refused["detail"]
    PracticeTeam.objects.create(name="Kosen Nara", token_hash=token_hash("t" * 32))
    assert start(client, ask, token="t" * 32, address="192.0.2.99").status_code == 201


def test_a_chain_of_practice_tokens_is_one_guest_under_its_caps(client, open_practice):
    """Each request made with the token the last one gave counts against the same
    guest: no new team (with caps of its own) is made of a practice token."""
    open_practice.PRACTICE_MAX_PER_CALLER = 2
    ask = {"game": "kakomimasu", "opponent": "level-1"}
    token, answers = None, []
    for _ in range(4):
        answer = start(client, ask, token=token)
        answers.append(answer.json().get("error", answer.status_code))
        token = answer.json().get("token", token)
    assert answers == [201, 201, "too_many_practice_matches", "too_many_practice_matches"]
    assert set(Match.objects.values_list("practice_by", flat=True)) == {"address:192.0.2.1"}
    assert set(Match.objects.values_list("expires_at", flat=True)) != {None}  # a guest's


def test_a_guest_may_not_play_under_a_registered_teams_name(client, open_practice):
    from matches.models import PracticeTeam

    PracticeTeam.objects.create(name="Kosen Nara", token_hash="0" * 64)
    for name in ("Kosen Nara", "kosen nara", "Ｋｏｓｅｎ Ｎａｒａ"):
        answer = start(client, {"game": "kakomimasu", "opponent": "level-1", "name": name})
        assert answer.status_code == 400 and answer.json()["error"] == "bad_name", name
    assert start(client, {"game": "kakomimasu", "opponent": "level-1",
                          "name": "Kosen Nara fan"}).status_code == 201


@pytest.mark.django_db(transaction=True)
def test_practice_requests_at_once_never_run_past_the_caps(open_practice):
    """Caps are counted and taken in one transaction: 24 requests at once from one
    address make 2 matches, and 30 addresses at once make no more than the cap."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import Client

    open_practice.PRACTICE_MAX_PER_CALLER, open_practice.PRACTICE_MAX_MATCHES = 2, 6
    open_practice.PRACTICE_GUEST_SHARE = 1.0
    ask = {"game": "kakomimasu", "opponent": "level-1"}

    def one(address):
        try:
            return start(Client(), ask, address=address).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(12) as pool:
        alone = list(pool.map(one, ["192.0.2.40"] * 24))
    assert sorted(alone).count(201) == 2 and set(alone) == {201, 429}
    with ThreadPoolExecutor(12) as pool:
        many = list(pool.map(one, [f"192.0.2.{n}" for n in range(100, 130)]))
    assert many.count(201) == 4 and set(many) == {201, 429}
    assert Match.objects.unfinished().exclude(practice_by="").filter(
        first_game=None).count() == 6


def test_the_boards_callers_sent_are_forgotten_with_their_matches(client, open_practice):
    from matches.models import Board

    field = {"width": 10, "height": 10, "points": [[(x + y) % 5 for x in range(10)]
                                                   for y in range(10)]}
    made = start(client, {"game": "kakomimasu", "opponent": "level-1", "board": field}).json()
    other = dict(field, points=[[(x * 3 + y) % 5 for x in range(10)] for y in range(10)])
    start(client, {"game": "kakomimasu", "opponent": "level-1", "board": other},
          address="192.0.2.9")
    sent = Board.objects.filter(source="sent for practice")
    assert sent.count() == 2 and len(set(sent.values_list("name", flat=True))) == 2
    practice_sweep(timezone.now() + timedelta(hours=3))
    assert not Match.objects.filter(pk=made["match"]).exists()
    assert not Board.objects.filter(source="sent for practice").exists()


def test_anyone_pairs_the_next_caller_of_the_same_game(client, open_practice):
    first = start(client, {"game": "kakomimasu", "opponent": "anyone", "name": "Early"}).json()
    assert first["waiting"] is True
    match = Match.objects.get(pk=first["match"])
    assert match.start_at > timezone.now() + timedelta(minutes=5)
    other_game = start(client, {"game": "blokus-duo", "opponent": "anyone"},
                       address="192.0.2.9").json()
    assert other_game["match"] != first["match"]  # another game: a match of its own
    second = start(client, {"game": "kakomimasu", "opponent": "anyone", "name": "Late"},
                   address="192.0.2.2").json()
    assert second["match"] == first["match"] and second["team"] == 1
    assert second["waiting"] is False and second["token"] != first["token"]
    match.refresh_from_db()
    assert match.start_at < timezone.now() + timedelta(seconds=5)
    assert [t.name for t in match.teams.all()] == ["Early", "Late"]
    assert not match.teams.filter(seat="waiting").exists()
    shown = client.get(f"/api/matches/{match.pk}",
                       HTTP_AUTHORIZATION=f"Bearer {second['token']}").json()
    assert shown["you"] == 1


def test_a_caller_never_pairs_with_itself(client, open_practice):
    ask = {"game": "kakomimasu", "opponent": "anyone"}
    first, again = start(client, ask).json(), start(client, ask).json()
    assert first["match"] != again["match"] and again["waiting"] is True


def test_guests_matches_and_unjoined_ones_are_taken_down_in_time(client, open_practice):
    guest = start(client, {"game": "kakomimasu", "opponent": "level-1"}).json()
    waiting = start(client, {"game": "kakomimasu", "opponent": "anyone"},
                    address="192.0.2.5").json()
    kept, _ = make_match()
    now = timezone.now()
    assert practice_sweep(now) == 0
    assert practice_sweep(now + timedelta(minutes=11)) == 1  # nobody joined in 10 minutes
    assert not Match.objects.filter(pk=waiting["match"]).exists()
    assert practice_sweep(now + timedelta(hours=2, minutes=1)) == 1
    assert not Match.objects.filter(pk=guest["match"]).exists()
    assert Match.objects.filter(pk=kept.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_seated_level_answers_each_open_step_off_the_clock(client, open_practice):
    """Read and sent from the seats' thread, thought in a process of its own."""
    made = start(client, {"game": "kakomimasu", "opponent": "level-3", "board": "A-1",
                          "strategy_seconds": 30}).json()
    Match.objects.filter(pk=made["match"]).update(start_at=timezone.now() - timedelta(seconds=1))
    match = Match.objects.get(pk=made["match"])
    seated = match.teams.get(index=1)
    in_step = timezone.now()
    assert seats_module.seats_tick(in_step, woken=True) is True
    seats_module.seats.executor.submit(lambda: None).result(10)  # its answers are done
    thinker = seats_module.seats.thinker.pids()
    assert thinker and os.getpid() not in thinker  # a process of its own
    answer = Submission.objects.get(match=match, team=seated)
    assert answer.status_code == 202 and answer.turn == 1 and answer.dialect == "bot:level-3"
    assert len(answer.actions) == match.agents
    seats_module.seats_tick(in_step)  # answered: not again
    seats_module.seats.executor.submit(lambda: None).result(10)
    assert Submission.objects.filter(match=match, team=seated).count() == 1
    assert not Submission.objects.filter(match=match, team__index=0).exists()


def test_a_practice_servers_game_is_no_seat_the_clock_answers_for():
    """A protocol's practice server seats its own program ("level-1") and plays it over
    its connection; the seats' tick leaves such a running game alone."""
    from matches.services import protocol
    from tests.protocol_servers.test_chaser_faults import BOARD, TURNS

    row = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    game = protocol.game_create(board=row, team_names=["Mine", "Lv 1"], turns=TURNS,
                                title="practice", public_live=True, seats=["", "level-1"],
                                practice_by="tcp:127.0.0.1")
    match = Match.objects.get(pk=game.match_id)
    assert match.practice_by == "tcp:127.0.0.1" and not match.over
    assert match.teams.get(index=1).seat == "level-1"
    assert seats_module.seats_tick(timezone.now(), woken=True) is False
    assert seats_module.seats.matches == set()


def test_an_organisers_practice_token_starts_practice_where_it_is_for_teams(client, settings):
    from matches.models import PracticeTeam
    from tests.commands.calls import refusal, run

    settings.PRACTICE = "teams"
    issued = json.loads(run("createpractice", "Kosen Nara", "Hà Nội", "--json"))
    assert [team["name"] for team in issued] == ["Kosen Nara", "Hà Nội"]
    assert PracticeTeam.objects.count() == 2 and issued[0]["token"] not in str(
        list(PracticeTeam.objects.values_list("token_hash", flat=True)))
    answer = start(client, {"game": "blokus-duo", "opponent": "level-2"},
                   token=issued[1]["token"])
    assert answer.status_code == 201
    match = Match.objects.get(pk=answer.json()["match"])
    assert match.teams.get(index=0).name == "Hà Nội" and match.expires_at is None
    assert "already a practice team: Hà Nội" in refusal("createpractice", "Hà Nội")
    assert "empty" in refusal("createpractice", " ")


def test_a_flood_of_practice_requests_is_refused_from_the_cache(client, open_practice):
    from matches.services.practice import REQUESTS_A_MINUTE

    answers = [start(client, {"game": "go", "opponent": "level-1"}, address="192.0.2.77")
               for _ in range(REQUESTS_A_MINUTE + 5)]
    assert [a.status_code for a in answers[:REQUESTS_A_MINUTE]] == [400] * REQUESTS_A_MINUTE
    assert all(a.status_code == 429 and a.json()["error"] == "rate_limited"
               for a in answers[REQUESTS_A_MINUTE:])
    assert start(client, {"game": "kakomimasu", "opponent": "level-1"},
                 address="192.0.2.78").status_code == 201  # another address is not held
