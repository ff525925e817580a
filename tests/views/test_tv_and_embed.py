"""The TV's question (/tv/now) and the embedded board (/matches/<id>/embed)."""

import json
from pathlib import Path

import pytest
import qrcode
import qrcode.image.svg
from django.contrib.auth.models import Permission, User

from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.django_db
CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def imported(name="kakomimasu/random_s7_00", published=True):
    record = parse_record((CONFORMANCE / f"{name}.record.json").read_bytes())
    return match_import(record, published=published)


def test_the_embed_may_be_framed_and_no_other_page_may(client):
    match = imported()
    embed = client.get(f"/matches/{match.pk}/embed")
    assert embed.status_code == 200 and "X-Frame-Options" not in embed
    for path in (f"/matches/{match.pk}/", f"/matches/{match.pk}/replay", "/", "/tv/",
                 f"/screens/?matches={match.pk}"):
        assert client.get(path)["X-Frame-Options"] == "DENY", path


def test_the_embed_follows_the_venue_screens_visibility(client):
    private = imported(published=False)
    assert client.get(f"/matches/{private.pk}/embed").status_code == 404
    judge = User.objects.create_user("ada", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="ada", password="pw")
    assert client.get(f"/matches/{private.pk}/embed").status_code == 200


def test_the_embed_at_a_turn_carries_that_turns_state(client):
    match = imported()
    page = client.get(f"/matches/{match.pk}/embed?turn=3")
    assert page.status_code == 200
    text = page.content.decode()
    data = json.loads(text.split('id="fixed-turn" type="application/json">')[1]
                      .split("</script>")[0])
    assert data["state"]["turn"] == 3
    # the turn's marks on the board, as the rules say from the state before it
    from matches.rules import rules_for
    from matches.selectors import drawing_states
    before = drawing_states(match, 2)[-1]
    assert data["last"] == rules_for(match.game).last_turn(data["state"], before)
    assert data["match"]["teams"][0]["name"] == match.teams.get(index=0).name
    assert 'id="fixed-turn"' not in client.get(f"/matches/{match.pk}/embed").content.decode()
    for wrong in ("-1", "x", str(match.turns + 1), "9" * 9):
        answer = client.get(f"/matches/{match.pk}/embed?turn={wrong}")
        assert answer.status_code == 400 and b"whole number from 0 to" in answer.content


def test_the_tv_features_the_live_public_match_then_the_next(client):
    assert client.get("/tv/now").json()["featured"] is None  # nothing on
    make_match(start_in=-30, public=False)  # private: never on the TV
    later, _ = make_match(start_in=600)
    assert client.get("/tv/now").json()["featured"]["id"] == later.pk
    older, _ = make_match(start_in=-60)
    newer, _ = make_match(start_in=-10, teams=("Hot", "Cool"))
    now = client.get(f"/tv/now?current={older.pk}").json()
    assert now["featured"] == {"id": newer.pk, "game": "kakomimasu", "title": str(newer),
                               "status": "running", "start_at": now["featured"]["start_at"],
                               "turns": newer.turns, "teams": ["Hot", "Cool"],
                               "tournament": None}
    assert now["current"] == {"id": older.pk, "status": "running", "verdict": None,
                              "verdicts": None, "swing": None}
    finished = imported()
    shown = client.get(f"/tv/now?current={finished.pk}").json()["current"]
    assert shown["status"] == "finished" and shown["verdict"]
    assert set(shown["verdicts"]) == {"ja", "vi", "en"} and shown["verdicts"]["en"] == \
        shown["verdict"]
    finished.published = False
    finished.save()
    assert client.get(f"/tv/now?current={finished.pk}").json()["current"] is None


def test_after_a_match_the_tv_is_told_the_turn_that_moved_the_score_most(client):
    from matches import selectors

    finished = imported()
    swing = client.get(f"/tv/now?current={finished.pk}").json()["current"]["swing"]
    history = selectors.score_history(finished)
    leads = [score[0]["total"] - score[1]["total"]
             for score in (entry["scores"] for entry in history)]
    changes = [after - before for before, after in zip(leads, leads[1:], strict=False)]
    biggest = max(range(len(changes)), key=lambda index: abs(changes[index]))
    assert swing == {"turn": biggest + 1, "team": 0 if changes[biggest] > 0 else 1,
                     "points": abs(changes[biggest]),
                     "name": finished.teams.get(index=0 if changes[biggest] > 0 else 1).name}


def test_the_replays_qr_code_is_an_svg_drawn_here_for_a_turn_played(client):
    match = imported()
    code = client.get(f"/matches/{match.pk}/replay.svg?turn=12")
    assert code.status_code == 200 and code["Content-Type"] == "image/svg+xml"
    assert code.content.decode().startswith("<svg") and b"<path" in code.content
    # it says the replay's address at that turn, on this server
    address = f"http://testserver/matches/{match.pk}/replay?turn=12"
    drawn = qrcode.make(address, border=2, image_factory=qrcode.image.svg.SvgPathImage)
    assert code.content.decode() == drawn.to_string(encoding="unicode")
    other = client.get(f"/matches/{match.pk}/replay.svg?turn=13").content
    assert other != code.content  # each turn its own address
    for wrong in ("-1", "x", str(match.turns + 1), "9" * 9):
        assert client.get(f"/matches/{match.pk}/replay.svg?turn={wrong}").status_code == 400
    private = imported(published=False)
    assert client.get(f"/matches/{private.pk}/replay.svg").status_code == 404


def test_a_swing_of_one_is_no_swing_to_replay(client):
    """CHaser's TV said "The biggest swing: turn 7, +1 for Hot": every item is one."""
    from matches.rules.records import parse_record
    from matches.selectors import score_history
    from matches.selectors.audit import biggest_swing
    from matches.services.archive import match_import
    from tests.conftest import ROOT

    vector = ROOT / "tests" / "conformance" / "chaser" / "items_decide.record.json"
    match = match_import(parse_record(vector.read_bytes()), published=True)
    items = [sum(score["items"] for score in entry["scores"]) for entry in score_history(match)]
    assert items[-1] > items[0]  # items were taken, one at a time
    assert biggest_swing(match) is None
    assert client.get(f"/tv/now?current={match.pk}").json()["current"]["swing"] is None
