"""The practice ladder (matches/services/ladder.py, matches/selectors/ladder.py): OpenSkill
ratings moved as practice games end and kept, the levels fixed between them; read a page
at a time by GET /api/practice/ladder and /practice/."""

import re
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from openskill.models import PlackettLuce

from matches.models import LadderGame, LadderStanding, Match
from matches.selectors.ladder import LEVEL_MU, LEVEL_SIGMA
from matches.services.ladder import ladder_record
from matches.services.practice import Ask, practice_start, practice_sweep
from matches.services.transition import match_ended, turn_resolve
from tests.commands.calls import run

pytestmark = pytest.mark.django_db


def played(name, opponent, winner, game="kakomimasu", by=None, finish=True, told=True):
    """A practice match of `name` against `opponent`, ended with `winner` (0 is `name`),
    its end told as the end's commit tells it (`told`: not for a server that ended it
    before the ladder was kept)."""
    started = practice_start(Ask(game=game, opponent=opponent, name=name),
                             by or f"address:{name}", None, timezone.now() - timedelta(hours=1))
    if finish:
        Match.objects.filter(pk=started.match.pk).update(
            resolved_turns=started.match.turns, ended_at=timezone.now(),
            result={"winner": winner, "decided_by": "total" if winner is not None else "draw"})
        if told:
            match_ended.send(played, match=started.match)
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
    assert [before[f"Level {n}"]["rating"] for n in (1, 2, 3, 4)] == [10.0, 20.0, 27.0, 33.0]
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
    assert [table[f"Level {n}"]["rating"] for n in (1, 2, 3, 4)] == [10.0, 20.0, 27.0, 33.0]
    nara, sendai = table["Nara"], table["Sendai"]
    assert (nara["wins"], nara["draws"], nara["losses"], nara["games"]) == (6, 1, 0, 7)
    # a rating is its estimate μ: a team that beat level 4 ranks above it (it ranked
    # below level 2 while the ladder showed μ − 3σ); two losses to level 1 put a newcomer
    # well below its first 25, marked as not sure yet
    assert names.index("Nara") < names.index("Level 4") and not nara["provisional"]
    assert (sendai["wins"], sendai["losses"]) == (0, 2) and sendai["rating"] < 20
    assert sendai["provisional"] and names.index("Sendai") > names.index("Level 2")
    # the levels show their own results
    assert (table["Level 4"]["losses"], table["Level 3"]["draws"]) == (6, 1)
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
    match_ended.send(played, match=opened)
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


def test_a_practice_game_is_rated_as_it_ends_and_reading_the_ladder_reads_no_match(
        client, open_practice, django_capture_on_commit_callbacks):
    started = practice_start(Ask(game="kakomimasu", opponent="level-1", name="Nara", turns=1),
                             "address:nara", None, timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):  # its one turn: the game ends
        turn_resolve(match_id=started.match.pk, number=1)
    ended = Match.objects.get(pk=started.match.pk)
    assert ended.result is not None
    kept = LadderStanding.objects.get(game="kakomimasu", name="Nara")
    assert (kept.games, kept.recent) == (1, [ended.pk])

    def read() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/practice/ladder?game=kakomimasu").status_code == 200
        assert not [q for q in queries.captured_queries if "matches_match" in q["sql"]]
        return len(queries)

    few = read()
    for _ in range(6):
        played("Sendai", "level-2", 0)
    assert read() == few  # however many games were played


def test_the_ladder_is_read_a_page_at_a_time(client, open_practice):
    for n in range(7):
        played(f"Team {n}", "level-1", 0 if n % 2 else None)
    url = "/api/practice/ladder?game=kakomimasu"
    whole = client.get(url).json()  # 50 rows unless asked otherwise
    assert len(whole) == 11 and client.get(url).get("Link") is None
    pages = [client.get(f"{url}&limit=5&page={page}") for page in (1, 2, 3)]
    assert [row for page in pages for row in page.json()] == whole
    assert pages[0]["Link"] == '</api/practice/ladder?game=kakomimasu&page=2&limit=5>; rel="next"'
    assert 'page=3&limit=5>; rel="next"' in pages[1]["Link"]
    assert 'page=1&limit=5>; rel="prev"' in pages[1]["Link"]
    assert pages[2]["Link"] == '</api/practice/ladder?game=kakomimasu&page=2&limit=5>; rel="prev"'
    assert client.get(f"{url}&page=4&limit=5").json() == []
    for wrong in ("page=0", "limit=0", "limit=101", "page=x"):
        assert client.get(f"{url}&{wrong}").status_code == 422


def test_an_end_told_twice_rates_the_game_once(client, open_practice):
    match = played("Nara", "level-3", 0)
    once = ladder(client)
    match_ended.send(played, match=match)
    ladder_record(match)
    assert ladder(client) == once and once["Level 3"]["games"] == 1
    assert LadderGame.objects.filter(match=match).count() == 1


def from_scratch(game):
    """The ladder as every read computed it before it was kept: every finished practice
    game of `game` rated again in id order, on ratings that start afresh."""
    model = PlackettLuce()
    table = {("level", n): {"name": f"Level {n}", "level": n,
                            "r": model.rating(mu=mu, sigma=LEVEL_SIGMA)}
             for n, mu in LEVEL_MU.items()}
    for match in Match.objects.filter(game=game, result__isnull=False).exclude(
            practice_by="").order_by("pk"):
        seats = [(team.seat, team.name) for team in match.teams.order_by("index")]
        keys = [("level", int(seat[6:])) if seat.startswith("level-") else None if seat
                else ("team", name) for seat, name in seats]
        winner = match.result["winner"]
        if None in keys or match.result["decided_by"] == "void":
            continue
        sides = [table.setdefault(key, {"name": key[1], "level": None, "r": model.rating()})
                 for key in keys]
        ranks = [0, 0] if winner is None else [int(winner != 0), int(winner != 1)]
        moved = model.rate([[side["r"]] for side in sides], ranks=ranks)
        for index, side in enumerate(sides):
            side["r"] = side["r"] if side["level"] else moved[index][0]
            said = "draws" if winner is None else "wins" if winner == index else "losses"
            side[said] = side.get(said, 0) + 1
            side["recent"] = [match.pk, *side.get("recent", [])]
    return [{"name": side["name"], "level": side["level"], "rating": round(side["r"].mu, 1),
             "provisional": side["level"] is None and side["r"].sigma > 6.5,
             "mu": round(side["r"].mu, 2), "sigma": round(side["r"].sigma, 2),
             "games": sum(side.get(said, 0) for said in ("wins", "draws", "losses")),
             "wins": side.get("wins", 0), "draws": side.get("draws", 0),
             "losses": side.get("losses", 0), "recent": side.get("recent", [])[:5]}
            for side in sorted(table.values(), key=lambda side: -side["r"].mu)]


def test_a_rebuild_rates_the_kept_games_as_rating_them_all_from_scratch_did(client,
                                                                          open_practice):
    # a server upgraded from the version that rated every game on each read: its games
    # ended before the ladder was kept
    ended = [played("Nara", "level-4", 0, told=False), played("Nara", "level-3", None, told=False),
             played("Sendai", "level-1", 1, told=False), played("Nara", "level-2", 1, told=False),
             played("Idle", "none", 0, told=False), played("Hue", "level-1", 0, told=False)]
    played("Unfinished", "level-1", None, finish=False)
    url = "/api/practice/ladder?game=kakomimasu&limit=100"
    assert [row["name"] for row in client.get(url).json() if row["level"] is None] == []
    said = run("rebuildladder", "--game", "kakomimasu")
    assert said == "kakomimasu: 5 games rated, 3 teams on the ladder\n"
    assert client.get(url).json() == from_scratch("kakomimasu")
    # the same games told one by one as they ended make the same ladder
    LadderStanding.objects.all().delete()
    LadderGame.objects.all().delete()
    for match in ended:
        match_ended.send(played, match=match)
    assert client.get(url).json() == from_scratch("kakomimasu")
    run("rebuildladder")  # every game (the others have none)
    assert client.get(url).json() == from_scratch("kakomimasu")


def test_a_guests_standing_goes_with_its_games_and_they_leave_the_latest_lists(
        client, open_practice, settings):
    guest = played("Visitor", "level-2", 0)  # a guest's match: taken down after some hours
    nara = practice_start(Ask(game="kakomimasu", opponent="level-2"), "team:nara", "Nara",
                          timezone.now() - timedelta(hours=1)).match  # a team's: kept
    Match.objects.filter(pk=nara.pk).update(resolved_turns=nara.turns, ended_at=timezone.now(),
                                             result={"winner": 1, "decided_by": "total"})
    match_ended.send(played, match=nara)
    assert ladder(client)["Level 2"]["recent"] == [nara.pk, guest.pk]
    later = timezone.now() + timedelta(hours=settings.PRACTICE_GUEST_HOURS + 1)
    assert practice_sweep(later) == 1
    table = ladder(client)
    assert "Visitor" not in table and table["Nara"]["losses"] == 1
    assert table["Level 2"]["recent"] == [nara.pk] and table["Level 2"]["games"] == 2


@pytest.mark.django_db(transaction=True)
def test_games_ending_at_once_in_several_processes_each_count_once(client, open_practice):
    ended = [played("Nara", "level-1", 0, told=False) for _ in range(6)]
    start = threading.Barrier(12)

    def tell(match):  # a clock of its own (a connection of its own), told with the others
        try:
            start.wait()
            match_ended.send(played, match=match)
        finally:
            connection.close()

    threads = [threading.Thread(target=tell, args=(match,)) for match in ended * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert LadderGame.objects.count() == 6
    rows = client.get("/api/practice/ladder?game=kakomimasu").json()
    # (in the order they were rated, which is any: the latest games are any five of them)
    assert [row | {"recent": None} for row in rows] == \
        [row | {"recent": None} for row in from_scratch("kakomimasu")]
    nara = next(row for row in rows if row["name"] == "Nara")
    assert len(set(nara["recent"]) & {match.pk for match in ended}) == 5


def test_the_practice_page_shows_each_levels_own_results(client, open_practice):
    """A level's won–drawn–lost as a team's ("—" said nothing of how a level fares)."""
    played("Nara", "level-4", 0)
    played("Nara", "level-4", None)
    page = client.get("/practice/?lang=en").content.decode()
    table = next(part for part in page.split('class="practice-ladder"')[1].split("<table")
                 if "Nara" in part)  # the game's own table
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    cells = {re.sub(r"<[^>]+>", "", row.split("</td>")[1]).strip():
             re.sub(r"<[^>]+>", "", row.split("</td>")[3]).strip()
             for row in rows if "</td>" in row}
    assert cells["Level 4"] == "0 – 1 – 1" and cells["Nara"] == "1 – 1 – 0"
