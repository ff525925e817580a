"""Hostile requests to the answer API, on both paths: a clear JSON answer, never a 5xx,
and every request stored as it came, its head only when refused (test_submissions has
the everyday mistakes)."""

import json

import pytest
from django.utils import timezone

from matches.models import RequestTally, Submission, Team
from matches.selectors import match_verify
from matches.services.submissions import (
    ADDRESS_LIMIT,
    KEPT_HEAD,
    MAX_BODY,
    RATE_LIMIT,
    STORED_A_MINUTE,
    Refusal,
    Request,
    parse_actions,
    submission_enter,
    submission_receive,
)
from matches.services.transition import turn_resolve
from tests.api.test_submissions import ACTIONS, assert_error, post
from tests.factories import make_match, put

VALID = json.dumps(ACTIONS).encode()


def stored():
    return Submission.objects.latest("id")


@pytest.mark.parametrize(("content_type", "body", "status", "stored_type"), [
    ("application/x-www-form-urlencoded", VALID, 202, "application/x-www-form-urlencoded"),
    ("application/x-www-form-urlencoded", b"actions=stay&agent=0", 400,
     "application/x-www-form-urlencoded"),
    ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="a"'
     b"\r\n\r\n1\r\n--x--\r\n", 400, "multipart/form-data"),
    ("", VALID, 202, ""),
    ("application/json; charset=utf-8", VALID, 202, "application/json"),
    ("Application/JSON; Charset=UTF-8", VALID, 202, "application/json"),  # as Django reads it
    ("image/png", VALID, 202, "image/png"),
])
def test_any_content_type_is_read_as_utf8_json(api, content_type, body, status, stored_type):
    match, tokens = make_match()
    response = post(api, match.pk, body, tokens[0], content_type=content_type, raw=True)
    assert response.status_code == status
    assert set(response.json()) == ({"turn", "received_at", "actions"} if status == 202
                                    else {"error", "detail"})
    assert (stored().status_code, stored().content_type, bytes(stored().body)) == (
        status, stored_type, body)


@pytest.mark.parametrize(("value", "detail"), [
    ("1e400", "actions[0].agent: expected a whole number"),  # infinity to Python
    ("-1e400", "actions[0].agent: expected a whole number"),
    ("1.7976931348623157e308", "actions[0].agent: expected a whole number"),
    ("1" + "0" * 5000, "not valid JSON"),  # 10**5000: past Python's 4,300 digits
])
def test_numbers_too_big_to_be_agents_are_400(api, value, detail):
    match, tokens = make_match()
    body = f'{{"actions": [{{"agent": {value}, "type": "stay"}}]}}'.encode()
    response = post(api, match.pk, body, tokens[0], raw=True)
    assert response.status_code == 400 and detail in response.json()["detail"]
    assert bytes(stored().body) == body[:KEPT_HEAD] and stored().body_size == len(body)


def test_whole_numbers_of_any_size_are_accepted_and_judged_invalid_at_the_transition(api):
    match, tokens = make_match()
    huge = 10 ** 4000
    actions = [put(2 ** 64, 1, 1), put(1, huge, -huge)]
    assert post(api, match.pk, {"actions": actions}, tokens[0]).status_code == 202
    assert stored().actions == actions
    row = turn_resolve(match_id=match.pk, number=1)
    assert [outcome["result"] for outcome in row.outcomes[0]] == ["invalid", "invalid"]
    match.refresh_from_db()
    assert match_verify(match).verified


@pytest.mark.parametrize(("body", "status", "detail"), [
    (b"[" * 100_000 + b"]" * 100_000, 413, "200000 bytes"),  # refused before it is read
    (b'{"actions": [], "x": ' + b'{"a": ' * 8_000 + b"0" + b"}" * 8_000 + b"}", 400,
     "nested too deeply"),
    (b'{"actions": [{"agent": 0, "type": "stay", "x": ' + b"[" * 50 + b"]" * 50 + b"}]}", 202,
     ""),
])
def test_deep_json(api, body, status, detail):
    match, tokens = make_match()
    response = post(api, match.pk, body, tokens[0], raw=True)
    assert response.status_code == status
    assert detail in json.dumps(response.json())
    assert (stored().status_code, stored().body_size) == (status, len(body))
    # whole when taken, its head when refused
    assert bytes(stored().body) == (body if status == 202 else body[:KEPT_HEAD])


@pytest.mark.parametrize("body", [
    b'{"actions": [{"agent": 0, "type": "st\xe9y"}]}',  # Latin-1
    b'{"actions": [], "x": "\xed\xa0\x80"}',  # a surrogate, UTF-8 encoded (CESU-8)
    b'{"actions": [], "x": "\xc0\xaf"}',  # an overlong '/'
    b'{"actions": []}\xff',
    '{"actions": []}'.encode("utf-16"),  # with its BOM
    '{"actions": []}'.encode("utf-32"),
])
def test_bytes_that_are_not_utf8_are_400_and_stored_as_they_came(api, body):
    match, tokens = make_match()
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 400, "malformed_json",
                 "not UTF-8")
    assert bytes(stored().body) == body and stored().body_size == len(body)


def test_a_utf8_byte_order_mark_is_allowed(api):
    match, tokens = make_match()
    assert post(api, match.pk, b"\xef\xbb\xbf" + VALID, tokens[0], raw=True).status_code == 202
    assert stored().actions == ACTIONS["actions"]


def test_an_empty_body_is_400_and_stored(api):
    match, tokens = make_match()
    assert_error(post(api, match.pk, b"", tokens[0], raw=True), 400, "malformed_json")
    assert (bytes(stored().body), stored().body_size, stored().team.index) == (b"", 0, 0)


def test_a_body_of_megabytes_is_413_and_only_its_head_is_kept(api):
    match, tokens = make_match()
    body = b'{"actions": [], "pad": "' + b"x" * 3_000_000 + b'"}'
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 413, "too_large")
    assert stored().body_size == len(body) and bytes(stored().body) == body[:KEPT_HEAD]


@pytest.mark.django_db
@pytest.mark.parametrize(("declared", "status"), [(10 ** 9, 413), (MAX_BODY, 202)])
def test_a_content_length_larger_than_the_body_is_recorded_as_claimed(declared, status):
    """A client that claims more than it sends and hangs up: the bytes that came are
    judged, unless the claim alone is over 64 KiB. (ASGI only: Django's test client
    cannot send less than it declares.)"""
    from matches.api_asgi import AnswerEndpoint
    from tests.api.conftest import AsgiClient, refuse

    match, tokens = make_match()
    response = AsgiClient(AnswerEndpoint(refuse)).post(
        f"/api/matches/{match.pk}/actions", data=VALID, content_type="application/json",
        CONTENT_LENGTH=str(declared), HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert response.status_code == status
    assert (stored().body_size, bytes(stored().body)) == (declared, VALID)


@pytest.mark.django_db
@pytest.mark.parametrize("declared", ["\u00b2", "\u0663", "-1", " 12", ""])
def test_a_content_length_that_is_no_number_is_not_taken_for_one(client, declared):
    """A superscript two is a digit to str.isdigit and no number to int(): the size
    recorded is what arrived, and the answer is never a 500."""
    match, tokens = make_match()
    response = client.post(f"/api/matches/{match.pk}/actions", data=VALID,
                           content_type="application/json", CONTENT_LENGTH=declared,
                           HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert response.status_code in (202, 400)  # Django may read no body at all
    assert stored().body_size == len(bytes(stored().body))


@pytest.mark.parametrize(("body", "status", "detail"), [
    (VALID + b"\x00", 400, "Extra data"),
    (b'{"actions": [{"agent": 0, "type": "st\x00ay"}]}', 400, "Invalid control character"),
    (b'{"actions": [{"agent": 0, "type": "stay\\u0000"}]}', 400, "actions[0].type"),
    (b'{"actions": [{"agent": 0, "type": "stay", "note": "\\u0000\\ud800"}]}', 202, ""),
])
def test_nul_bytes(api, body, status, detail):
    match, tokens = make_match()
    response = post(api, match.pk, body, tokens[0], raw=True)
    assert response.status_code == status and detail in json.dumps(response.json())
    assert bytes(stored().body) == body  # stored as it came, NUL included
    if status == 202:
        assert stored().actions == [{"agent": 0, "type": "stay"}]


def test_nul_in_the_content_type_is_stored_replaced(api):
    match, tokens = make_match()
    response = post(api, match.pk, VALID, tokens[0], content_type="application/js\x00on",
                    raw=True)
    assert response.status_code == 202
    assert stored().content_type == "application/js\ufffdon"


@pytest.mark.parametrize(("game", "action", "key"), [
    ("blokus-duo", {"move": "55a0\u0000"}, "move"),
    ("blokus-duo", {"move": "\ud800"}, "move"),
    ("chaser", {"command": "\u0000"}, "command"),
])
def test_strings_the_database_cannot_keep_are_never_accepted(game, action, key):
    body = json.dumps({"actions": [action]}).encode()
    with pytest.raises(Refusal) as refused:
        parse_actions(game, body)
    assert (refused.value.status, refused.value.error) == (400, "invalid_actions")
    assert f"actions[0].{key}" in refused.value.detail


@pytest.mark.parametrize(("body", "key"), [
    (b'{"actions": [], "actions": [{"agent": 0, "type": "stay"}]}', '"actions"'),
    (b'{"actions": [{"agent": 0, "agent": 1, "type": "stay"}]}', '"agent"'),
])
def test_a_key_twice_in_an_object_is_400(api, body, key):
    """Parsers differ on which one wins: the body is refused rather than guessed at."""
    match, tokens = make_match()
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 400, "malformed_json",
                 f"the key {key} appears twice")


@pytest.mark.parametrize("authorization", ["Bearer \xff\xfe", "Bearer " + "A" * 10_000,
                                           "Bearer\t", "bearer  x  "])
def test_odd_authorization_headers_are_401_and_stored(api, authorization):
    match, _ = make_match()
    response = api.post(f"/api/matches/{match.pk}/actions", data=VALID,
                        content_type="application/json", HTTP_AUTHORIZATION=authorization)
    assert_error(response, 401, "unauthorized")
    assert (stored().match_id, stored().team, stored().status_code) == (match.pk, None, 401)


def test_match_ids_beyond_any_row_are_answered_as_any_match_and_stored(api):
    """Without a team's token a match that does not exist is answered as one that does
    (401): a private match is not told from a missing one."""
    path = "/api/matches/999999999999999999/actions"  # 18 digits: the ASGI route's limit
    response = api.post(path, data=VALID, content_type="application/json",
                        HTTP_AUTHORIZATION="Bearer x")
    assert_error(response, 401, "unauthorized")
    assert (stored().match, stored().status_code) == (None, 401)
    _, tokens = make_match()  # a real token: the team may be told the match is missing
    response = api.post(path, data=VALID, content_type="application/json",
                        HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert_error(response, 404, "not_found")


def test_a_flood_of_mixed_requests_is_answered_and_stored_in_bounded_rows(api, clock):
    """200 requests as fast as they come (a millisecond apart): both teams, strangers,
    good and bad bodies. Each team's first 20 are judged and stored, the rest are 429;
    so are the strangers' (one address) after their first 20. Of the 429s and the
    strangers' requests, the first few of the minute are stored one by one and the rest
    counted in one row per source."""
    match, tokens = make_match()
    clock.to_next_minute()
    senders = [tokens[0], tokens[1], "stranger"]
    bodies = [VALID, b"{", b"x" * 70_000, b'{"actions": [1]}']
    answers = []
    for index in range(200):
        token = senders[index % 3]
        answers.append((token, post(api, match.pk, bodies[index % 4], token, raw=True)))
        clock.advance(0.001)
    assert all(response.status_code < 500 for _, response in answers)
    for token in tokens:
        codes = [response.status_code for sender, response in answers if sender == token]
        assert 429 not in codes[:20] and set(codes[20:]) == {429}
    strangers = [r.status_code for s, r in answers if s == "stranger"]
    assert strangers == [401] * ADDRESS_LIMIT + [429] * (len(strangers) - ADDRESS_LIMIT)
    assert all(set(response.json()) in ({"error", "detail"}, {"turn", "received_at", "actions"})
               for _, response in answers)
    rows = list(Submission.objects.filter(match=match).order_by("id"))
    for team_index, token in enumerate(tokens):
        sent = [r.status_code for s, r in answers if s == token]
        kept = [row.status_code for row in rows if row.team and row.team.index == team_index]
        assert kept == sent[:RATE_LIMIT] + [429] * STORED_A_MINUTE
        tally = RequestTally.objects.get(team__match=match, team__index=team_index)
        assert tally.count == sent.count(429) and len(tally.samples) == 3
    assert [row.status_code for row in rows if row.team is None] == (
        strangers[:STORED_A_MINUTE])
    tally = RequestTally.objects.get(source="address:127.0.0.1")
    assert tally.count == len(strangers) and tally.samples[0]["status"] == 401
    assert len(rows) == 2 * (RATE_LIMIT + STORED_A_MINUTE) + STORED_A_MINUTE


def test_what_the_database_cannot_keep_is_stored_replaced_not_lost(db):
    """A peer that is not an IP address (a unix socket behind a proxy), a judge's note
    with a NUL: stored (address dropped, NUL replaced) instead of failing the request."""
    match, tokens = make_match()
    now = timezone.now()
    reply = submission_receive(Request(match.pk, f"Bearer {tokens[0]}", VALID, len(VALID),
                                       "application/json", "unix:/run/daphne.sock", now))
    assert reply.status == 202 and stored().remote_addr is None
    team = Team.objects.get(match=match, index=1)
    reply = submission_enter(team, VALID, "judy", "their network\x00is down", now, "::1")
    assert reply.status == 202
    assert (stored().note, stored().remote_addr) == ("their network\ufffdis down", "::1")
