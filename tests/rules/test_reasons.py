"""The reasons of failed actions: written in English from templates (outcomes are data)
and said again in each screen's language (matches/rules/reasons.py, docs/formats.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.utils import translation

from matches import selectors
from matches.protocol_servers.chaser import connection  # noqa: F401  (its faults' templates)
from matches.rules import GAMES, reasons
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

VECTORS = Path(__file__).resolve().parent.parent / "conformance"
SAMPLES = {"x": "7", "y": "-1", "dx": "1", "dy": "0", "count": "3", "turn": "12",
           "number": "4", "index": "1", "letter": "B"}


def sample(template: reasons.Reason) -> str:
    """A reason written from `template`, every text value a name of an agent."""
    return template(**{name: SAMPLES.get(name, "agent 2 of team 0 (A)")
                       for name in template.fields})


@pytest.mark.parametrize("template", reasons.templates(), ids=lambda t: t.text)
def test_each_reason_is_read_back_as_the_template_that_wrote_it(template):
    found, values = reasons.parse(sample(template))
    assert found is template
    assert set(values) == set(template.fields)


@pytest.mark.parametrize("language", ["ja", "vi"])
@pytest.mark.parametrize("template", reasons.templates(), ids=lambda t: t.text)
def test_each_reason_is_said_in_the_language_with_its_values(template, language):
    written = sample(template)
    with translation.override(language):
        said = reasons.said(written)
    assert said != written, f"{template.text!r} has no {language} words"
    assert not re.search(r"[{}]", said)
    for name in template.fields:  # numbers and quotes stay; a team may be its letter alone
        if name in ("x", "y", "dx", "dy", "count", "turn", "number"):
            assert SAMPLES[name] in said


def test_names_inside_a_reason_are_said_too_and_a_list_is_joined_as_the_language_does():
    cycle = "a swap or cycle of moves (agent 0 of team 0 (A), agent 1 of team 1 (B))"
    with translation.override("ja"):
        said = reasons.said(cycle)
    assert "agent" not in said and "team" not in said
    assert "エージェント0" in said and "、" in said and "チームB" in said
    with translation.override("vi"):
        assert reasons.said("agent 5 of team 1 (B) also targets (2, 14)") == \
            "tác tử 5 của đội B cũng nhắm tới (2, 14)"


def test_a_reason_no_template_wrote_is_said_as_it_is():
    for text in ("weird thing", "{x} {0} {}", "", "agent x of team"):
        with translation.override("ja"):
            assert reasons.said(text) == text


def test_a_hostile_value_is_shown_as_sent_never_read_as_a_template():
    hostile = "unknown command '{agent} {0!r} %(x)s'"  # the quote is what a team sent
    with translation.override("vi"):
        said = reasons.said(hostile)
    assert said == "lệnh không xác định '{agent} {0!r} %(x)s'"


def test_reasons_said_names_each_reason_of_a_turn_once_in_every_language():
    outcomes = [[{"result": "conflict", "reason": "target is an obstacle"},
                 {"result": "ok"}],
                [{"result": "conflict", "reason": "target is an obstacle"},
                 {"result": "invalid", "reason": 7}]]  # not text: no words
    said = selectors.reasons_said(outcomes)
    assert list(said) == ["target is an obstacle"]
    assert said["target is an obstacle"] == {"ja": "行き先が障害物です",
                                             "vi": "ô đích là chướng ngại vật",
                                             "en": "target is an obstacle"}
    assert selectors.reasons_said(None) == {}


CASES = sorted((game, path) for game in GAMES
               for path in (VECTORS / game).glob("*.record.json"))


@pytest.mark.parametrize(("game", "path"), CASES, ids=[f"{g}/{p.name}" for g, p in CASES])
def test_every_reason_the_rules_write_comes_from_a_template(game, path):
    timeline = compute_timeline(parse_record(path.read_bytes()))
    written = {outcome["reason"] for state in timeline["states"]
               for team in state.get("outcomes") or () for outcome in team
               if outcome.get("reason")}
    unread = sorted(text for text in written if reasons.parse(text) is None)
    assert not unread, json.dumps(unread)
