"""A contest as its people use it: the organiser's command, the teams' one token, the
judges' hand, the read API, the pages and the downloads."""

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from matches.models import Fixture, Match, Tournament
from matches.services.control import match_pause, match_resume
from matches.tournaments.runner import match_outcome, tournaments_tick
from matches.tournaments.services import (
    EntrantSpec,
    FixtureError,
    Plan,
    fixture_award,
    fixture_decide,
    fixture_rerun,
    tournament_create,
)
from tests.tournaments.conftest import run_until

pytestmark = pytest.mark.django_db


def create(*args) -> dict:
    out = io.StringIO()
    call_command("createtournament", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def refusal(*args) -> str:
    with pytest.raises(CommandError) as raised:
        call_command("createtournament", *args, stdout=io.StringIO())
    assert raised.value.returncode == 2
    return str(raised.value)


def test_createtournament_prints_one_token_a_team_and_stores_only_their_hashes(tmp_path):
    teams = tmp_path / "teams.csv"
    teams.write_text("\ufeffname,short,affiliation\n東京高専,TKY,東京工業高等専門学校\n"
                     "Đà Nẵng,DN,Đại học Bách khoa\n\nNara,NARA,\n", encoding="utf-8")
    printed = create("Spring cup", "--game", "kakomimasu", "--format", "round-robin",
                     "--teams-file", str(teams), "--boards", "A-1", "--public")
    tournament = Tournament.objects.get(pk=printed["id"])
    assert [t["name"] for t in printed["teams"]] == ["東京高専", "Đà Nẵng", "Nara"]
    entrants = list(tournament.entrants.order_by("index"))
    assert [(e.short, e.affiliation) for e in entrants] == [
        ("TKY", "東京工業高等専門学校"), ("DN", "Đại học Bách khoa"), ("NARA", "")]
    tokens = [t["token"] for t in printed["teams"]]
    assert len(set(tokens)) == 3 and not any(e.token_hash in tokens for e in entrants)
    # three teams: three rounds of one fixture, a team resting each round
    assert list(tournament.fixtures.values_list("round", flat=True)) == [1, 2, 3]


@pytest.mark.parametrize("args, words", [
    (["--format", "swiss", "--teams", "A"], "--teams: between 2"),
    (["--format", "swiss", "--teams", "A", "B", "C", "D", "--rounds", "4"],
     "--rounds: between 1 and 3"),
    (["--format", "knockout", "--teams", "A", "A"], "teams[1].name: the same as teams[0].name"),
    (["--format", "knockout", "--teams", "A", "B", "--double"], "--double"),
    (["--format", "groups", "--teams", "A", "B", "C", "--groups", "2"], "--groups"),
    (["--format", "knockout", "--teams", "A", "B", "--boards", "nowhere"], "--boards: nowhere"),
    (["--format", "knockout", "--teams", "A", "B", "--games-per-fixture", "4"],
     "--games-per-fixture"),
])
def test_createtournament_refuses_what_cannot_be_run_storing_nothing(args, words):
    assert words in refusal("Cup", "--game", "kakomimasu", *args)
    assert not Tournament.objects.exists()


def test_an_alternating_game_takes_a_clock_not_turns():
    assert "--turns" in refusal("Cup", "--game", "blokus-duo", "--format", "knockout",
                                "--teams", "A", "B", "--turns", "10")


def started(clock, **plan) -> tuple[Tournament, list[str]]:
    defaults = {"name": "Cup", "game": "kakomimasu", "format": "round-robin",
                    "teams": [EntrantSpec(n) for n in ("Alpha", "Beta", "Gamma", "Delta")],
                    "start_at": clock.now(), "boards": ["A-1"], "turns": 5}
    created = tournament_create(Plan(**{**defaults, **plan}))
    tournaments_tick(clock.now())
    return created.tournament, created.tokens


def test_one_token_plays_every_match_of_its_team_and_no_other(client, clock):
    tournament, tokens = started(clock)
    mine = Match.objects.get(fixture__round=1, teams__entrant__index=0)
    other = Match.objects.filter(fixture__round=1).exclude(pk=mine.pk).get()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens[0]}"}
    listed = client.get("/api/matches", **auth).json()
    assert [(m["id"], m["you"]) for m in listed if m["you"] is not None] == [
        (mine.pk, mine.teams.get(entrant__index=0).index)]  # private: its own only
    clock.advance(6)  # the match starts 5 s after its round opens
    body = json.dumps({"actions": []})
    sent = client.post(f"/api/matches/{mine.pk}/actions", body,
                       content_type="application/json", **auth)
    assert sent.status_code == 202, sent.json()
    refused = client.post(f"/api/matches/{other.pk}/actions", body,
                          content_type="application/json", **auth)
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    name = tournament.entrants.get(index=0).name  # whose token, and what it is for
    assert refused.json()["detail"] == (f"this is {name}'s token for tournament "
                                        f"{tournament.pk}: match {other.pk} is not one of "
                                        "its matches")
    report = client.get(f"/api/matches/{other.pk}/report", **auth)
    assert report.status_code == 403 and report.json()["detail"] == refused.json()["detail"]
    assert client.get(f"/api/matches/{mine.pk}/actions", **auth).status_code == 200
    assert client.get(f"/api/matches/{other.pk}", **auth).status_code == 404  # private
    # the Procon 31 dialect lists the team's matches with the same token
    shown = client.get("/procon31/matches", HTTP_X_API_TOKEN=tokens[0]).json()
    assert [m["matchID"] for m in shown] == [mine.pk]
    # and the tournament, private, is shown to its own teams
    assert client.get(f"/api/tournaments/{tournament.pk}", **auth).status_code == 200
    assert client.get(f"/api/tournaments/{tournament.pk}").status_code == 404


def test_results_entered_by_the_judges_give_the_hand_computed_gpcc_table(clock):
    tournament, _ = started(clock, game="blokus-duo", boards=[], turns=None)
    fixtures = {frozenset(f.teams): f for f in tournament.fixtures.all()}
    # Alpha beats everyone; Beta beats Gamma; Gamma and Delta draw; Delta beats Beta
    decided = {(0, 1): 0, (0, 2): 0, (0, 3): 0, (1, 2): 1, (2, 3): None, (1, 3): 3}
    for pair, winner in decided.items():
        fixture_decide(fixture_id=fixtures[frozenset(pair)].pk, winner=winner,
                       note="rehearsal", judge="judy")
    run_until(tournament, clock)
    data = client_free_data(tournament, clock)
    table = [(r["rank"], r["team"], r["score"], r["tiebreaks"]["solkoff"], r["tiebreaks"]["sb"])
             for r in data["standings"]]
    # scores: Alpha 3, Beta 1, Gamma 0.5, Delta 1.5
    # Solkoff: Alpha 1+0.5+1.5=3, Beta 3+0.5+1.5=5, Gamma 3+1+1.5=5.5, Delta 3+1+0.5=4.5
    # SB: Alpha 3, Beta 0.5 (Gamma), Gamma 0, Delta 1 (Beta)
    assert table == [(1, 0, 3.0, 3.0, 3.0), (2, 3, 1.5, 4.5, 1.0), (3, 1, 1.0, 5.0, 0.5),
                     (4, 2, 0.5, 5.5, 0.0)]
    assert all(f.decided_by == "judge" and "judy: rehearsal" in f.note
               for f in tournament.fixtures.all())


def client_free_data(tournament, clock):
    from matches.tournaments.table import tournament_data
    return tournament_data(tournament, clock.now())


@pytest.mark.django_db(transaction=True)  # the seated levels answer from their thread
def test_the_judges_hand_needs_a_note_and_a_rerun_voids_and_plays_again(clock):
    tournament, _ = started(clock, format="knockout", bots=True, boards=["A-1", "F-1"],
                            strategy_seconds=1, transition_seconds=0.5)
    fixture = tournament.fixtures.filter(round=1).first()
    # the other fixture's match held meanwhile: the next round, drawn from both results,
    # is not drawn before this fixture is played again
    other = Match.objects.filter(fixture__round=1).exclude(fixture=fixture).get()
    match_pause(match_id=other.pk, reason="the other table's network", judge="judy")
    with pytest.raises(FixtureError, match="note"):
        fixture_decide(fixture_id=fixture.pk, winner=fixture.team_a, note=" ", judge="judy")
    with pytest.raises(FixtureError, match="winner"):
        fixture_decide(fixture_id=fixture.pk, winner=None, note="tie", judge="judy")
    fixture_decide(fixture_id=fixture.pk, winner=fixture.team_b, note="a's program crashed",
                   judge="judy")
    (played,) = Match.objects.filter(fixture=fixture)
    run_until(tournament, clock, done=lambda: Match.objects.get(pk=played.pk).over)
    fixture_rerun(fixture_id=fixture.pk, note="the venue's network failed", judge="judy")
    fixture.refresh_from_db()
    assert fixture.winner is None and fixture.planned == 1 and not fixture.finished
    played.refresh_from_db()  # the match played is void: it counts nowhere
    assert played.result["decided_by"] == "void" and played.result["by"] == "judy"
    assert played.result["reason"] == "rerun: the venue's network failed"
    match_resume(match_id=other.pk, judge="judy")
    tournaments_tick(clock.now())
    again = Match.objects.filter(fixture=fixture).exclude(pk=played.pk).get()
    run_until(tournament, clock, done=lambda: Fixture.objects.get(pk=fixture.pk).points)
    fixture.refresh_from_db()  # settled: its points are the new match's alone
    _, points = match_outcome(Match.objects.get(pk=again.pk))
    _, voided = match_outcome(played)
    assert points[fixture.team_a]["total"] and voided[fixture.team_a]["total"]
    assert fixture.points == [points[seed] for seed in fixture.teams]


@pytest.mark.django_db(transaction=True)  # the seated levels answer from their thread
def test_groups_then_a_knockout_of_each_groups_best_two(clock):
    tournament, _ = started(clock, format="groups", groups=2, advance=2, bots=True,
                            teams=[EntrantSpec(f"T{i}") for i in range(8)], turns=4,
                            strategy_seconds=1, transition_seconds=0.5, gap_seconds=1)
    groups = dict(tournament.entrants.values_list("index", "group"))
    assert groups == {0: 0, 1: 1, 2: 1, 3: 0, 4: 0, 5: 1, 6: 1, 7: 0}  # dealt back and forth
    run_until(tournament, clock, limit=7200)
    fixtures = list(tournament.fixtures.all())
    assert all(groups[f.team_a] == groups[f.team_b] == f.group
               for f in fixtures if f.stage == Fixture.GROUP)
    knockout = sorted((f for f in fixtures if f.stage == Fixture.KNOCKOUT),
                      key=lambda f: (f.round, f.slot))
    semis = knockout[:2]
    # A1 v B2 and B1 v A2: a group's winner meets the other group's runner-up
    for semi in semis:
        assert groups[semi.team_a] != groups[semi.team_b]
    assert len(knockout) == 3 and tournament.fixtures.filter(stage=Fixture.THIRD).count() == 1


def test_pages_show_the_standings_cross_table_bracket_and_schedule(client, clock):
    tournament, _ = started(clock, format="knockout", public=True,
                            teams=[EntrantSpec("=cmd"), EntrantSpec("Beta"),
                                   EntrantSpec("東京"), EntrantSpec("Delta")])
    first = tournament.fixtures.filter(round=1).order_by("slot")
    for fixture in first:
        fixture_decide(fixture_id=fixture.pk, winner=fixture.team_a, note="n", judge="j")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    for words in ("Standings", "Bracket", "Semi-finals", "Final", "Schedule", "東京", "wins"):
        assert words in page
    assert "Cross table" not in page  # a knockout has none
    live = client.get(f"/tournaments/{tournament.pk}/?part=live").content.decode()
    assert "<html" not in live and "Standings" in live
    assert tournament.name in client.get("/tournaments/").content.decode()
    csv = client.get(f"/tournaments/{tournament.pk}/standings.csv").content.decode("utf-8-sig")
    assert csv.splitlines()[0].startswith("rank,team,short,affiliation,played,wins")
    assert "'=cmd" in csv  # a spreadsheet shows it, never runs it
    archive = zipfile.ZipFile(io.BytesIO(client.get(
        f"/tournaments/{tournament.pk}/records.zip").content))
    assert json.loads(archive.read("tournament.json"))["id"] == tournament.pk


def test_the_bracket_joins_each_pair_to_the_fixture_its_winners_meet_in(client, clock):
    # 8 teams: quarter-finals two by two, each pair beside the semi-final its winners
    # meet in (the page draws the lines between them), the rounds to come as fixtures
    # to be drawn, the third-place fixture a column of its own, joined to none.
    from matches.tournaments.table import bracket

    tournament, _ = started(clock, format="knockout", public=True,
                            teams=[EntrantSpec(f"Team {n}") for n in range(8)])
    for fixture in tournament.fixtures.filter(round=1):
        fixture_decide(fixture_id=fixture.pk, winner=fixture.team_a, note="n", judge="j")
    tournaments_tick(clock.now())
    stages = bracket(list(tournament.fixtures.all()))
    assert [(s["name"], [len(p) for p in s["pairs"]], s["fed"], s["feeds"]) for s in stages] == [
        ("Quarter-finals", [2, 2], False, True), ("Semi-finals", [2], True, True),
        ("Final", [1], True, False)]
    quarters, semis = stages[0]["pairs"], stages[1]["pairs"][0]
    for pair, semi in zip(quarters, semis, strict=True):
        assert {f.winner for f in pair} == set(semi.teams)  # the pair's winners meet there
    assert stages[2]["pairs"] == [[None]]  # to be drawn
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    box = page[page.index('id="bracket"'):page.index('id="schedule"')]
    assert box.count('class="bracket-pair"') == 4 and box.count('class="bracket-slot"') == 7
    assert box.count("data-feeds") == 2 and box.count("data-fed") == 2
    for fixture in tournament.fixtures.filter(round=2):
        fixture_decide(fixture_id=fixture.pk, winner=fixture.team_a, note="n", judge="j")
    tournaments_tick(clock.now())
    stages = bracket(list(tournament.fixtures.all()))
    assert [s["name"] for s in stages] == ["Quarter-finals", "Semi-finals", "Final",
                                           "Third place"]
    assert stages[3]["third"] and not stages[3]["fed"] and not stages[3]["feeds"]
    assert stages[3]["pairs"][0][0].stage == Fixture.THIRD


def test_a_round_robins_cross_table_marks_wins_losses_and_draws(client, clock):
    tournament, _ = started(clock, public=True, teams=[EntrantSpec(n) for n in "ABC"])
    fixtures = {frozenset(f.teams): f for f in tournament.fixtures.all()}
    fixture_decide(fixture_id=fixtures[frozenset((0, 1))].pk, winner=0, note="n", judge="j")
    fixture_decide(fixture_id=fixtures[frozenset((1, 2))].pk, winner=None, note="n", judge="j")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    cross = page[page.index('id="cross"'):page.index('id="schedule"')]
    rows = list(cross.split("<tr>")[2:])
    assert [[cell.split("</td>")[0] for cell in row.split("<td")[1:]] for row in rows] == [
        [' class="self">—', '>○', '>'],
        ['>×', ' class="self">—', '>△'],
        ['>', '>△', ' class="self">—']]


def test_a_private_tournament_is_the_judges_alone(judge_client, clock):
    from django.test import Client

    tournament, _ = started(clock)
    client = Client()
    assert client.get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert tournament.name not in client.get("/tournaments/").content.decode()
    assert judge_client.get(f"/tournaments/{tournament.pk}/").status_code == 200


def test_a_judge_decides_through_the_page(judge_client, clock):
    tournament, _ = started(clock, format="knockout")
    fixture = tournament.fixtures.filter(round=1).first()
    refused = judge_client.post(f"/tournaments/{tournament.pk}/fixtures/{fixture.pk}",
                                {"winner": str(fixture.team_a), "note": ""})
    assert refused.status_code == 400 and "note" in refused.content.decode()
    done = judge_client.post(f"/tournaments/{tournament.pk}/fixtures/{fixture.pk}",
                             {"winner": str(fixture.team_b), "note": "crashed"})
    assert done.status_code == 302
    fixture.refresh_from_db()
    assert fixture.winner == fixture.team_b and fixture.decided_by == "judge"


def test_the_api_lists_public_tournaments_in_its_documented_shape(client, clock):
    tournament, _ = started(clock, public=True)
    (listed,) = client.get("/api/tournaments").json()
    assert listed["id"] == tournament.pk and "rounds" not in listed
    data = client.get(f"/api/tournaments/{tournament.pk}").json()
    assert set(data) >= {"id", "name", "game", "format", "status", "teams", "rounds",
                         "standings"}
    assert data["status"] == "running"
    assert data["rounds"][0]["fixtures"][0]["matches"]  # its matches are made
    assert client.get("/api/tournaments/99999999999999999999").status_code == 404
    assert client.get("/api/tournaments/12345").status_code == 404




def test_the_tv_follows_a_tournaments_current_round(client, clock):
    from tests.factories import make_match

    tournament, _ = started(clock, public=True)  # its matches start in 5 s (to a whole second)
    other, _ = make_match(start_in=6.5, public=True)  # of no tournament, starting later
    clock.advance(7)
    ours = set(Match.objects.filter(fixture__tournament=tournament).values_list("pk", flat=True))
    assert client.get("/tv/now").json()["featured"]["id"] == other.pk  # the latest started
    shown = client.get(f"/tv/now?tournament={tournament.pk}").json()["featured"]
    assert shown["id"] in ours and shown["id"] != other.pk
    assert shown["tournament"] == {"name": "Cup", "round": 1}  # what the TV tells the hall
    assert client.get("/tv/now?tournament=999999").json()["featured"] is None


def test_a_long_schedule_shows_a_round_at_a_time_and_links_the_others(client, clock):
    tournament, _ = started(clock, public=True, teams=[EntrantSpec(f"T{n}") for n in range(20)])
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Rounds:" in page and page.count('href="?round=') == 19
    assert '<h3 class="current">Round 1' in page and "Round 2</h3>" not in page
    fifth = client.get(f"/tournaments/{tournament.pk}/?round=5").content.decode()
    assert "Round 5</h3>" in fifth and "Round 1 <span" not in fifth


def test_an_award_voids_the_fixtures_match_under_way_and_stands(client, clock):
    from tests.commands.calls import refusal, run

    tournament, _ = started(clock, public=True)
    fixture = tournament.fixtures.filter(round=1).order_by("slot").first()
    clock.advance(6)
    (running,) = Match.objects.filter(fixture=fixture)
    assert not running.over
    loser, winner = (tournament.entrants.get(index=seed) for seed in fixture.teams)
    said = run("awardfixture", str(fixture.pk), winner.name, "--reason",
               f"{loser.name}'s program never connected", "--judge", "judy")
    assert said == (f"fixture {fixture.pk} awarded to {winner.name}: {loser.name}'s "
                    "program never connected\n")
    fixture.refresh_from_db()
    running.refresh_from_db()
    assert (fixture.winner, fixture.decided_by) == (winner.index, "award") and fixture.finished
    assert running.over and running.result["decided_by"] == "void"
    assert "awarded by the judges" in client.get(f"/tournaments/{tournament.pk}/").content.decode()
    other = tournament.fixtures.filter(round=1).exclude(pk=fixture.pk).get()
    assert "is not a team of fixture" in refusal("awardfixture", str(other.pk), winner.name,
                                                 "--reason", "x")
    assert refusal("awardfixture", str(fixture.pk), "0", "--reason", " ") == \
        "an award needs a note saying why"
    assert refusal("awardfixture", "999999", "0", "--reason", "x") == "there is no fixture 999999"


def test_a_judge_awards_a_fixture_named_by_the_api_from_the_tournament_page(
        judge_client, clock):
    """`awardfixture` took an id found only in the page's HTML: the API gives each
    fixture its id, the judges' form on the page shows it and awards with it."""
    tournament, _ = started(clock, public=True)
    clock.advance(6)
    data = judge_client.get(f"/api/tournaments/{tournament.pk}").json()
    listed = data["rounds"][0]["fixtures"][0]
    fixture = tournament.fixtures.get(pk=listed["id"])
    assert listed["teams"] == list(fixture.teams)
    page = judge_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'<span class="muted">#{fixture.pk}</span>' in page and 'name="award"' in page
    address = f"/tournaments/{tournament.pk}/fixtures/{fixture.pk}"
    refused = judge_client.post(address, {"winner": "draw", "note": "x", "award": "1"})
    assert refused.status_code == 400 and "not a draw" in refused.content.decode()
    (running,) = Match.objects.filter(fixture=fixture)
    done = judge_client.post(address, {"winner": str(fixture.team_b), "award": "1",
                                       "note": "its program never connected"})
    assert done.status_code == 302
    fixture.refresh_from_db()
    running.refresh_from_db()
    assert (fixture.winner, fixture.decided_by) == (fixture.team_b, "award")
    assert running.result["decided_by"] == "void"


def test_a_judge_publishes_a_whole_tournaments_finished_matches_at_once(judge_client, clock):
    tournament, _ = started(clock)  # private: nothing published as it ends
    first = tournament.fixtures.filter(round=1).order_by("slot").first()
    (played,) = Match.objects.filter(fixture=first)
    run_until(tournament, clock, done=lambda: Match.objects.get(pk=played.pk).over)
    finished = Match.objects.finished().filter(fixture__tournament=tournament)
    assert finished.count() >= 1 and not finished.filter(published=True).exists()
    page = judge_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"Publish its {finished.count()} finished match" in page
    answer = judge_client.post(f"/tournaments/{tournament.pk}/publish", follow=True)
    assert f"Published {finished.count()} match" in answer.content.decode()
    assert all(match.published for match in finished)
    again = judge_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "finished match" not in again  # nothing left to publish: no button


def test_only_a_judge_publishes_a_tournament(client, clock):
    tournament, _ = started(clock, public=True)
    assert client.post(f"/tournaments/{tournament.pk}/publish").status_code == 403
    assert not Match.objects.filter(fixture__tournament=tournament, published=True).exists()


def test_a_public_tournaments_matches_the_judges_ended_are_published_too(clock):
    """A --public tournament publishes its games as each ends; those voided by an award
    waited for a judge's "Publish its 2 finished matches"."""
    from tests.commands.calls import run

    tournament, _ = started(clock, public=True)
    fixture = tournament.fixtures.filter(round=1).order_by("slot").first()
    clock.advance(6)
    run("awardfixture", str(fixture.pk), "0", "--reason", "never connected")
    voided = Match.objects.filter(fixture=fixture)
    assert voided and all(match.published for match in voided)


def test_the_schedule_marks_a_voided_match(client, clock):
    """The public schedule showed a voided match as "replay 61", like any other."""
    from tests.commands.calls import run

    tournament, _ = started(clock, public=True)
    fixture = tournament.fixtures.filter(round=1).order_by("slot").first()
    clock.advance(6)
    (voided,) = Match.objects.filter(fixture=fixture)
    run("awardfixture", str(fixture.pk), "0", "--reason", "never connected")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    row = page[page.index(f'id="fixture-{fixture.pk}"'):]
    row = row[:row.index("</tr>")]
    assert f"{voided.pk}</a> <span class=\"void-mark\">void</span>" in row
    other = tournament.fixtures.filter(round=1).exclude(pk=fixture.pk).get()
    later = page[page.index(f'id="fixture-{other.pk}"'):]
    assert "void-mark" not in later[:later.index("</tr>")]


def test_the_tv_following_a_finished_tournament_shows_its_champion_and_standings(client, clock):
    """`/tv/?tournament=ID` after the end said only "No match on"."""
    tournament, _ = started(clock, public=True, game="blokus-duo", boards=[], turns=None)
    assert client.get(f"/tv/now?tournament={tournament.pk}").json()["tournament_end"] is None
    for fixture in tournament.fixtures.all():  # the lower seed is given every fixture
        fixture_award(fixture_id=fixture.pk, winner=min(fixture.teams), note="rehearsal",
                      judge="judy")
    run_until(tournament, clock)
    tournament.refresh_from_db()
    answer = client.get(f"/tv/now?tournament={tournament.pk}").json()
    assert answer["featured"] is None
    ended = answer["tournament_end"]
    data = client.get(f"/api/tournaments/{tournament.pk}").json()
    names = {team["index"]: team["name"] for team in data["teams"]}
    first = data["standings"][0]
    assert ended["name"] == "Cup" and ended["champion"] == names[first["team"]]
    assert [row["name"] for row in ended["standings"]] == \
        [names[row["team"]] for row in data["standings"]]
    assert client.get("/tv/now?tournament=999999").json()["tournament_end"] is None


def test_the_tournament_list_is_paged_and_its_times_are_the_reader_s(client, clock):
    """The list grew without end and wrote its times in UTC."""
    from matches.views.tournaments import LISTED_A_PAGE

    for number in range(LISTED_A_PAGE + 3):
        Tournament.objects.create(name=f"Cup {number:02d}", game="kakomimasu",
                                  format="swiss", public=True,
                                  start_at=clock.now() + timedelta(days=number))
    first = client.get("/tournaments/").content.decode()
    assert first.count('<td><a href="/tournaments/') == LISTED_A_PAGE
    assert f"Cup {LISTED_A_PAGE + 2:02d}" in first and "Cup 00" not in first  # newest first
    assert 'href="?page=2" rel="next"' in first and "page 1 of 2" in first
    second = client.get("/tournaments/?page=2").content.decode()
    assert second.count('<td><a href="/tournaments/') == 3 and "Cup 00" in second
    assert client.get("/tournaments/?page=99").status_code == 200  # the last page
    assert re.search(r'<time data-local datetime="\d{4}-\d\d-\d\dT[^"]+">[^<]+ UTC</time>', first)
    assert "matches/local-times.js" in first


def test_a_wall_follows_a_tournament_s_round(client, clock):
    """A wall could not follow a tournament: each round's match ids had to be typed."""
    tournament, _ = started(clock, public=True)  # a round robin of four: 2 matches a round
    first = set(Match.objects.filter(fixture__tournament=tournament, fixture__round=1)
                .values_list("pk", flat=True))
    page = client.get(f"/screens/?tournament={tournament.pk}").content.decode()
    assert sorted(int(pk) for pk in re.findall(r'data-match="(\d+)"', page)) == sorted(first)
    asked = client.get(f"/screens/?tournament={tournament.pk}&ids=1").json()["ids"]
    assert set(asked) == first
    for fixture in tournament.fixtures.filter(round=1):  # round 1 is over
        fixture_award(fixture_id=fixture.pk, winner=min(fixture.teams), note="x", judge="j")
    run_until(tournament, clock, done=lambda: Match.objects.filter(
        fixture__tournament=tournament, fixture__round=2).exists())
    following = set(client.get(f"/screens/?tournament={tournament.pk}&ids=1").json()["ids"])
    assert following and not following & first
    assert {m.fixture.round for m in Match.objects.filter(pk__in=following)} == {2}
    assert client.get("/screens/?tournament=x").status_code == 400


def test_a_knockout_s_standings_rank_by_the_round_reached_and_show_no_points(client, clock):
    """A knockout listed 2nd with 1 point above 3rd with 2, under Swiss tie-break
    columns: its table ranks by the round each team reached, and shows no score."""
    tournament, _ = started(clock, public=True, format="knockout")
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    standings = page[page.index('id="standings"'):page.index("</section>", page.index(
        'id="standings"'))]
    assert '<td class="number score">' not in standings and ">score<" not in standings
    swiss, _ = started(clock, public=True, format="swiss", name="Swiss cup")
    other = client.get(f"/tournaments/{swiss.pk}/").content.decode()
    assert '<td class="number score">' in other
