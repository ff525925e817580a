"""/matches/: published matches with filters; their downloads."""

import csv
import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from matches.models import Match
from matches.rules.records import parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def imported(vector, published=True, days_ago=0):
    """An imported record, started at noon `days_ago` days ago (an import starts a match
    so that it ends now: a long one started yesterday just after midnight)."""
    match = match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                         published=published)
    noon = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    Match.objects.filter(pk=match.pk).update(start_at=noon - timedelta(days=days_ago))
    return Match.objects.get(pk=match.pk)


def listed(client, **filters):
    page = client.get("/matches/", filters).content.decode()
    return {m.pk for m in Match.objects.all() if f'href="/matches/{m.pk}/replay"' in page}


def test_only_published_matches_are_listed_and_filters_narrow_them(client):
    ring = imported("kakomimasu/enclosure_ring", days_ago=3)
    chaser = imported("chaser/items_decide")
    blokus = imported("blokus-duo/full_game_draw")
    hidden = imported("kakomimasu/tiebreak_wall", published=False)
    assert listed(client) == {ring.pk, chaser.pk, blokus.pk}
    assert listed(client, game="chaser") == {chaser.pk}
    team = chaser.teams.get(index=1).name
    assert chaser.pk in listed(client, team=team.upper()[:3]) and hidden.pk not in listed(client)
    assert listed(client, board=ring.board.name[-6:]) == {ring.pk}
    today = chaser.start_at.date()
    assert listed(client, since=today.isoformat()) == {chaser.pk, blokus.pk}
    assert listed(client, until=(today - timedelta(days=1)).isoformat()) == {ring.pk}
    assert listed(client, since="not-a-date") == {ring.pk, chaser.pk, blokus.pk}


def test_the_list_shows_results_and_download_links(client):
    match = imported("chaser/capture_by_put")
    page = client.get("/matches/").content.decode()
    assert "Cool wins: Hot is captured (a block was put on it)</span>" in page
    for link in (f"/api/matches/{match.pk}/record", f"/api/matches/{match.pk}/timeline",
                 f"/matches/{match.pk}/scores.csv"):
        assert link in page and client.get(link).status_code == 200


def test_scores_per_turn_as_csv(client):
    match = imported("kakomimasu/enclosure_ring")
    response = client.get(f"/matches/{match.pk}/scores.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["turn", "A_wall", "A_territory", "A_total", "B_wall", "B_territory",
                       "B_total"]
    assert [int(r[0]) for r in rows[1:]] == list(range(match.resolved_turns + 1))
    last = match.turn_rows.get(number=match.resolved_turns).scores
    assert [int(v) for v in rows[-1][1:]] == [last[t][k] for t in (0, 1)
                                              for k in ("wall", "territory", "total")]


def test_scores_of_an_unpublished_match_are_a_404(client):
    match = imported("kakomimasu/enclosure_ring", published=False)
    assert client.get(f"/matches/{match.pk}/scores.csv").status_code == 404


@pytest.mark.parametrize("kind", ["timeline", "record"])
def test_a_download_is_built_once_and_a_client_that_has_it_gets_a_304(client, kind):
    """A published match never changes: its record and timeline are built once and kept,
    and carry an ETag; a client sending it back gets 304 with no body."""
    from matches.selectors.texts import WHOLE_TEXTS

    match = imported("chaser/capture_by_put")
    url = f"/api/matches/{match.pk}/{kind}"
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"].startswith('"')
    built = WHOLE_TEXTS.built
    again = client.get(url)
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert WHOLE_TEXTS.built == built  # served from what was kept
    cached = client.get(url, HTTP_IF_NONE_MATCH=f'W/{first["ETag"]}, "other"')
    assert cached.status_code == 304 and cached.content == b""
    assert cached["ETag"] == first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_a_long_match_s_api_state_reads_its_turns_actions_without_their_boards(client):
    """`actions` of GET /api/matches/{id} needs each turn's outcomes only: its turns are
    read without their cells and agents (a 64 × 64 board's 1,000 turns would otherwise all
    be in memory at once, some 40 MB for 4 MB of answer); only the latest is read whole."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.caches import caches_reset

    match = imported("kakomimasu/enclosure_ring")
    caches_reset()
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(f"/api/matches/{match.pk}")
    assert answer.status_code == 200
    assert len(answer.json()["actions"]) == match.resolved_turns
    turns = [q["sql"] for q in queries if 'FROM "matches_turn"' in q["sql"]]
    assert any('"number" >=' in sql for sql in turns)  # the actions' one read of them all
    whole = [sql for sql in turns if '"matches_turn"."cells"' in sql]
    assert whole and all('"number" >=' not in sql for sql in whole)


def test_a_finished_match_s_whole_reads_are_kept_without_a_second_copy_of_its_turns(client):
    """Once a match is over, its whole texts never change: they are kept, its turns' own
    texts are not (a 1,000-turn match's would double what its reads keep)."""
    from matches.caches import caches_reset
    from matches.selectors.texts import TURN_TEXTS, WHOLE_TEXTS
    from matches.services.transition import turn_resolve
    from tests.factories import make_match

    finished = imported("kakomimasu/enclosure_ring")
    live, _ = make_match(start_in=-5, strategy=1.0, transition=0.5, turns=30)
    assert turn_resolve(match_id=live.pk, number=1) is not None
    caches_reset()
    for match in (finished, live):
        assert client.get(f"/api/matches/{match.pk}").status_code == 200
    kept = {key[0][0] for key in TURN_TEXTS._values}
    assert kept == {live.pk}
    assert any(key[1] == finished.pk for key in WHOLE_TEXTS._values)
