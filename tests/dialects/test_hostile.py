"""No body a program sends to a dialect, however broken, gets a 500 or is lost: each is
answered in the dialect's words and stored."""

import json
from datetime import timedelta

import pytest

from matches.models import Submission
from tests.dialects.test_kakomimasu_v1 import kakomimasu_match
from tests.dialects.test_procon30 import procon_match

pytestmark = pytest.mark.django_db

BODIES = [b"", b"null", b"[]", b"{}", b"[1, 2]", b'{"actions": null}', b'{"actions": {}}',
          b'{"actions": [null]}', b'{"actions": [[]]}', b'{"actions": [{}]}',
          b'[{"agentID": 1e308, "type": "move", "x": 1, "y": 1, "dx": 1, "dy": 1}]',
          b'[{"agentID": 99999999999999999999999, "type": "put", "x": -5, "y": 2}]',
          b'[{"agentID": 1, "agentId": 0, "type": "PUT", "x": "1", "y": true}]',
          b'{"actions": [{"agentId": 0, "type": "put", "x": 1.5, "y": 2}]}',
          b"[{\"agentID\": 1, \"type\": \"\\ud800\", \"dx\": 0, \"dy\": 0}]",
          b"\xff\xfe\x00", b"{" * 5000, b'{"actions": [], "actions": []}', b"NaN",
          json.dumps({"actions": [{"agentID": 1, "type": "stay"}] * 300}).encode()]


def test_every_broken_body_is_answered_and_stored(client, clock, tmp_path):
    procon, procon_tokens = procon_match(tmp_path)
    kakomimasu, kakomimasu_tokens = kakomimasu_match(tmp_path)
    clock.time = max(procon.start_at, kakomimasu.start_at) + timedelta(seconds=1)
    routes = [
        (f"/procon30/matches/{procon.pk}/action", "post", {"HTTP_AUTHORIZATION": procon_tokens[0]}),
        (f"/procon2020/matches/{procon.pk}/action?token={procon_tokens[1]}", "post", {}),
        (f"/procon31/matches/{kakomimasu.pk}/action", "post",
         {"HTTP_X_API_TOKEN": kakomimasu_tokens[0]}),
        (f"/v1/matches/{kakomimasu.pk}/actions", "patch",
         {"HTTP_AUTHORIZATION": kakomimasu_tokens[1]}),
    ]
    sent = 0
    for path, method, headers in routes:
        for body in BODIES:
            answer = getattr(client, method)(path, body, content_type="application/json",
                                             **headers)
            assert answer.status_code < 500, (path, body[:60], answer.content[:200])
            assert answer.status_code in (200, 201, 202) or answer.json(), (path, body[:60])
            sent += 1
    assert Submission.objects.count() == sent


def test_match_ids_no_database_can_hold_are_not_found(client):
    huge = 10**30
    for path in (f"/v1/matches/{huge}", f"/procon30/matches/{huge}",
                 f"/procon2020/matches/{huge}?token=x", f"/procon31/matches/{huge}",
                 f"/api/matches/{huge}"):
        answer = client.get(path, HTTP_AUTHORIZATION="nope", HTTP_X_API_TOKEN="nope")
        assert answer.status_code == 404, (path, answer.status_code)  # no such match
    for path in (f"/procon30/matches/{huge}/action", f"/procon31/matches/{huge}/action",
                 f"/v1/matches/{huge}/players"):
        answer = client.post(path, b"[]", content_type="application/json",
                             HTTP_AUTHORIZATION="nope", HTTP_X_API_TOKEN="nope")
        assert answer.status_code == 404, (path, answer.status_code)


def test_a_real_token_on_a_match_id_no_database_can_hold(client, tmp_path):
    """A dialect's path takes ids of at most 18 digits: a longer one is a 404 before any
    database sees it; the native API answers it as a stranger's match."""
    match, tokens = procon_match(tmp_path)
    huge = 10**30
    assert client.get(f"/procon30/matches/{huge}",
                      HTTP_AUTHORIZATION=tokens[0]).status_code == 404
    assert client.get(f"/api/matches/{huge}",
                      HTTP_AUTHORIZATION=f"Bearer {tokens[0]}").status_code == 404
    answer = client.post(f"/procon30/matches/{huge}/action", b"[]",
                         content_type="application/json", HTTP_AUTHORIZATION=tokens[0])
    assert answer.status_code == 404


def test_a_real_token_on_a_huge_id_through_the_native_api(client, tmp_path):
    match, tokens = procon_match(tmp_path)
    answer = client.post(f"/api/matches/{10**30}/actions", b'{"actions": []}',
                         content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert answer.status_code == 404, answer.status_code


def test_a_match_of_another_game_is_refused_in_each_dialects_words(client, clock, tmp_path):
    """The answer service checks the game a dialect serves; each dialect says so as its
    own server did, and the request is stored as refused."""
    procon, procon_tokens = procon_match(tmp_path)
    kakomimasu, kakomimasu_tokens = kakomimasu_match(tmp_path)
    clock.time = max(procon.start_at, kakomimasu.start_at) + timedelta(seconds=1)
    stay = {"actions": [{"agentID": 1, "agentId": 0, "type": "stay"}]}
    sent = [
        (f"/procon30/matches/{kakomimasu.pk}/action", {"HTTP_AUTHORIZATION": kakomimasu_tokens[0]},
         400, {"status": "InvalidMatches"}),
        (f"/procon2020/matches/{kakomimasu.pk}/action?token={kakomimasu_tokens[1]}", {},
         400, {"status": "InvalidMatches"}),
        (f"/procon31/matches/{procon.pk}/action", {"HTTP_X_API_TOKEN": procon_tokens[0]},
         404, {"status": "InvalidMatches",
               "detail": f"match {procon.pk} is not a Kakomimasu match: its own API serves it"}),
        (f"/v1/matches/{procon.pk}/actions", {"HTTP_AUTHORIZATION": procon_tokens[1]},
         400, {"message": "this match is not a Kakomimasu match", "errorCode": 100}),
    ]
    for path, headers, status, said in sent:
        answer = client.post(path, json.dumps(stay), content_type="application/json", **headers)
        assert (answer.status_code, answer.json()) == (status, said), path
    assert [(row.status_code, row.error) for row in Submission.objects.order_by("id")] == [
        (400, "wrong_dialect")] * 4


def test_the_native_limits_in_each_dialects_words(client, clock, tmp_path):
    """A body over 64 KiB, one that is not JSON, and the 21st request of a second, as
    each dialect says them (a table of each dialect's words: these pin its rows)."""
    procon, procon_tokens = procon_match(tmp_path)
    kakomimasu, kakomimasu_tokens = kakomimasu_match(tmp_path)
    clock.time = max(procon.start_at, kakomimasu.start_at) + timedelta(seconds=1)
    big = b"[" + b" " * 70_000 + b"]"
    too_large = "the body is 70002 bytes; at most 64 KiB (65536 bytes) are accepted"
    not_json = ("the body is not valid JSON: Expecting property name enclosed in double "
                "quotes: line 1 column 2 (char 1)")
    limited = "21 requests within a second; a token may send 20"
    doors = [
        (f"/procon30/matches/{procon.pk}/action", {"HTTP_AUTHORIZATION": procon_tokens[0]},
         (413, {"status": "BadRequest", "detail": too_large}),
         (400, {"status": "InvalidActions", "detail": not_json}),
         (429, {"status": "TooManyRequests", "detail": limited}), "1"),
        (f"/procon31/matches/{kakomimasu.pk}/action", {"HTTP_X_API_TOKEN": kakomimasu_tokens[0]},
         (413, {"status": "Refused", "detail": too_large}),
         (422, {"status": "InvalidFormat", "detail": not_json}),
         (429, {"status": "Refused", "detail": limited}), "1"),
        (f"/v1/matches/{kakomimasu.pk}/actions", {"HTTP_AUTHORIZATION": kakomimasu_tokens[1]},
         (413, {"message": too_large, "errorCode": 104}),
         (400, {"message": not_json, "errorCode": 3}),
         (429, {"message": limited, "errorCode": 104}), None),
    ]
    for path, headers, over, broken, flooded, retry_after in doors:
        answers = [client.post(path, body, content_type="application/json", **headers)
                   for body in [big, b"{nope", *[b"[]"] * 19]]
        said = [(answer.status_code, answer.json()) for answer in answers]
        assert (said[0], said[1], said[-1]) == (over, broken, flooded), path
        assert all(status != 429 for status, _ in said[:-1]), path
        assert answers[-1].get("Retry-After") == retry_after, path


def test_a_strangers_flood_on_every_dialect_costs_a_few_rows_a_minute(client, clock, tmp_path):
    """60 posts of 64 KiB without a team's token to each dialect's answer route within a
    minute: all answered; a few stored with their head only, the rest counted in one
    row per source and minute, as on the native API (docs/api.md, "Limits and what is
    kept")."""
    from matches.models import RequestTally
    from matches.services.submissions import KEPT_HEAD, STORED_A_MINUTE

    procon, _ = procon_match(tmp_path)
    kakomimasu, _ = kakomimasu_match(tmp_path)
    clock.time = (max(procon.start_at, kakomimasu.start_at) + timedelta(minutes=1)).replace(
        second=1, microsecond=0)  # (every request of a route within one minute)
    big = json.dumps({"actions": [], "note": "x" * 65_000}).encode()
    routes = [(f"/procon30/matches/{procon.pk}/action", "post"),
              (f"/procon2020/matches/{procon.pk}/action", "post"),
              (f"/procon31/matches/{kakomimasu.pk}/action", "post"),
              (f"/v1/matches/{kakomimasu.pk}/actions", "patch")]
    for number, (path, method) in enumerate(routes):
        before = Submission.objects.count()
        codes = {getattr(client, method)(path, big, content_type="application/json",
                                         HTTP_AUTHORIZATION="not-a-token",
                                         REMOTE_ADDR=f"192.0.2.{number + 1}").status_code
                 for _ in range(60)}
        assert codes and all(400 <= code < 500 for code in codes), (path, codes)
        rows = Submission.objects.order_by("id")[before:]
        assert len(rows) == STORED_A_MINUTE, path
        assert all(len(bytes(row.body)) <= KEPT_HEAD for row in rows), path
        tally = RequestTally.objects.get(source=f"address:192.0.2.{number + 1}")
        assert tally.count == 60 and tally.body_bytes == 60 * len(big), path
