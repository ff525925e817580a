"""What a request costs that no team's token of its match carried (a stranger's), and
what a flood from one address gets: a clear answer every time, and bounded room.

A stranger's request (no token, an unknown one, one of another match, a match that
does not exist), a team's refused request and any 429 keep their size, SHA-256 and
first 256 bytes only; a team's taken request keeps its whole body, within its budget.
Of a source's strangers' requests and 429s, the first few of each minute are stored one
by one; the rest are counted in one row per source and minute. Strangers are limited
per address.
"""

import hashlib
import json

from django.contrib.auth.models import Permission, User
from django.db.models import Sum
from django.db.models.functions import Length

from matches.models import RequestTally, Submission
from matches.services.submissions import (
    ADDRESS_LIMIT,
    KEPT_HEAD,
    RATE_LIMIT,
    STORED_A_MINUTE,
)
from tests.api.test_submissions import ACTIONS, assert_error, post
from tests.factories import make_match

BIG = json.dumps({"actions": [], "padding": "x" * (64 * 1024 - 40)}).encode()  # just < 64 KiB


def stored_bytes(**filters) -> int:
    rows = Submission.objects.filter(**filters)
    return rows.aggregate(total=Sum(Length("body")))["total"] or 0


def test_an_anonymous_flood_costs_a_few_rows_a_minute(api, clock):
    """200 anonymous 64 KiB posts within 0.2 s: all answered; the first few stored with
    256 bytes each, the rest counted in one row with their bytes and first heads."""
    match, _ = make_match()
    clock.to_next_minute()
    codes = []
    for index in range(200):
        codes.append(post(api, match.pk, BIG, "not-a-token" if index % 2 else None,
                          raw=True).status_code)
        clock.advance(0.001)
    assert codes == [401] * ADDRESS_LIMIT + [429] * (200 - ADDRESS_LIMIT)
    assert Submission.objects.filter(match=match).count() == STORED_A_MINUTE
    assert stored_bytes(match=match) == STORED_A_MINUTE * KEPT_HEAD  # 13 MB before
    row = Submission.objects.filter(match=match).last()
    assert row.body_size == len(BIG) and bytes(row.body) == BIG[:KEPT_HEAD]
    assert row.body_sha256 == hashlib.sha256(BIG).hexdigest()
    [tally] = RequestTally.objects.all()
    assert (tally.source, tally.match, tally.count, tally.body_bytes) == (
        "address:127.0.0.1", match, 200, 200 * len(BIG))
    assert [sample["status"] for sample in tally.samples] == [401, 401, 401]
    assert tally.samples[0]["sha256"] == row.body_sha256
    assert tally.samples[0]["head"] == BIG[:KEPT_HEAD].decode()
    clock.advance(60)  # a new minute: its first few are stored again
    post(api, match.pk, BIG, raw=True)
    assert Submission.objects.filter(match=match).count() == STORED_A_MINUTE + 1


def test_requests_to_a_match_that_does_not_exist_are_stored_bounded(api, clock):
    for _ in range(3):
        assert_error(post(api, 987654, BIG, "whatever", raw=True), 401, "unauthorized")
    rows = Submission.objects.filter(match=None)
    assert rows.count() == 3 and stored_bytes(match=None) == 3 * KEPT_HEAD


def test_a_token_of_another_match_is_a_stranger_too(api, clock):
    match, _ = make_match()
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    assert_error(post(api, match.pk, BIG, other_tokens[0], raw=True), 403, "forbidden")
    assert len(bytes(Submission.objects.get().body)) == KEPT_HEAD


def test_a_team_keeps_the_whole_body_of_what_was_taken_and_the_head_of_the_rest(api, clock):
    match, tokens = make_match()
    accepted = json.dumps({"actions": ACTIONS["actions"], "note": "n" * 2000}).encode()
    refused = b'{"actions": 3, "padding": "' + b"p" * 30_000 + b'"}'
    assert post(api, match.pk, accepted, tokens[0], raw=True).status_code == 202
    assert post(api, match.pk, refused, tokens[0], raw=True).status_code == 400
    for _ in range(RATE_LIMIT - 2):
        post(api, match.pk, ACTIONS, tokens[0])
    assert_error(post(api, match.pk, refused, tokens[0], raw=True), 429, "rate_limited")
    first, second, *_, limited = Submission.objects.order_by("id")
    assert (bytes(first.body), bytes(second.body)) == (accepted, refused[:KEPT_HEAD])
    assert second.body_size == len(refused)
    assert bytes(limited.body) == refused[:KEPT_HEAD] and limited.actions is None
    assert limited.body_size == len(refused)


def budget_spent(api, clock, settings, posts: int):
    """A match whose team 0 has posted `posts` taken bodies of about 20,000 bytes, with a
    storage budget of 3 × 20,000 (two fit whole, not three)."""
    settings.TEAM_BODY_BUDGET = 3 * 20_000
    match, tokens = make_match()
    body = json.dumps({"actions": ACTIONS["actions"], "note": "n" * 20_000}).encode()
    for _ in range(posts):
        assert post(api, match.pk, body, tokens[0], raw=True).status_code == 202
        clock.advance(0.1)
    return match, tokens, body


def test_a_teams_bodies_past_its_budget_keep_their_heads(api, clock, settings, client):
    """Past the team's storage budget in a match, even a taken request keeps only its
    size, hash and head; the other team's budget is its own; the audit says so."""
    match, tokens, body = budget_spent(api, clock, settings, posts=5)
    kept = [len(bytes(row.body)) for row in Submission.objects.order_by("id")]
    assert kept == [len(body)] * 2 + [KEPT_HEAD] * 3  # 3 × 20,000 does not fit a third
    assert all(row.body_size == len(body) for row in Submission.objects.all())
    assert post(api, match.pk, body, tokens[1], raw=True).status_code == 202
    assert len(bytes(Submission.objects.latest("id").body)) == len(body)
    assert Submission.objects.filter(counted=False, status_code=202).count() == 6
    judge = User.objects.create_user("judy")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.force_login(judge)
    audit = client.get(f"/matches/{match.pk}/audit").content.decode()
    assert audit.count("over the team&#x27;s storage budget for this match") == 3


def test_a_programs_output_counts_against_the_same_budget(api, clock, settings, client):
    match, tokens, _ = budget_spent(api, clock, settings, posts=2)
    said = ("thinking...\n" * 2_000).encode()  # 24,000 bytes: past what is left
    answer = client.post(f"/api/matches/{match.pk}/output", said, content_type="text/plain",
                         HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert answer.status_code == 200
    output = Submission.objects.latest("id")
    assert output.body_size == len(said) and len(bytes(output.body)) == KEPT_HEAD


def test_an_address_is_limited_for_strangers_only_and_answered_again_after_a_second(api, clock):
    match, tokens = make_match()
    for _ in range(ADDRESS_LIMIT):
        assert_error(post(api, match.pk, ACTIONS), 401, "unauthorized")
    refused = post(api, match.pk, ACTIONS, "guess")
    assert_error(refused, 429, "rate_limited", f"an address may send {ADDRESS_LIMIT}")
    assert refused.headers["retry-after"] == "1"
    assert post(api, match.pk, ACTIONS, tokens[0]).status_code == 202  # the team is not hurt
    clock.advance(1.0)
    assert_error(post(api, match.pk, ACTIONS), 401, "unauthorized")


def test_another_address_is_not_limited_by_a_flooding_one(api, clock):
    match, _ = make_match()
    for _ in range(ADDRESS_LIMIT + 5):
        post(api, match.pk, ACTIONS)
    other = api.post(f"/api/matches/{match.pk}/actions", data=json.dumps(ACTIONS),
                     content_type="application/json", REMOTE_ADDR="192.0.2.8")
    assert_error(other, 401, "unauthorized")
    assert Submission.objects.filter(remote_addr="192.0.2.8").count() == 1


def test_the_judges_export_stays_small_after_a_flood(api, clock, client):
    match, _ = make_match()
    for _ in range(100):
        post(api, match.pk, BIG, raw=True)
        clock.advance(0.001)
    judge = User.objects.create_user("judy")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    client.force_login(judge)
    export = client.get(f"/matches/{match.pk}/audit/submissions.json")
    assert export.status_code == 200
    assert len(export.content) < 100 * 1024  # 100 requests; 6.5 MB before
