"""An alternating game through both paths of the answer API (the django-ninja view
and the ASGI endpoint), and the match as GET /api/matches/{id} shows it."""

from tests.api.test_submissions import assert_error, post
from tests.factories import make_alternating_match


def test_a_move_in_turn_is_played_and_one_out_of_turn_or_illegal_is_refused(api, client):
    match, tokens = make_alternating_match(clock=120)
    assert_error(post(api, match.pk, {"actions": [{"move": "AAa0"}]}, tokens[1]), 409,
                 "not_your_move", "turn 1 is team 0 (A)'s move")
    assert_error(post(api, match.pk, {"actions": [{"move": "56a0"}]}, tokens[0]), 400,
                 "illegal_move", "the first piece must cover 55")
    answer = post(api, match.pk, {"actions": [{"move": "55u0"}], "turn": 1}, tokens[0])
    assert answer.status_code == 202 and answer.json()["turn"] == 1
    shown = client.get(f"/api/matches/{match.pk}").json()
    assert (shown["turn"], shown["to_move"], shown["clock_ms"]) == (1, 1, 120000)
    assert shown["clocks"][1] <= 120000 and shown["clocks"][0] < 120000
    assert shown["state"]["scores"] == [{"remaining": 84}, {"remaining": 89}]
    assert shown["actions"][0]["outcomes"][0] == [{"move": "55u0", "result": "ok"}]
    listed = {m["id"]: m for m in client.get("/api/matches").json()}
    assert listed[match.pk]["to_move"] == 1 and len(listed[match.pk]["clocks"]) == 2


def test_a_simultaneous_match_has_no_clocks(db, client):
    from tests.factories import make_match

    match, _ = make_match()
    shown = client.get(f"/api/matches/{match.pk}").json()
    assert (shown["clock_ms"], shown["to_move"], shown["clocks"]) == (None, None, None)


def test_a_programs_own_output_is_kept_and_never_a_move(db, client):
    from matches.models import Submission

    match, tokens = make_alternating_match(clock=120)
    url = f"/api/matches/{match.pk}/output"
    answer = client.post(url, "I think 55u0 is best\nscore: 12\n", content_type="text/plain",
                         HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert answer.status_code == 200 and answer.json() == {"turn": 1, "lines": 2}
    refused = client.post(url, b"\xff\xfe", content_type="text/plain",
                          HTTP_AUTHORIZATION=f"Bearer {tokens[0]}")
    assert refused.status_code == 400 and refused.json()["error"] == "not_text"
    assert client.post(url, "hi", content_type="text/plain").status_code == 401
    kept = Submission.objects.filter(match=match, team__index=0).order_by("id")
    assert [(row.status_code, row.detail[:23], row.counted) for row in kept] == [
        (200, "program output: 2 lines", False), (400, "the output is not UTF-8", False)]
    assert bytes(kept[0].body) == b"I think 55u0 is best\nscore: 12\n"
    assert client.get(f"/api/matches/{match.pk}").json()["turn"] == 0  # no move was made


def test_a_refusal_quotes_an_excerpt_of_a_huge_move_never_the_whole_of_it(api):
    """A Blokus Duo move of 60,000 characters: its refusal's detail, sent and stored,
    quotes at most DETAIL_LIMIT characters of it; of the refused body its size and head
    are kept (docs/api.md, "Limits and what is kept")."""
    from matches.models import Submission
    from matches.services.submissions.answers import DETAIL_LIMIT

    match, tokens = make_alternating_match(clock=120)
    huge = "55u0" + "x" * 60_000
    answer = post(api, match.pk, {"actions": [{"move": huge}]}, tokens[0])
    assert answer.status_code == 400
    detail = answer.json()["detail"]
    assert 0 < len(detail) <= DETAIL_LIMIT
    stored = Submission.objects.get(match=match)
    assert (stored.status_code, stored.error) == (400, answer.json()["error"])
    assert stored.detail == detail
    assert stored.body_size > 60_000 and len(bytes(stored.body)) <= 256


def test_no_refusal_carries_more_than_an_excerpt():
    """The last guard, whatever a reader or the rules put in a reason."""
    from matches.services.submissions.answers import DETAIL_LIMIT, Refusal

    refusal = Refusal(400, "invalid_actions", "z" * 5000)
    assert len(refusal.detail) == DETAIL_LIMIT and refusal.detail.endswith("…")
    assert Refusal(400, "invalid_actions", "short").detail == "short"
