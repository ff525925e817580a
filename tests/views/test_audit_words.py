"""The audit in each game's own words: scores, actions and idle teams; labels written
once; filters by turn, team and verdict; a link to the replay at each turn; publishing
and making private; and the judges' own import page."""

import html
import json
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from matches.models import Board, Match, Submission
from matches.rules.records import parse_record
from matches.services.archive import match_import
from matches.templatetags.audit import json_breaks, minus
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"


def imported(vector, published=False):
    return match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                        published=published)


def audit(client, match, **query):
    """The page's text, entities unescaped and each run of white space one space."""
    page = client.get(f"/matches/{match.pk}/audit", query).content.decode()
    return re.sub(r"\s+", " ", html.unescape(page))


def test_turn_headers_give_scores_in_the_games_words_never_as_dicts(judge_client):
    chaser = audit(judge_client, imported("chaser/items_decide"))
    assert "{'items'" not in chaser and "{&#x27;items" not in chaser
    assert ('A Cool</span> <strong class="score-number">2</strong> <span class="muted">items'
            '</span> <span class="dash" aria-hidden="true">–</span> <span class="team-b-text">'
            'B Hot</span> <strong class="score-number">1</strong> <span class="muted">item</span>'
            ) in chaser
    ring = audit(judge_client, imported("kakomimasu/enclosure_ring"))
    assert "points (wall 5 · territory 7)" in ring and "{'wall'" not in ring
    blokus = audit(judge_client, imported("blokus-duo/full_game_draw"))
    left = '<strong class="score-number">36</strong> <span class="muted">squares left to place'
    assert left in blokus
    assert "{'remaining'" not in blokus


def test_chaser_commands_are_in_its_own_words(judge_client):
    page = audit(judge_client, imported("chaser/items_decide"))
    assert '<code class="said">sd · search down</code> → <strong>ok</strong>' in page
    assert '<code class="said">lu · look up</code> → <strong>ok</strong>' in page
    assert "agents stayed" not in page and "command sd" not in page


def test_blokus_duo_moves_passes_and_idle_turns_in_its_own_words(judge_client):
    page = audit(judge_client, imported("blokus-duo/full_game_draw"))
    assert "move ----" not in page and "agents stayed" not in page
    assert '<code class="said">---- · pass</code> → <strong>ok</strong>' in page
    assert "not its move" in page
    assert ('<code class="said">1Df1 · piece f · 4 squares · 1C 1D 1E 2E</code> → '
            "<strong>ok</strong>") in page


def test_a_team_named_by_its_letter_is_not_labelled_twice(judge_client):
    page = audit(judge_client, imported("kakomimasu/enclosure_ring"))
    assert ">A A<" not in page and "A A:" not in page and ">B B<" not in page
    assert '<span class="team-a-text">A</span>' in page
    assert "· board 6×6 ·" in page  # the board's name after the game's, not the game twice
    alpha = audit(judge_client, make_match()[0])
    assert "A Alpha" in alpha


def test_every_resolved_turn_links_to_the_replay_at_that_turn(judge_client):
    match = imported("chaser/items_decide")
    page = audit(judge_client, match)
    for turn in range(1, match.resolved_turns + 1):
        assert f'href="/matches/{match.pk}/replay?turn={turn}"' in page


@pytest.fixture
def refused_and_counted():
    """Turn 1: A accepted then replaced, B malformed then accepted; turn 2 open."""
    match, tokens = make_match(turns=3, strategy=3600)
    team = Client(REMOTE_ADDR="10.0.0.9")
    api = f"/api/matches/{match.pk}/actions"
    for token, body in [(tokens[0], {"actions": [put(0, 0, 0)]}),
                        (tokens[0], {"actions": [put(0, 1, 1)]}),
                        (tokens[1], "{oops"), (tokens[1], {"actions": [put(0, 3, 2)]})]:
        team.post(api, data=body if isinstance(body, str) else json.dumps(body),
                  content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    from matches.services.transition import turn_resolve

    turn_resolve(match_id=match.pk, number=1)
    Match.objects.filter(pk=match.pk).update(start_at=match.start_at - match.period)
    late = Client().post(api, data=json.dumps({"turn": 1, "actions": []}),
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert late.status_code == 409
    return Match.objects.get(pk=match.pk)


def shown(page):
    """The bodies shown, in page order."""
    return [part.split("</pre>")[0].replace("<wbr>", "")
            for part in page.split('<pre class="body">')[1:]]


def test_filters_by_team_verdict_and_turn(judge_client, refused_and_counted):
    match = refused_and_counted
    assert len(shown(audit(judge_client, match))) == 5
    only_b = shown(audit(judge_client, match, team="B"))
    assert only_b == ["{oops", '{"actions": [{"agent": 0, "type": "put", "x": 3, "y": 2}]}']
    assert len(shown(audit(judge_client, match, verdict="refused"))) == 2
    assert shown(audit(judge_client, match, verdict="malformed")) == ["{oops"]
    late = audit(judge_client, match, verdict="late")
    assert len(shown(late)) == 1 and "409 wrong_turn" in late
    assert len(shown(audit(judge_client, match, verdict="counted"))) == 2
    replaced = shown(audit(judge_client, match, verdict="replaced", team="A"))
    assert replaced == ['{"actions": [{"agent": 0, "type": "put", "x": 0, "y": 0}]}']
    turn_1 = audit(judge_client, match, turn="1")
    assert 'id="turn-1"' in turn_1 and 'id="turn-2"' not in turn_1
    assert 'data-step="next" href="?turn=2&team=&verdict="' in turn_1
    assert 'data-step="previous"' not in turn_1
    assert 'data-step="previous" href="?turn=1&team=B' in audit(judge_client, match, turn="2",
                                                                 team="B")
    assert "B Beta: counted actions" in audit(judge_client, match, team="B", turn="1")
    assert "A Alpha: counted actions" not in audit(judge_client, match, team="B", turn="1")
    nothing = audit(judge_client, match, turn="3")
    assert "No turn matches these filters" in nothing
    # nonsense in the address filters nothing
    assert len(shown(audit(judge_client, match, team="Z", verdict="?", turn="x"))) == 5


def test_bodies_break_only_after_json_punctuation():
    text = str(json_breaks('{"actions": [{"agent": 10, "x": 11}], "note": "<b>"}'))
    assert "1<wbr>0" not in text and "10<wbr>" not in text
    assert "&quot;agent&quot;:<wbr> 10,<wbr>" in text and "&lt;b&gt;" in text
    assert minus(-3) == "\u22123" and minus(4) == "4"


def test_publish_and_make_private_are_two_clearly_worded_actions(judge_client):
    published = imported("chaser/items_decide", published=True)
    page = audit(judge_client, published)
    assert 'data-publish="0">Make private: judges and its teams only' in page
    assert 'data-publish="1"' not in page and "Unpublish" not in page
    match, _ = make_match(turns=1, public=True)  # public while live, then over
    Match.objects.filter(pk=match.pk).update(ended_early=True)
    page = audit(judge_client, match)  # watched in public, not published: both offered
    assert 'data-publish="1">Publish: its record and data for everyone' in page
    assert 'data-publish="0">Make private' in page
    judge_client.post(f"/matches/{match.pk}/audit/publish", {"published": "1"})
    match.refresh_from_db()
    assert match.published and match.public_live
    assert 'data-publish="1"' not in audit(judge_client, match)
    judge_client.post(f"/matches/{match.pk}/audit/publish", {"published": "0"})
    match.refresh_from_db()
    assert not match.public_live and not match.published
    assert 'data-publish="1">Publish' in audit(judge_client, match)
    running, _ = make_match(turns=3, public=False)
    page = audit(judge_client, running)
    assert "data-publish" not in page  # neither public nor over: nothing to do yet


# --- the judges' import page --------------------------------------------------------

IMPORT = "/judges/import"


def test_a_judge_imports_a_record_and_lands_on_its_audit(judge_client):
    raw = (VECTORS / "chaser/items_decide.record.json").read_bytes()
    response = judge_client.post(IMPORT, {"record": SimpleUploadedFile("final.json", raw),
                                          "publish": "on"})
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/audit"
    assert match.published and match.ended_early and match.game == "chaser"
    page = audit(judge_client, match)
    assert f"Imported final.json as match {match.pk} (published)." in page
    kifu = (VECTORS / "blokus-duo/random_s7_00.kifu.txt").read_bytes()
    judge_client.post(IMPORT, {"record": SimpleUploadedFile("r.kifu.txt", kifu)})
    blokus = Match.objects.get(game="blokus-duo")
    assert not blokus.published and blokus.title == "r.kifu"


def test_a_bad_file_is_refused_with_the_records_own_error(judge_client):
    board = {"width": 4, "height": 3, "points": [[1, -2, 3, 0], [0, 5, 5, 1], [2, 2, -16]]}
    from tests.factories import record_json

    bad = json.dumps(record_json(board=board)).encode()
    response = judge_client.post(IMPORT, {"record": SimpleUploadedFile("bad.json", bad)})
    page = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert "bad.json: board.points[2]: 3 values, expected 4 (board.width)" in page
    png = judge_client.post(IMPORT, {"record": SimpleUploadedFile("x.png", b"\x89PNG\r\n")})
    assert "x.png: neither JSON nor a game record (byte 0 is not ASCII)" in png.content.decode()
    assert not Match.objects.exists() and not Board.objects.exists()
    assert not Submission.objects.exists()


def test_only_judges_reach_the_import_page(client):
    raw = (VECTORS / "kakomimasu/enclosure_ring.record.json").read_bytes()
    assert client.get(IMPORT)["Location"].startswith("/accounts/login/?next=/judges/import")
    User.objects.create_user("fan", password="pw")
    client.login(username="fan", password="pw")
    assert client.get(IMPORT).status_code == 403
    refused = client.post(IMPORT, {"record": SimpleUploadedFile("r.json", raw)})
    assert refused.status_code == 403 and not Match.objects.exists()


def test_the_import_page_is_linked_from_where_judges_work(judge_client):
    match = imported("kakomimasu/enclosure_ring", published=True)
    assert f'href="{IMPORT}"' in audit(judge_client, match)
    assert f'href="{IMPORT}"' in judge_client.get("/matches/").content.decode()
    assert f'href="{IMPORT}"' not in Client().get("/matches/").content.decode()
    form = judge_client.get(IMPORT).content.decode()
    assert 'enctype="multipart/form-data"' in form and 'name="csrfmiddlewaretoken"' in form


def test_a_long_audit_comes_in_pages_of_turns_keeping_the_filters(
        judge_client, refused_and_counted, monkeypatch):
    from matches.selectors import submission_log

    match = refused_and_counted
    monkeypatch.setattr(submission_log, "AUDIT_PAGE", 1)
    first = audit(judge_client, match, team="A")
    assert 'id="turn-2"' in first and 'id="turn-1"' not in first
    assert "turns 2 · page 1 of 2" in first and 'data-page="newer"' not in first
    assert 'data-page="older" href="?team=A&page=2"' in first
    older = audit(judge_client, match, team="A", page="2")
    assert 'id="turn-1"' in older and 'id="turn-2"' not in older
    assert 'data-page="newer" href="?team=A&page=1"' in older
    assert 'id="turn-1"' in audit(judge_client, match, team="A", page="99")  # the last page
    monkeypatch.setattr(submission_log, "AUDIT_PAGE", 25)
    assert "audit-pager" not in audit(judge_client, match)


def test_the_reasons_are_in_the_page_s_language_with_the_stored_words_beside(judge_client):
    """The audit kept a failed action's reason in English on a Japanese page."""
    match = imported("kakomimasu/bad_actions_duplicate_unknown_offboard")
    english = audit(judge_client, match, lang="en")
    stored = re.findall(r'<span title="([^"]+)">([^<]+)</span>', english)
    assert stored and all(title == shown for title, shown in stored)  # English: as stored
    japanese = audit(judge_client, match, lang="ja")
    said = re.findall(r'<span title="([^"]+)">([^<]+)</span>', japanese)
    assert [title for title, _ in said] == [title for title, _ in stored]
    assert any(shown != title for title, shown in said)  # said in Japanese
    assert all(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", shown) for _, shown in said)
