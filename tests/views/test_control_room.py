"""/control/, the judges' control room: every match running, held or starting within a
day, each team's health (green, amber, red), and the judges' hand on each match (pause,
resume, extend, void) through the same services as the commands."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match
from matches.services.transition import turn_resolve
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db


def section(page: str, match_id: int) -> str:
    start = page.index(f'id="match-{match_id}"')
    end = page.find('<section class="control-match"', start + 1)
    return page[start:end if end != -1 else None]


def test_the_room_is_for_judges_only(client):
    assert client.get("/control/").status_code == 302  # to the login page
    make_match()
    assert client.post("/control/matches/1/pause", {"reason": "x"}).status_code == 302
    assert not Match.objects.filter(paused_at__isnull=False).exists()


def test_a_team_that_misses_its_step_turns_red_and_one_that_answers_stays_green(judge_client):
    match, tokens = make_match(turns=5, strategy=2.0, teams=("Nara", "Hanoi"))
    start = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=match.pk).update(start_at=start)
    match.refresh_from_db()
    sent = judge_client.post(f"/api/matches/{match.pk}/actions",
                             json.dumps({"actions": [put(0, 0, 0)]}),
                             content_type="application/json",
                             HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert sent.status_code == 202
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    upcoming, _ = make_match(start_in=600, teams=("Osaka", "Kushiro"))
    practice, _ = make_match(teams=("Guest", "Level 1"))
    Match.objects.filter(pk=practice.pk).update(practice_by="address:10.0.0.9")
    page = judge_client.get("/control/").content.decode()
    shown = section(page, match.pk)
    levels = re.findall(r'<li class="health-(\w+)">.*?<strong>([^<]+)</strong>', shown, re.S)
    assert levels == [("green", "Nara"), ("red", "Hanoi")]
    assert "1 step missed" in shown and "nothing heard yet" in shown
    assert "health-waiting" in section(page, upcoming.pk)
    assert f'id="match-{practice.pk}"' not in page  # practice is not the day's business
    live = judge_client.get("/control/?part=live").content.decode()
    assert "<html" not in live and f'id="match-{match.pk}"' in live


def test_a_judge_pauses_extends_resumes_and_voids_from_the_room(judge_client):
    match, _ = make_match(turns=5)
    answer = judge_client.post(f"/control/matches/{match.pk}/pause",
                               {"reason": "Nara's router"}, follow=True)
    assert f"Match {match.pk} is paused." in answer.content.decode()
    match.refresh_from_db()
    assert match.pause_reason == "Nara's router" and match.control_log[-1]["by"] == "judy"
    page = section(judge_client.get("/control/").content.decode(), match.pk)
    assert "paused: Nara&#x27;s router" in page and ">Resume</button>" in page
    before = match.deadline(1)
    judge_client.post(f"/control/matches/{match.pk}/extend", {"seconds": "20"})
    judge_client.post(f"/control/matches/{match.pk}/resume")
    match.refresh_from_db()
    assert match.paused_at is None and match.deadline(1) - before >= timedelta(seconds=20)
    refused = judge_client.post(f"/control/matches/{match.pk}/extend", {"seconds": "lots"},
                                follow=True).content.decode()
    assert "Not done: the seconds to give are a number" in refused
    judge_client.post(f"/control/matches/{match.pk}/void", {"reason": "a rerun"})
    match.refresh_from_db()
    assert match.result["decided_by"] == "void" and match.over
    assert [entry["action"] for entry in match.control_log] == [
        "pause", "extend", "resume", "void"]


def test_a_judge_gives_a_team_a_new_token_shown_once(judge_client):
    from django.test import Client

    from matches.models import Team, token_hash

    match, tokens = make_match(teams=("Nara", "Hanoi"))
    team = Team.objects.get(match=match, index=1)
    page = judge_client.post(f"/control/teams/{team.pk}/token").content.decode()
    token = re.search(r"<code>([A-Za-z0-9_-]{32})</code>", page).group(1)
    assert "Hanoi's new token, shown once" in page
    assert Team.objects.get(pk=team.pk).token_hash == token_hash(token) != token_hash(tokens[1])
    assert token not in judge_client.get("/control/").content.decode()  # shown that once
    assert Client().post(f"/control/teams/{team.pk}/token").status_code == 302  # judges only
    # its answer's address opened again (a reload, the history) makes none: the room says so
    again = judge_client.get(f"/control/teams/{team.pk}/token", follow=True)
    assert again.status_code == 200 and "no other was made" in again.content.decode()
    assert Team.objects.get(pk=team.pk).token_hash == token_hash(token)
    # the room asks before it replaces one: a box to open, then the button that does it
    room = judge_client.get("/control/").content.decode()
    assert '<summary class="link-button">new token</summary>' in room
    assert "Replace Hanoi's token" in room


def test_a_judge_makes_a_match_from_the_room_as_creatematch_would(judge_client):
    from django.test import Client

    answer = judge_client.post("/control/new-match", {
        "game": "kakomimasu", "team_a": "Nara", "team_b": "Hanoi", "board": "A-1",
        "turns": "12", "strategy_seconds": "3", "transition_seconds": "1", "start_in": "120",
        "public": "on"})
    page = answer.content.decode()
    assert answer.status_code == 200
    made = Match.objects.get(board__name="A-1", teams__name="Nara")
    assert (made.turns, made.strategy_ms, made.transition_ms, made.public_live) == (
        12, 3000, 1000, True)
    tokens = re.findall(r"<code>([A-Za-z0-9_-]{32})</code>", page)
    assert len(tokens) == 2 and f"Match {made.pk} is made" in page
    sent = Client().post(f"/api/matches/{made.pk}/actions", json.dumps({"actions": []}),
                         content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    assert sent.status_code == 409 and sent.json()["error"] == "not_running"  # its own: early
    refused = judge_client.post("/control/new-match", {
        "game": "blokus-duo", "team_a": "A", "team_b": "B", "board": "random",
        "turns": "9", "clock_seconds": "120", "start_in": "0"})  # as creatematch refuses
    assert refused.status_code == 400 and "ends when the rules say so" in refused.content.decode()
    clocked = judge_client.post("/control/new-match", {
        "game": "blokus-duo", "team_a": "A", "team_b": "B", "board": "random",
        "clock_seconds": "120", "start_in": "0"})
    assert clocked.status_code == 200
    blokus = Match.objects.get(game="blokus-duo", teams__name="A")
    assert blokus.clock_ms == 120_000 and blokus.strategy_ms == 0  # the clock, no turns


def test_the_rooms_form_takes_no_file_for_a_board_and_says_why():
    from django.contrib.auth.models import Permission, User
    from django.test import Client

    judge = Client()
    user = User.objects.create_user("jo", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    judge.login(username="jo", password="pw")
    before = Match.objects.count()
    answer = judge.post("/control/new-match", {
        "game": "kakomimasu", "team_a": "Nara", "team_b": "Hanoi",
        "board": "/etc/passwd", "start_in": "60"})
    assert answer.status_code == 400 and "not random nor a public or saved board" in \
        answer.content.decode()
    same = judge.post("/control/new-match", {"game": "kakomimasu", "team_a": "Nara",
                                             "team_b": "Nara", "board": "random",
                                             "start_in": "60"})
    assert same.status_code == 400 and Match.objects.count() == before
    assert Client().post("/control/new-match", {"game": "kakomimasu"}).status_code == 302


def test_a_judge_makes_a_tournament_from_the_room_as_createtournament_would(judge_client):
    from matches.models import Tournament

    answer = judge_client.post("/control/new-tournament", {
        "name": "Kansai cup", "game": "kakomimasu", "format": "round-robin",
        "teams": "name,short,affiliation\n奈良高専,NARA,Nara College\nHà Nội,HN,\nOsaka,OSK,",
        "boards": "A-1, random", "turns": "12", "strategy_seconds": "3",
        "transition_seconds": "1", "gap_seconds": "20", "start_in": "600",
        "public": "on", "rehearsal": "on"})
    page = answer.content.decode()
    assert answer.status_code == 200, page
    made = Tournament.objects.get(name="Kansai cup")
    assert [(e.name, e.short, e.affiliation) for e in made.entrants.order_by("index")] == [
        ("奈良高専", "NARA", "Nara College"), ("Hà Nội", "HN", ""), ("Osaka", "OSK", "")]
    assert made.settings["boards"] == ["A-1", "random"] and made.settings["rehearsal"] is True
    assert made.public and made.settings["turns"] == 12
    assert len(re.findall(r"<code>([A-Za-z0-9_-]{32})</code>", page)) == 3
    refused = judge_client.post("/control/new-tournament", {
        "name": "Bad", "game": "kakomimasu", "format": "round-robin", "teams": "A\nB",
        "boards": "../../etc/passwd", "strategy_seconds": "3", "transition_seconds": "1",
        "gap_seconds": "20", "start_in": "600"})
    assert refused.status_code == 400 and "not random nor a public or saved board" in \
        refused.content.decode()
    assert not Tournament.objects.filter(name="Bad").exists()


def test_the_new_tournament_form_takes_every_format_s_settings_and_is_made_once(judge_client):
    """The form lacked games per fixture, a double round robin and groups, and its answer
    reloaded (a browser sends the form again) made a second tournament."""
    from matches.models import Tournament

    room = judge_client.get("/control/").content.decode()
    once = re.search(r'name="once" value="([0-9a-f]{32}-t)"', room).group(1)
    sent = {"name": "Twice cup", "game": "kakomimasu", "format": "round-robin",
            "teams": "A\nB\nC\nD", "double": "on", "games_per_fixture": "2",
            "strategy_seconds": "3", "transition_seconds": "1", "gap_seconds": "20",
            "start_in": "600", "once": once}
    answer = judge_client.post("/control/new-tournament", sent)
    assert answer.status_code == 200, answer.content.decode()[:2000]
    made = Tournament.objects.get(name="Twice cup")
    assert made.double and made.games_per_fixture == 2
    assert 'class="token-card"' in answer.content.decode()  # a sheet of cards to print
    again = judge_client.post("/control/new-tournament", sent, follow=True)
    assert Tournament.objects.filter(name="Twice cup").count() == 1
    assert f"tournament {made.pk} was made from it then" in again.content.decode()
    groups = judge_client.post("/control/new-tournament", {
        **sent, "name": "Group cup", "format": "groups", "groups": "2", "advance": "1",
        "double": "", "once": "another-key"})
    assert groups.status_code == 200, groups.content.decode()[:2000]
    grouped = Tournament.objects.get(name="Group cup")
    assert (grouped.groups, grouped.advance) == (2, 1)


def test_a_teams_clock_offset_shows_where_its_program_says_its_time(judge_client):
    from email.utils import format_datetime

    match, tokens = make_match(turns=5, strategy=2.0, teams=("Nara", "Hanoi"))
    Match.objects.filter(pk=match.pk).update(start_at=timezone.now() - timedelta(seconds=0.5))
    ahead = int((timezone.now().timestamp() + 2.5) * 1000)  # Nara's clock runs 2.5 s ahead
    judge_client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                      content_type="application/json", HTTP_X_CLIENT_TIME=str(ahead),
                      HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    judge_client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                      content_type="application/json",
                      HTTP_DATE=format_datetime(timezone.now(), usegmt=True),
                      HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    live = section(judge_client.get("/control/?part=live").content.decode(), match.pk)
    nara, hanoi = re.findall(r'<li class="health-(\w+)">(.*?)</li>', live, re.S)
    assert nara[0] == "amber" and "its clock +2.5 s off ours" in nara[1]
    assert hanoi[0] == "green" and re.search(r"its clock [+-]0\.\d s off ours", hanoi[1])
    answer = judge_client.post(f"/api/matches/{match.pk}/actions", json.dumps({"actions": []}),
                               content_type="application/json", HTTP_X_CLIENT_TIME="soon",
                               HTTP_AUTHORIZATION=f"Bearer {tokens[1]}")
    assert answer.status_code == 202  # a time that is no time is no offset, and no refusal


def test_a_chess_clock_game_says_who_is_to_move_not_a_steps_deadline(judge_client):
    from tests.factories import make_alternating_match

    match, _ = make_alternating_match(clock=300, teams=("Nara", "Hanoi"))
    shown = section(judge_client.get("/control/").content.decode(), match.pk)
    assert "deadline in" not in shown
    assert re.search(r"Nara to move: 29\d s left on its clock", shown), shown[:600]


def test_the_room_shows_one_tournament_s_matches_when_asked(judge_client):
    from matches.tournaments.runner import tournaments_tick
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create

    tournament = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="round-robin", start_at=timezone.now(),
        teams=[EntrantSpec(n) for n in ("Alpha", "Beta", "Gamma", "Delta")],
        boards=["A-1"], turns=5)).tournament
    tournaments_tick(timezone.now())
    loose, _ = make_match(teams=("Loose", "Ends"))
    ours = set(Match.objects.filter(fixture__tournament=tournament).values_list("pk", flat=True))
    every = judge_client.get("/control/").content.decode()
    assert f'href="?tournament={tournament.pk}"' in every and f'id="match-{loose.pk}"' in every
    only = judge_client.get(f"/control/?tournament={tournament.pk}&part=live").content.decode()
    assert f'id="match-{loose.pk}"' not in only
    assert ours and all(f'id="match-{pk}"' in only for pk in ours)
    none = judge_client.get("/control/?tournament=none").content.decode()
    assert f'id="match-{loose.pk}"' in none and not any(f'id="match-{pk}"' in none for pk in ours)


def test_an_announcement_may_be_for_a_tournament_s_team_between_its_matches(judge_client):
    from matches.tournaments.services import EntrantSpec, Plan, tournament_create

    tournament_create(Plan(
        name="Spring cup", game="kakomimasu", format="round-robin",
        start_at=timezone.now() + timedelta(hours=3),  # no match of it in the room yet
        teams=[EntrantSpec(n) for n in ("Alpha", "Beta")], boards=["A-1"], turns=5))
    room = judge_client.get("/control/").content.decode()
    assert ">Alpha (Spring cup)</option>" in room and ">Beta (Spring cup)</option>" in room
