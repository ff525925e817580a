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
