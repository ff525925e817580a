"""The embedded board at a turn is told who leads by the server (the rules' `lead` of
that turn's scores): the page draws the ▲, it does not decide it."""

import json
from pathlib import Path

import pytest

from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.django_db
CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


@pytest.mark.parametrize("vector", ["kakomimasu/random_s7_00", "blokus-duo/random_s7_00"])
def test_the_embed_at_a_turn_carries_who_leads_then(client, vector):
    record = parse_record((CONFORMANCE / f"{vector}.record.json").read_bytes())
    match = match_import(record, published=True)
    text = client.get(f"/matches/{match.pk}/embed?turn=3").content.decode()
    data = json.loads(text.split('id="fixed-turn" type="application/json">')[1]
                      .split("</script>")[0])
    assert data["lead"] == rules_for(match.game).lead(data["state"]["scores"])
