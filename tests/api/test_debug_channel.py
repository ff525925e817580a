"""A team's debug channel (docs/api.md, "Your program's debug output"): `debug` and
`marks` sent with actions are kept and read back by the team itself and the judges
only, turn by turn; never by the other team or the public until a judge publishes the
match with its debug; a debug part that cannot be read is dropped, and the actions
count all the same."""

import json

import pytest
from django.test import Client

from matches.models import Match, Submission
from matches.services.publication import match_publish
from matches.services.transition import turn_resolve
from tests.factories import make_match, put

pytestmark = pytest.mark.django_db

MARKS = [{"cell": [2, 3], "color": "red", "label": "aim"},
         {"line": [[0, 0], [2, 3]], "color": "#00ff88"}]


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def send(client, match, token, body, path="actions", content_type="application/json"):
    return client.post(f"/api/matches/{match.pk}/{path}",
                       body if isinstance(body, str | bytes) else json.dumps(body),
                       content_type=content_type, **bearer(token))


@pytest.fixture
def played(client):
    match, tokens = make_match(turns=3, teams=("Nara", "Hanoi"))
    answer = send(client, match, tokens[0], {"actions": [put(0, 0, 0)],
                                             "debug": "plan: take the corner\nscore 12",
                                             "marks": MARKS})
    assert answer.status_code == 202 and answer.json()["debug"] == "kept"
    send(client, match, tokens[0], "tried 3 plans\n", path="output", content_type="text/plain")
    send(client, match, tokens[1], {"actions": [], "debug": "Hanoi's secret plan"})
    turn_resolve(match_id=match.pk, number=1, now=match.deadline(1))
    return match, tokens


def test_the_team_reads_its_own_debug_turn_by_turn_and_nothing_of_the_others(client, played):
    match, tokens = played
    mine = client.get(f"/api/matches/{match.pk}/debug", **bearer(tokens[0])).json()
    assert mine["teams"] == [0]
    assert mine["turns"] == {"1": [{"team": 0, "text": "plan: take the corner\nscore 12\n"
                                                       "tried 3 plans", "marks": MARKS}]}
    sent = client.get(f"/api/matches/{match.pk}/submissions", **bearer(tokens[0])).json()
    assert [(row["team"], row["output"], row["debug"]) for row in sent["submissions"]] == [
        (0, False, "plan: take the corner\nscore 12"), (0, True, None)]
    assert "Hanoi" not in json.dumps(mine) + json.dumps(sent)


def test_nobody_else_reads_it_before_a_judge_publishes_it_with_its_debug(played, judge_client):
    match, tokens = played
    client = Client()  # a visitor (judge_client is the test's own client, signed in)
    Match.objects.filter(pk=match.pk).update(public_live=True)  # watched live by everyone
    assert client.get(f"/api/matches/{match.pk}/debug").status_code == 403
    assert client.get(f"/api/matches/{match.pk}/submissions").status_code == 401
    for surface in (f"/api/matches/{match.pk}", f"/api/matches/{match.pk}/timeline",
                    f"/matches/{match.pk}/replay", f"/matches/{match.pk}/"):
        assert "secret plan" not in client.get(surface).content.decode()
        assert "secret plan" not in client.get(surface, **bearer(tokens[0])).content.decode()
    both = judge_client.get(f"/api/matches/{match.pk}/debug").json()
    assert both["teams"] == [0, 1] and "Hanoi's secret plan" in json.dumps(both)
    for turn in (2, 3):
        turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    match_publish(match_id=match.pk, published=True)
    assert client.get(f"/api/matches/{match.pk}/debug").status_code == 403
    assert "secret plan" not in client.get(f"/api/matches/{match.pk}/record").content.decode()
    match_publish(match_id=match.pk, published=True, debug=True)
    public = client.get(f"/api/matches/{match.pk}/debug").json()
    assert public["teams"] == [0, 1] and "Hanoi's secret plan" in json.dumps(public)


@pytest.mark.parametrize(("extra", "why"), [
    ({"debug": 3}, "debug: expected a string"),
    ({"debug": "x" * 5000}, "debug: at most 4096 bytes"),
    ({"marks": [{"cell": [99, 0]}]}, "marks[0].cell: expected [x, y]"),
    ({"marks": [{"cell": [1, 1], "color": "url(x)"}]}, "marks[0].color"),
    ({"marks": [{"cell": [1, 1], "label": "a label far too long"}]}, "marks[0].label"),
    ({"marks": [{"line": [[1, 1]]}]}, "marks[0].line: expected two cells"),
    ({"marks": [{"at": [1, 1]}]}, 'marks[0]: expected "cell" or "line"'),
    ({"marks": [{}] * 201}, "marks: at most 200"),
])
def test_a_debug_part_that_cannot_be_read_is_dropped_and_the_actions_count(client, extra, why):
    match, tokens = make_match(turns=3)
    answer = send(client, match, tokens[0], {"actions": [put(0, 1, 1)], **extra})
    assert answer.status_code == 202
    assert answer.json()["debug"].startswith("dropped: ") and why in answer.json()["debug"]
    row = Submission.objects.get(match=match)
    assert row.actions == [put(0, 1, 1)] and row.debug == "" and row.marks is None


def test_debug_past_the_storage_budget_is_dropped_and_said(client, settings):
    match, tokens = make_match(turns=3)
    settings.TEAM_BODY_BUDGET = 10
    answer = send(client, match, tokens[0], {"actions": [], "debug": "thinking"})
    assert answer.status_code == 202
    assert answer.json()["debug"] == "dropped: the team's storage budget in this match is spent"
    assert Submission.objects.get(match=match).debug == ""


def test_a_dialects_json_carries_debug_too(client):
    match, tokens = make_match(turns=3)
    answer = client.post(f"/procon31/matches/{match.pk}/action",  # the Procon 31 API's path
                         json.dumps({"actions": [], "debug": "from a Procon client"}),
                         content_type="application/json", HTTP_X_API_TOKEN=tokens[0])
    assert answer.status_code in (200, 202), answer.content
    assert Submission.objects.get(match=match).debug == "from a Procon client"


def test_the_record_carries_the_debug_where_it_is_published_with_it(client, played):
    import io

    from django.core.management import call_command

    from matches.rules.records import parse_record

    match, tokens = played
    for turn in (2, 3):
        turn_resolve(match_id=match.pk, number=turn, now=match.deadline(turn))
    out = io.StringIO()
    call_command("exportrecord", str(match.pk), "--debug", stdout=out)
    record = json.loads(out.getvalue())
    assert record["debug"]["1"][0]["marks"] == MARKS
    assert parse_record(record).debug == record["debug"]  # it reads back, and checks
    out = io.StringIO()
    call_command("exportrecord", str(match.pk), stdout=out)
    assert "debug" not in json.loads(out.getvalue())
    match_publish(match_id=match.pk, published=True, debug=True)
    public = client.get(f"/api/matches/{match.pk}/record").json()
    assert public["debug"]["1"][1]["text"] == "Hanoi's secret plan"
    bad = {**record, "debug": {"9": []}}
    with pytest.raises(ValueError, match="not a turn from 1 to 3"):
        parse_record(bad)
    bad = {**record, "debug": {"1": [{"team": 0, "marks": [{"cell": [1]}]}]}}
    with pytest.raises(ValueError, match=r"debug.1\[0\].marks\[0\].cell"):
        parse_record(bad)
