"""Property-based fuzzing of the whole HTTP API from its own OpenAPI schema.

schemathesis generates requests for every operation of /api/openapi.json, valid and
invalid (its examples, coverage and fuzzing phases), and sends them in-process to the
WSGI application: the django-ninja views. Every request to the answer route is sent
a second time, byte for byte, to the ASGI answer endpoint, which must answer alike.
Most requests are aimed at real matches with real team tokens, so the accepting path
is fuzzed too, while a clock moves the match on turn by turn. Each answer passes
schemathesis's checks (no 5xx; status, content type, headers and body as the schema
says) and every 4xx is `{"error", "detail"}`. After each operation's run the store is
consistent: every request stored once with its answer (or, past the first few of a
source's minute, counted in its tally), accepted ones with actions
that parse again from their stored body, and every match's turns equal to its replay.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
import requests
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation
from schemathesis.core.transport import Response
from werkzeug.test import EnvironBuilder

from matches.api_asgi import ROUTE, AnswerEndpoint
from matches.models import Match, RequestTally, Submission
from matches.selectors import match_verify
from matches.services.submissions import STORED_A_MINUTE, parse_actions
from matches.services.transition import turn_resolve
from tests.api.conftest import AsgiClient, refuse
from tests.factories import make_match, put

# make test fuzzes once, in its PostgreSQL pass: the examples are derandomized, so the
# other pass would send the very same requests, and PostgreSQL is the stricter store
# (its text and jsonb refuse NUL and lone surrogates that SQLite keeps).
pytestmark = pytest.mark.once_on_postgres

EXAMPLES = 450  # per operation in the fuzzing phase; the other phases add their own
# Requests each operation's run must have sent, both doors counted (each that has
# anything to vary sends 459 to 1,077; GET /api/tournaments, with nothing, 10): a run
# cut short by a filter or a health check fails instead of passing on little.
SENT_AT_LEAST = 400

# Invalid data must be refused with a 4xx; a body over the size limit is refused with
# 413 before its shape is read, which schemathesis does not count as a refusal unless told.
REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428",
            "429", "5xx"]
# The answer route documents every live game's actions (anyOf), but each match takes its
# own game's only: a Blokus Duo move is valid by the schema and rightly refused for a
# Kakomimasu match. So "valid data is accepted" is not asked of that route; its other
# checks stand, and the accepting path is fuzzed with the arena's real tokens.
schema = schemathesis.openapi.from_wsgi(
    "/api/openapi.json", get_wsgi_application(),
    config=SchemathesisConfig.from_dict({
        "checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}},
        "operations": [{"include-path": "/api/matches/{match_id}/actions",
                        "include-method": "POST",
                        "checks": {"positive_data_acceptance": {"enabled": False}}}]}))


class Arena:
    """The matches the requests are aimed at, the tokens they carry, and the clock."""

    def __init__(self, clock) -> None:
        self.clock = clock
        self.running, tokens = make_match(strategy=20, transition=1, turns=6)
        self.other, other_tokens = make_match(teams=("Gamma", "Delta"))
        self.private, _ = make_match(teams=("Hidden", "Secret"), public=False)
        self.finished, finished_tokens = make_match(teams=("Epsilon", "Zeta"), turns=1)
        AsgiClient(AnswerEndpoint(refuse)).post(
            f"/api/matches/{self.finished.pk}/actions", json.dumps({"actions": [put(0, 1, 1)]}),
            "application/json", f"Bearer {finished_tokens[0]}")
        turn_resolve(match_id=self.finished.pk, number=1)
        Match.objects.filter(pk=self.finished.pk).update(published=True)
        running, other, private, finished = (self.running.pk, self.other.pk, self.private.pk,
                                             self.finished.pk)
        # (match id, token); None keeps what schemathesis generated
        self.aims = itertools.cycle([
            (running, tokens[0]), (running, tokens[1]), (None, None), (running, tokens[0]),
            (finished, finished_tokens[1]), (running, other_tokens[0]), (private, tokens[1]),
            (running, tokens[1]), (other, None), (running, "not-a-token"), (private, None),
        ])
        self.stored = Submission.objects.count()  # what the store must hold afterwards
        self.sent, self.operation = 0, None  # requests sent, both doors counted; to what

    def aim(self, case) -> None:
        """Point a case at a match and give it a token, unless that part of the case
        is the one made invalid on purpose."""
        match_id, token = next(self.aims)
        if match_id and "match_id" in (case.path_parameters or {}) and \
                not case.meta.is_negative_at(ParameterLocation.PATH):
            case.path_parameters["match_id"] = match_id
        if token and not case.meta.is_negative_at(ParameterLocation.HEADER):
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

    def tick(self) -> None:
        """A fifth of a second on (at most ten requests a second from a token, under
        the limit), resolving each turn whose deadline passed, as the clock does."""
        self.clock.advance(0.2)
        running = Match.objects.get(pk=self.running.pk)
        for number in running.due_turns(self.clock.now()):
            turn_resolve(match_id=running.pk, number=number)

    def check_the_store(self) -> None:
        # every request stored, or counted in its source's tally past the minute's first few
        tallied = sum(max(0, tally.count - STORED_A_MINUTE)
                      for tally in RequestTally.objects.all())
        assert Submission.objects.count() + tallied == self.stored
        for submission in Submission.objects.select_related("match"):
            body = bytes(submission.body)
            assert submission.status_code and len(body) <= submission.body_size
            if submission.accepted:
                assert submission.team.match_id == submission.match_id and submission.turn
                assert parse_actions(submission.match.game, body) == submission.actions
            elif submission.status_code == 200:  # a program's own output: kept, no actions
                assert submission.detail.startswith("program output: ")
                assert submission.team and submission.actions is None and not submission.counted
            else:
                assert submission.error and submission.detail and not submission.counted
        for match in Match.objects.all():
            verdict = match_verify(match)
            assert verdict.verified, verdict.detail


@pytest.fixture
def arena(db, clock, settings):
    """The matches; as under Django's test client, connections stay open after each
    request (the test's transaction holds every request's work). After the run: the
    store is checked."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    settings.PRACTICE = "open"  # POST /api/practice makes matches: fuzzed accepting too
    try:
        arena = Arena(clock)
        yield arena
    finally:
        for signal in signals:
            signal.connect(close_old_connections)
    operation = arena.operation
    varied = any(len(part) for part in (operation.path_parameters, operation.query,
                                        operation.headers, operation.body))
    assert arena.sent >= (SENT_AT_LEAST if varied else 1), (operation.label, arena.sent)
    arena.check_the_store()


# A team's requests to its match, each stored (a practice match's making is not one).
TEAMS_REQUESTS = re.compile(r"/api/matches/[^/]*/(actions|output)$")


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          # one arena for all of an operation's requests, on purpose: the store fills up
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_fuzz_the_api(case, arena):
    arena.operation = case.operation
    arena.aim(case)
    answer = case.call_and_validate()
    answers = [answer]
    if case.method == "POST" and ROUTE.fullmatch(case.formatted_path):
        replayed = replay_on_asgi(case)
        case.validate_response(replayed)
        assert (replayed.status_code, replayed.json().get("error")) == (
            answer.status_code, answer.json().get("error"))
        answers.append(replayed)
    for each in answers:
        assert each.status_code < 500
        if 400 <= each.status_code < 500:
            body = each.json()
            assert set(body) == {"error", "detail"}, body
            assert isinstance(body["error"], str) and isinstance(body["detail"], str)
        if case.method == "POST" and TEAMS_REQUESTS.search(case.formatted_path) and \
                each.status_code not in (405, 422):
            arena.stored += 1  # on the answer routes: stored, whatever the answer
    arena.sent += len(answers)
    arena.tick()


def replay_on_asgi(case) -> Response:
    """The same request, byte for byte, sent to the ASGI answer endpoint."""
    environ = EnvironBuilder(**case.as_transport_kwargs()).get_environ()
    body, content_type = environ["wsgi.input"].read(), environ.get("CONTENT_TYPE", "")
    answer = AsgiClient(AnswerEndpoint(refuse)).post(
        case.formatted_path, body, content_type,
        HTTP_AUTHORIZATION=environ.get("HTTP_AUTHORIZATION"), host="localhost")
    sent = requests.Request("POST", f"http://localhost{case.formatted_path}", data=body,
                            headers={"Content-Type": content_type})
    return Response(answer.status_code, {name: [value] for name, value in answer.headers.items()},
                    answer.content, sent.prepare(), elapsed=0.0, verify=False)
