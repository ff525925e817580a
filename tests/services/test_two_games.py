"""A Procon 2020 match is two games: the second on a field kept secret from everyone
(its teams and the judges included) on every surface until its first strategy step
opens; the first game's tokens serve the second; the match's result adds both up."""

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from matches.live import messages
from matches.models import Match, Team
from matches.rules.procon2020 import random_field
from matches.selectors import match_verify, public_state
from matches.services.submissions import Request, submission_receive
from matches.services.transition import turn_resolve
from tests.commands.calls import refusal, run

pytestmark = pytest.mark.django_db
SECRET = random_field(2)[0]


def two_games(*flags) -> tuple[Match, Match, list[str]]:
    printed = json.loads(run("creatematch", "--game", "procon2020", "--board", "random:1",
                             "--secret-board", "random:2", "--teams", "Hà Nội", "Huế",
                             "--turns", "2", "--strategy-seconds", "60", "--start-in", "0",
                             "--between", "30", "--public", "--json", *flags))
    first, second = (Match.objects.get(pk=pk) for pk in printed["games"])
    assert printed["id"] == first.pk
    return first, second, [team["token"] for team in printed["teams"]]


def send(match, token, actions, at):
    body = json.dumps({"actions": actions}).encode()
    return submission_receive(Request(match.pk, f"Bearer {token}", body, len(body),
                                      "application/json", "127.0.0.1", at))


def leaks(text: str) -> list[str]:
    """What of the secret field a text shows: its points rows, its start cells."""
    found = [f"row {y}" for y, row in enumerate(SECRET["points"])
             if json.dumps(row) in text.replace(" ", "") or
             json.dumps(row, separators=(",", ":")) in text]
    return found + (["start"] if json.dumps(SECRET["start"][0]) in text else [])


def test_the_second_game_follows_the_first_with_the_same_teams():
    first, second, _ = two_games()
    assert second.first_game == first and second.secret_board and not first.secret_board
    assert second.start_at == first.start_at + 2 * first.period + timedelta(seconds=30)
    assert second.board.data == SECRET and second.agents == random_field(2)[1]["agents"]
    assert [t.name for t in second.teams.all()] == ["Hà Nội", "Huế"]
    assert refusal("creatematch", "--board", "A-1", "--teams", "A", "B",
                   "--secret-board", "random") == "--secret-board: a match of Kakomimasu " \
                                                  "(Procon 31) is one game"


def test_the_api_says_which_game_of_the_match_each_is(client):
    first, second, tokens = two_games()
    totals = [score["total"] for score in public_state(first)["state"]["scores"]]
    for game, number in ((first, 1), (second, 2)):
        shown = client.get(f"/api/matches/{game.pk}",
                           HTTP_AUTHORIZATION=f"Bearer {tokens[1]}").json()
        assert shown["game_of_match"] == {"game": number, "of": 2,
                                          "ids": [first.pk, second.pk],
                                          "headlines": [totals, [0, 0]],
                                          "wins": [0, 0], "by": "totals"}
        assert shown["you"] == 1
    one = json.loads(run("creatematch", "--game", "blokus-duo", "--teams", "A", "B",
                         "--public", "--json"))
    assert client.get(f"/api/matches/{one['id']}").json()["game_of_match"] is None


def test_nothing_of_the_secret_field_is_shown_to_anyone_before_its_start(client):
    first, second, tokens = two_games()
    judge = User.objects.create_user("judy", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    judged = Client()
    judged.force_login(judge)
    for who, headers in ((client, {}), (client, {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}"}),
                         (judged, {})):
        shown = who.get(f"/api/matches/{second.pk}", **headers).json()
        assert shown["board"] == {"name": "secret field", "secret": True}
        assert shown["state"]["cells"] == [] and shown["state"]["agents"] == [[], []]
        assert all(set(score.values()) == {0} for score in shown["state"]["scores"])
        listed = {m["id"]: m for m in who.get("/api/matches", **headers).json()}
        assert listed[second.pk]["board"] == "secret field"
        for page in (f"/matches/{second.pk}/", f"/matches/{second.pk}/replay",
                     f"/matches/{second.pk}/embed", "/", f"/screens/?matches={second.pk}",
                     "/tv/", "/tv/now"):
            answer = who.get(page, **headers)
            text = answer.content.decode()
            assert answer.status_code == 200 and leaks(text) == [], page
            assert second.board.name not in text, page
        assert who.get(f"/matches/{second.pk}/board.png", **headers).status_code == 404
    audit = judged.get(f"/matches/{second.pk}/audit").content.decode()
    assert second.board.name not in audit and leaks(audit) == []
    snapshot = messages.snapshot(Match.objects.get(pk=second.pk))
    assert snapshot["match"]["board"]["secret"] and leaks(json.dumps(snapshot)) == []
    first_totals = [score["total"] for score in public_state(first)["state"]["scores"]]
    assert snapshot["match"]["game_of_match"] == {
        "game": 2, "of": 2, "ids": [first.pk, second.pk], "headlines": [first_totals, [0, 0]],
        "wins": [0, 0], "by": "totals"}

    Match.objects.filter(pk=second.pk).update(start_at=timezone.now() - timedelta(seconds=1))
    answer = client.get(f"/api/matches/{second.pk}")
    shown = answer.json()
    assert shown["board"]["points"] == SECRET["points"] and shown["state"]["cells"]
    assert leaks(answer.content.decode()) != []  # what the checks above look for
    assert client.get(f"/matches/{second.pk}/board.png").status_code == 200


def test_the_first_games_tokens_play_the_second_and_the_match_adds_both_games_up():
    first, second, tokens = two_games()
    Match.objects.filter(pk=first.pk).update(start_at=timezone.now() - timedelta(minutes=10))
    first.refresh_from_db()
    for number in (1, 2):
        turn_resolve(match_id=first.pk, number=number)
    opens = timezone.now() + timedelta(seconds=5)
    Match.objects.filter(pk=second.pk).update(start_at=opens)
    second.refresh_from_db()
    early = send(second, tokens[0], [], opens - timedelta(seconds=1))
    assert (early.status, early.body["error"]) == (409, "not_running")
    reply = send(second, tokens[1], [{"agent": 0, "type": "move", "dx": 1, "dy": 0}],
                 opens + timedelta(seconds=1))
    assert reply.status == 202
    counted = second.submissions.get(status_code=202)
    assert counted.team == Team.objects.get(match=second, index=1)
    Match.objects.filter(pk=second.pk).update(start_at=timezone.now() - timedelta(minutes=1))
    for number in (1, 2):
        turn_resolve(match_id=second.pk, number=number)
    first.refresh_from_db()
    second.refresh_from_db()
    totals = [public_state(game)["state"]["scores"] for game in (first, second)]
    summed = [totals[0][team]["total"] + totals[1][team]["total"] for team in (0, 1)]
    assert second.result["winner"] == (None if summed[0] == summed[1] else
                                       int(summed[1] > summed[0]))
    assert match_verify(second).verified and match_verify(first).verified


def test_a_later_game_made_after_its_token_was_tried_on_it_is_found():
    """A token tried on a game not made yet (CHaser's games are made as they start) must
    not be remembered as a stranger's for that id."""
    from matches.access import team_by_authorization
    from matches.services.matches import match_create

    first, second, tokens = two_games()
    made = match_create(board=first.board, team_names=["Hà Nội", "Huế"], agents=2, turns=2,
                        strategy_seconds=1, transition_seconds=1, start_at=timezone.now())
    unmade = made.match.pk + 1  # the id the next game will take
    assert team_by_authorization(f"Bearer {tokens[0]}", unmade).match_id == first.pk
    later = match_create(board=first.board, team_names=["Hà Nội", "Huế"], agents=2, turns=2,
                         strategy_seconds=1, transition_seconds=1, start_at=timezone.now(),
                         first_game=first, match_games=3).match
    assert later.pk == unmade
    assert team_by_authorization(f"Bearer {tokens[0]}", unmade).match_id == later.pk


def test_the_deciding_game_says_the_match_s_result_in_the_match_s_sums(client):
    """Seen: "Alpha wins by 149 points — final 51 – 200": the winner was the match's
    (558–331), the margin the second game's, which Alpha lost. The second game's result
    carries the sums, and its words say the match's."""
    from matches.rules import rules_for

    first, second, _ = two_games()
    rules = rules_for("procon2020")
    games = [([{"total": 507, "tile": 300}, {"total": 131, "tile": 90}], {"winner": 0}),
             ([{"total": 51, "tile": 40}, {"total": 200, "tile": 150}], {"winner": 1})]
    result = {**games[1][1], **rules.match_result(games, 2)}
    assert result["winner"] == 0 and result["match"]["totals"] == [558, 331]
    said = rules.verdict(result, games[1][0], ["Alpha", "Beta"])
    assert said == "Alpha wins the match by 227 points: 558 – 331 over its 2 games"
    assert rules.match_verdict(result, ["Alpha", "Beta"]) is None  # said once
    tied = rules.match_result([([{"total": 10, "tile": 7}, {"total": 5, "tile": 5}], {}),
                               ([{"total": 5, "tile": 1}, {"total": 10, "tile": 2}], {})], 2)
    assert rules.verdict(tied, [], ["Alpha", "Beta"]) == \
        "Alpha wins the match on tile points: 8 – 7 over its 2 games"


def test_the_first_game_s_words_are_the_game_s_not_a_match_win():
    """Game 1 of two announced "Alpha wins by 376 points", as if the match were won."""
    from matches.selectors.verdicts import verdict

    first, second, _ = two_games()
    Match.objects.filter(pk=first.pk).update(start_at=timezone.now() - timedelta(minutes=10))
    for number in (1, 2):
        turn_resolve(match_id=first.pk, number=number)
    first.refresh_from_db()
    scores = public_state(first)["state"]["scores"]
    said = verdict(first, scores)
    assert said.startswith("Game 1 of 2: "), said
    assert "match" not in said
