"""A CHaser tournament over TCP: `chaserserver --tournament`'s loop takes each fixture as
its round opens and the built-in programs connect to it as contest programs do; the
clock's runner settles the fixtures and the table is CHaser's (match wins, game wins,
items)."""

import asyncio
import threading
import time

import pytest
from django.utils import timezone

from matches.models import Match, Team
from matches.protocol_servers.chaser import tournament as tournament_server
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from matches.tournaments.table import tournament_data


@pytest.mark.django_db(transaction=True)
def test_a_chaser_round_robin_is_played_over_tcp_by_the_built_in_programs():
    created = tournament_create(Plan(
        name="U-16 rehearsal", game="chaser", format="round-robin", bots=True, public=True,
        teams=[EntrantSpec(name) for name in ("Kushiro", "Asahikawa", "Obihiro")],
        start_at=timezone.now(), turns=40, gap_seconds=0, boards=["akisato_m01"]))
    tournament = created.tournament
    stop, said = threading.Event(), []
    server = threading.Thread(target=lambda: asyncio.run(tournament_server(
        tournament.pk, stop, said.append, ports=(0, 0), host="127.0.0.1")), daemon=True)
    server.start()
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and tournament.finished_at is None:
            tournaments_tick(timezone.now())
            tournament.refresh_from_db()
            time.sleep(0.2)
    finally:
        stop.set()
        server.join(15)
    assert tournament.finished_at is not None, said
    assert not server.is_alive()  # the server's loop ends with the tournament
    data = tournament_data(tournament, timezone.now())
    fixtures = [f for r in data["rounds"] for f in r["fixtures"]]
    assert len(fixtures) == 3 and all(f["finished"] for f in fixtures)
    for fixture in fixtures:
        (first,) = fixture["matches"]
        games = [Match.objects.get(pk=first), *Match.objects.get(pk=first).later_games.all()]
        assert 2 <= len(games) <= 3 and all(g.fixture_id for g in games)
        # Cool is the fixture's first team in odd games, its second in even ones
        for number, game in enumerate(sorted(games, key=lambda g: g.pk), start=1):
            cool = Team.objects.get(match=game, index=0).entrant.index
            assert cool == fixture["teams"][(number - 1) % 2]
        won = fixture["points"][0]["games"], fixture["points"][1]["games"]
        if fixture["winner"] is not None:
            assert won[fixture["teams"].index(fixture["winner"])] == max(won) > min(won)
    rows = data["standings"]
    keys = [(r["wins"], r["tiebreaks"]["games"], r["tiebreaks"]["items"]) for r in rows]
    assert keys == sorted(keys, reverse=True)
    for row in rows:  # the tie-breaks are the fixtures' sums
        mine = [f["points"][f["teams"].index(row["team"])] for f in fixtures
                if row["team"] in f["teams"]]
        assert row["tiebreaks"] == {"games": sum(p["games"] for p in mine),
                                    "items": sum(p["items"] for p in mine)}
