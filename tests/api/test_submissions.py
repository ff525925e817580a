"""POST /api/matches/{id}/actions: every outcome, and every request stored first."""

import json

import pytest
from django.conf import settings as django_settings

from matches.models import Submission
from matches.services.submissions import KEPT_HEAD
from matches.services.transition import turn_resolve
from tests.factories import make_match, move, put

ACTIONS = {"actions": [put(0, 1, 1), put(1, 4, 3)]}


def post(api, match_id, body, token=None, content_type="application/json", raw=False):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = body if raw else json.dumps(body)
    return api.post(f"/api/matches/{match_id}/actions", data=data,
                       content_type=content_type, **headers)


def assert_error(response, status, code, detail_part=""):
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"error", "detail"} and body["error"] == code
    assert detail_part in body["detail"]


def test_an_accepted_submission_answers_202_and_is_stored(api):
    match, tokens = make_match()
    response = post(api, match.pk, ACTIONS, tokens[0])
    assert response.status_code == 202
    body = response.json()
    assert body["turn"] == 1 and body["actions"] == 2 and isinstance(body["received_at"], int)
    stored = Submission.objects.get()
    assert (stored.team.index, stored.turn, stored.status_code) == (0, 1, 202)
    assert json.loads(bytes(stored.body)) == ACTIONS and stored.actions == ACTIONS["actions"]
    assert stored.remote_addr == "127.0.0.1" and not stored.counted


def test_a_later_valid_submission_replaces_the_earlier(api):
    match, tokens = make_match()
    post(api, match.pk, {"actions": [put(0, 0, 0)]}, tokens[0])
    post(api, match.pk, {"actions": [put(0, 5, 4)]}, tokens[0])
    post(api, match.pk, {"actions": "oops"}, tokens[0])  # rejected: changes nothing
    row = turn_resolve(match_id=match.pk, number=1)
    assert row.agents[0][0] == [5, 4]
    counted = Submission.objects.filter(counted=True)
    assert [s.actions for s in counted] == [[put(0, 5, 4)]]


def test_unknown_keys_are_dropped_and_stay_has_no_target(api):
    match, tokens = make_match()
    body = {"actions": [put(0, 1, 1) | {"note": "x"}, {"agent": 1, "type": "stay", "x": 3}]}
    assert post(api, match.pk, body, tokens[0]).status_code == 202
    assert Submission.objects.get().actions == [put(0, 1, 1), {"agent": 1, "type": "stay"}]


def test_missing_or_unknown_token_is_401(api):
    match, _ = make_match()
    assert_error(post(api, match.pk, ACTIONS), 401, "unauthorized", "Bearer")
    assert_error(post(api, match.pk, ACTIONS, "not-a-token"), 401, "unauthorized")
    response = api.post(f"/api/matches/{match.pk}/actions", data=json.dumps(ACTIONS),
                           content_type="application/json", HTTP_AUTHORIZATION="Basic abc")
    assert_error(response, 401, "unauthorized")


def test_a_token_of_another_match_is_403(api):
    match, _ = make_match()
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    assert_error(post(api, match.pk, ACTIONS, other_tokens[0]), 403, "forbidden",
                 "another match")


def test_an_unknown_match_is_404_to_a_team_and_401_to_anyone_else(api):
    """Without a team's token a missing match reads as a private one: nothing tells
    them apart."""
    assert_error(post(api, 999, ACTIONS, "x"), 401, "unauthorized")
    _, tokens = make_match()
    assert_error(post(api, 999, ACTIONS, tokens[0]), 404, "not_found", "999")


@pytest.mark.parametrize(("body", "code", "detail"), [
    (b'{"actions": [', "malformed_json", "not valid JSON"),
    (b"\xff\xfe\x00", "malformed_json", "not valid JSON"),
    (b"[]", "invalid_actions", '{"actions": [...]}'),
    (b'{"moves": []}', "invalid_actions", '{"actions": [...]}'),
    (b'{"actions": {}}', "invalid_actions", "actions: expected a list"),
    (b'{"actions": [5]}', "invalid_actions", "actions[0]: expected an object"),
    (b'{"actions": [{"type": "stay"}]}', "invalid_actions", "actions[0].agent: missing"),
    (b'{"actions": [{"agent": "1", "type": "stay"}]}', "invalid_actions",
     "actions[0].agent: expected a whole number"),
    (b'{"actions": [{"agent": 1, "type": "jump"}]}', "invalid_actions", "actions[0].type"),
    (b'{"actions": [{"agent": 1, "type": "move", "x": 1}]}', "invalid_actions",
     "actions[0].y: missing"),
    (b'{"actions": [{"agent": 1, "type": "put", "x": 1.5, "y": 2}]}', "invalid_actions",
     "actions[0].x: expected a whole number"),
])
def test_malformed_bodies_are_400_naming_the_field(api, body, code, detail):
    match, tokens = make_match()
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 400, code, detail)
    assert Submission.objects.get().status_code == 400


def test_before_the_start_is_409(api):
    match, tokens = make_match(start_in=60)
    assert_error(post(api, match.pk, ACTIONS, tokens[0]), 409, "not_running", "starts at")


def test_after_the_strategy_step_is_409(api):
    match, tokens = make_match(start_in=-10, strategy=5, transition=3600)
    assert_error(post(api, match.pk, ACTIONS, tokens[0]), 409, "step_over", "turn 2 opens at")


def test_a_turn_already_resolved_is_409_even_inside_its_window(api):
    match, tokens = make_match()
    turn_resolve(match_id=match.pk, number=1)  # e.g. a clock ahead of this server
    assert_error(post(api, match.pk, ACTIONS, tokens[0]), 409, "step_over")


def test_a_finished_match_is_409(api):
    match, tokens = make_match(turns=1)
    turn_resolve(match_id=match.pk, number=1)
    assert_error(post(api, match.pk, ACTIONS, tokens[0]), 409, "not_running", "finished")


def test_a_body_over_64_kib_is_413_and_stored_truncated(api):
    match, tokens = make_match()
    body = json.dumps({"actions": [], "padding": "x" * 70_000}).encode()
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 413, "too_large", "64")
    stored = Submission.objects.get()
    assert stored.body_size == len(body) and bytes(stored.body) == body[:KEPT_HEAD]


def test_every_request_is_stored_before_it_is_answered(api):
    match, tokens = make_match()
    statuses = [post(api, match.pk, ACTIONS, tokens[0]).status_code,
                post(api, match.pk, b"{", tokens[1], raw=True).status_code,
                post(api, match.pk, ACTIONS, "bad").status_code,
                post(api, match.pk, ACTIONS).status_code]
    assert statuses == [202, 400, 401, 401]
    assert [s.status_code for s in Submission.objects.order_by("id")] == statuses


def test_a_wrong_content_type_is_still_read_as_json(api):
    match, tokens = make_match()
    response = post(api, match.pk, json.dumps(ACTIONS), tokens[0], content_type="text/plain",
                    raw=True)
    assert response.status_code == 202
    assert Submission.objects.get().content_type == "text/plain"


def test_rules_level_problems_are_accepted_and_judged_at_the_transition(api):
    match, tokens = make_match()
    body = {"actions": [put(7, 1, 1), move(0, 1, 1)]}  # no agent 7; agent 0 not placed
    assert post(api, match.pk, body, tokens[0]).status_code == 202
    row = turn_resolve(match_id=match.pk, number=1)
    assert [o["result"] for o in row.outcomes[0]] == ["invalid", "invalid"]


def test_refused_requests_are_filed_under_the_match_they_were_sent_to(api):
    match, _ = make_match()
    _, other_tokens = make_match(teams=("Gamma", "Delta"))
    post(api, match.pk, ACTIONS, "unknown")
    post(api, match.pk, ACTIONS, other_tokens[1])
    stored = Submission.objects.order_by("id")
    assert [(s.match_id, s.team_id, s.status_code) for s in stored] == [
        (match.pk, None, 401), (match.pk, None, 403)]


def test_the_served_application_answers_the_route_itself_and_hands_on_the_rest():
    from matches.admission import Admission
    from matches.api_asgi import AnswerEndpoint
    from matches.live.outbox import Served
    from matches.metrics import Counted
    from spectator.asgi import application

    assert isinstance(application, Served)  # its loop sends the sockets' news
    counted = application.app.application_mapping["http"]
    assert isinstance(counted, Counted)  # every request counted for /metrics, answers too
    http = counted.application
    assert isinstance(http, Admission)  # the reads' gates, which answers pass
    answers = http.application
    assert isinstance(answers, AnswerEndpoint)
    assert answers.application is not None
    assert not isinstance(answers.application, AnswerEndpoint)


async def handed_on(scope, receive, send):
    """The application behind the endpoint: answers 299 to whatever reaches it."""
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": scope["path"].encode()})


@pytest.mark.django_db
def test_other_methods_paths_and_hosts_are_handed_on():
    from matches.api_asgi import AnswerEndpoint
    from tests.api.conftest import AsgiClient

    endpoint = AnswerEndpoint(handed_on)
    client = AsgiClient(endpoint)
    match, tokens = make_match()
    route = f"/api/matches/{match.pk}/actions"
    foreign = client.post(route, json.dumps(ACTIONS), "application/json",
                          f"Bearer {tokens[0]}", host="evil.example")
    assert foreign.status_code == 299  # Django refuses the host: nothing stored
    assert client.post(f"/api/matches/{match.pk}", "{}").status_code == 299
    assert client.post(route + "/extra", "{}").status_code == 299
    assert not Submission.objects.exists()
    answered = client.post(route, json.dumps(ACTIONS), "application/json",
                           f"Bearer {tokens[0]}", host="localhost:8000")
    assert answered.status_code == 202
    assert answered.headers["content-type"] == "application/json"
    assert answered.headers["x-content-type-options"] == "nosniff"
    assert Submission.objects.get().status_code == 202


SECURITY_HEADERS = ("strict-transport-security", "x-content-type-options", "referrer-policy",
                    "cross-origin-opener-policy", "x-frame-options")
WITHOUT_FRAMES = [name for name in django_settings.MIDDLEWARE if "clickjacking" not in name]


@pytest.mark.django_db
@pytest.mark.parametrize(("changed", "secure", "forwarded"), [
    ({}, False, "https"),
    ({"X_FRAME_OPTIONS": "sameorigin", "SECURE_REFERRER_POLICY": "no-referrer, origin",
      "SECURE_CROSS_ORIGIN_OPENER_POLICY": None, "SECURE_CONTENT_TYPE_NOSNIFF": False,
      "SECURE_HSTS_SECONDS": 60, "SECURE_HSTS_PRELOAD": True}, True, "http"),
    ({"SECURE_HSTS_SECONDS": 60, "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
      "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https"),
      "MIDDLEWARE": WITHOUT_FRAMES}, False, "https"),
    ({"SECURE_HSTS_SECONDS": 60, "SECURE_REFERRER_POLICY": ["no-referrer", "origin"],
      "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https")}, True, "http"),
])
def test_the_asgi_door_sends_the_security_headers_djangos_door_sends(client, settings, changed,
                                                                    secure, forwarded):
    """Read from the settings Django's middleware reads, whatever they say (HSTS on an
    https request only, as the scheme or the proxy's header has it)."""
    from matches.api_asgi import AnswerEndpoint
    from tests.api.conftest import AsgiClient, refuse

    for name, value in changed.items():
        setattr(settings, name, value)
    match, tokens = make_match()
    sent = {"data": json.dumps(ACTIONS), "content_type": "application/json", "secure": secure,
            "HTTP_AUTHORIZATION": f"Bearer {tokens[0]}", "HTTP_X_FORWARDED_PROTO": forwarded}
    route = f"/api/matches/{match.pk}/actions"
    by_django = client.post(route, **sent)
    by_asgi = AsgiClient(AnswerEndpoint(refuse)).post(route, **sent)
    assert (by_django.status_code, by_asgi.status_code) == (202, 202)
    expected = {name: by_django.headers[name] for name in SECURITY_HEADERS
                if name in by_django.headers}
    assert expected and {name: by_asgi.headers[name] for name in SECURITY_HEADERS
                         if name in by_asgi.headers} == expected


@pytest.mark.parametrize(("body", "detail"), [
    (b'{"actions": [{"agent": NaN, "type": "stay"}]}', "NaN is not a JSON number"),
    (b'{"actions": [{"agent": ' + b"9" * 5000 + b', "type": "stay"}]}', "not valid JSON"),
    (b'{"actions": ' + b"[" * 30000 + b"]" * 30000 + b"}", "nested too deeply"),
])
def test_hostile_json_is_a_400_and_is_stored(api, body, detail):
    match, tokens = make_match()
    assert_error(post(api, match.pk, body, tokens[0], raw=True), 400, "malformed_json", detail)
    assert Submission.objects.get().status_code == 400
