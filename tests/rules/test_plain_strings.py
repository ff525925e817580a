"""Reading a record checks every string once, over the whole JSON text, and walks the
document (to name the field) only when that check finds something: no check is lost,
and every refusal reads exactly as the walk words it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules import checks
from matches.rules.checks import RecordError, plain_json_text, plain_strings, refuse_odd_strings
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

VECTORS = Path(__file__).resolve().parent.parent / "conformance"
BIG = VECTORS / "kakomimasu" / "random24_s42_0.record.json"


def big() -> dict:
    return json.loads(BIG.read_text())


def sources(document: dict) -> list:
    """The ways a record reaches parse_record: JSON text escaped to ASCII or not, its
    UTF-8 bytes (a lone surrogate written as CESU-8 bytes, as a hostile client may),
    and the parsed document itself."""
    plain = json.dumps(document, ensure_ascii=False)
    return [json.dumps(document), plain, plain.encode("utf-8", "surrogatepass"), document]


def refusals(document: dict) -> set[str]:
    found = set()
    for source in sources(document):
        with pytest.raises(RecordError) as caught:
            parse_record(source)
        found.add(str(caught.value))
    return found


# --- deep inside a real record --------------------------------------------------------


@pytest.mark.parametrize(("odd", "message"), [
    ("mo\x00ve", "actions[56][1][3].type: holds a NUL character (at character 2)"),
    ("mo\ud800ve", "actions[56][1][3].type: holds a lone surrogate (\\ud800 at character 2)"),
    ("move\udfff", "actions[56][1][3].type: holds a lone surrogate (\\udfff at character 4)"),
    ("\ude00\ud83d", "actions[56][1][3].type: holds a lone surrogate (\\ude00 at character 0)"),
])
def test_an_odd_string_deep_inside_an_action_is_refused_with_its_field(odd, message):
    document = big()
    document["actions"][56][1][3]["type"] = odd
    assert refusals(document) == {message}


def test_an_odd_key_deep_inside_an_action_is_refused_with_its_field():
    document = big()
    document["actions"][99][0][13]["no\x00te"] = 1
    assert refusals(document) == {
        'actions[99][0][13]["no\\u0000te"]: the key holds a NUL character (at character 2)'}
    document = big()
    document["actions"][42][1][0]["\udc00"] = [1]
    assert refusals(document) == {
        'actions[42][1][0]["\\udc00"]: the key holds a lone surrogate (\\udc00 at character 0)'}


def test_the_first_odd_string_in_document_order_is_the_one_named():
    document = big()
    document["actions"][80][0][2]["type"] = "\x00"
    document["actions"][7][1][5]["note"] = ["fine", "\ud801"]
    assert refusals(document) == {
        "actions[7][1][5].note[1]: holds a lone surrogate (\\ud801 at character 0)"}


def test_a_clean_record_is_not_walked_string_by_string(monkeypatch):
    """The whole point: one check over the text. A walk here would cost more than
    computing the match."""
    def walked(document):
        raise AssertionError("walked a clean record")

    monkeypatch.setattr(checks, "refuse_odd_strings", walked)
    for path in sorted(VECTORS.glob("*/*.record.json")):
        parse_record(path.read_bytes())
        parse_record(path.read_text())
    names = [{"name": "チーム 🦊"}, {"name": "Équipe \\ud800 (written, not a surrogate)"}]
    parse_record(json.dumps(big() | {"teams": names}))  # escaped pairs, an escaped backslash


def test_every_vector_reads_the_same_from_bytes_text_or_a_document():
    for path in sorted(VECTORS.glob("*/*.record.json")):
        document = json.loads(path.read_text())
        records = [parse_record(source) for source in sources(document)]
        assert all(record == records[0] for record in records), path.name
        assert records[0].actions == document.get("actions", [])


# --- escapes in the JSON text ---------------------------------------------------------


@pytest.mark.parametrize(("text", "plain"), [
    (r'{"a": "x"}', True),
    (r'{"a": "\u00e9\u65e5\n\t\"\/"}', True),
    (r'{"a": "\ud83d\ude00 \uD83D\uDE00"}', True),  # pairs, either case
    (r'{"a": "\\u0000 \\ud800"}', True),  # an escaped backslash, then letters
    (r'{"a": "\\\\ud800"}', True),
    (r'{"a": "\u0000"}', False),
    (r'{"\u0000": 1}', False),
    (r'{"a": "\ud800"}', False),
    (r'{"a": "\uDBFF"}', False),
    (r'{"a": "\udc00"}', False),
    (r'{"a": "\\\ud800"}', False),  # an escaped backslash, then a lone half
    (r'{"a": "\\ud83d\ude00"}', False),  # letters that look like a high half, then a low
    (r'{"a": "\ude00\ud83d"}', False),  # the halves the wrong way round
    (r'{"a": "\ud83d\ud83d\ude00"}', False),  # a lone high half before a pair
    (r'{"a": "\ud83d", "b": "\ude00"}', False),
    (r'{"a": "\u+000"}', False),  # no strict reader takes it; Python's own reads a NUL
    ('{"a": "\ud800"}', False),  # the character itself, not its escape
    ('{"a": "\ud83d\ude00"}', False),  # two halves as two characters: UTF-8 has no such text
])
def test_the_text_check_trusts_only_what_cannot_hold_an_odd_string(text, plain):
    assert plain_json_text(text) is plain


def walk_says(document) -> str | None:
    try:
        refuse_odd_strings(document)
    except RecordError as error:
        return str(error)
    return None


def checked_says(document, text=None) -> str | None:
    try:
        plain_strings(document, text)
    except RecordError as error:
        return str(error)
    return None


# Pieces of JSON string text: plain letters, escapes of all kinds (NUL, halves of pairs in
# either case, a backslash) and characters (a surrogate itself, an emoji, accents).
PIECES = ["a", "u", "d", "8", "0", "\\\\", "\\n", '\\"', "\\u0000", "\\u0041", "\\u00e9",
          "\\ud800", "\\udc00", "\\ud83d", "\\ude00", "\\uD83D", "\\uDE00", "\\uDBFF",
          "\\uDFFF", "\\u1234", "é", "日", "😀", "\ud800", "\udfff"]
json_strings = st.lists(st.sampled_from(PIECES), max_size=8).map(lambda p: '"' + "".join(p) + '"')


@st.composite
def json_texts(draw):
    """A small document in JSON text, strings drawn from the pieces above (keys too)."""
    members = draw(st.lists(st.tuples(json_strings, json_strings), min_size=1, max_size=4))
    body = ", ".join(f"{key}: [1, {value}, {{{key}: {value}}}]" for key, value in members)
    return "{" + body + "}"


@settings(max_examples=400, deadline=None)
@given(json_texts())
def test_the_text_check_never_lets_an_odd_string_through(text):
    document = json.loads(text)
    if plain_json_text(text):
        assert walk_says(document) is None
    assert checked_says(document, text) == walk_says(document)
    assert checked_says(document) == walk_says(document)  # no text: written out, checked


@settings(max_examples=200, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=20,
))
def test_a_document_without_its_text_is_refused_as_the_walk_refuses_it(document):
    assert checked_says(document) == walk_says(document)
    assert checked_says(document, json.dumps(document)) == walk_says(document)


def test_data_that_is_not_json_is_still_walked():
    assert checked_says({"a": ({"b": "\x00"},)}) is None  # a tuple: never walked, as before
    assert checked_says({"a": [{1: "\x00"}]}) == (
        'a[0]["1"]: holds a NUL character (at character 0)')
    assert checked_says({"a": [{"x": {1, 2}}, "\ud800"]}) == (
        "a[1]: holds a lone surrogate (\\ud800 at character 0)")


# --- what reading still refuses, and what it leaves to the rules --------------------


@pytest.mark.parametrize(("where", "value", "message"), [
    ((3,), {"x": 1}, "actions[3]: expected a list, got an object"),
    ((3,), [[]], "actions[3]: expected 2 team lists, got 1"),
    ((3, 1), {}, "actions[3][1]: expected a list, got an object"),
    ((3, 1, 2), 5, "actions[3][1][2]: expected an object, got the number 5"),
    ((99, 0, 0), ["put"], "actions[99][0][0]: expected an object, got a list"),
])
def test_a_bad_turn_or_action_shape_is_still_refused(where, value, message):
    document = big()
    *path, last = where
    parent = document["actions"]
    for index in path:
        parent = parent[index]
    parent[last] = value
    assert refusals(document) == {message}


def test_an_odd_action_is_still_an_invalid_outcome_and_is_echoed_as_before():
    document = big()
    odd = [{"agent": "3", "type": "move", "x": 1, "y": 1},
           {"agent": 3, "type": "fly"},
           {"agent": True, "type": "stay"},
           {"type": "put", "x": 0, "y": 0},
           {"agent": 5, "type": "put", "x": "1", "y": 0, "note": "kept out of the echo"},
           {"agent": 6, "type": "stay", "x": 1, "y": 2, "z": 3}]
    document["actions"][0][0] = odd
    timelines = [compute_timeline(parse_record(source)) for source in sources(document)]
    assert all(timeline == timelines[0] for timeline in timelines)
    outcomes = timelines[0]["states"][1]["outcomes"][0]
    assert outcomes == [
        {"agent": "3", "type": "move", "x": 1, "y": 1, "result": "invalid",
         "reason": 'there is no agent "3"'},
        {"agent": 3, "type": "fly", "result": "invalid",
         "reason": 'unknown action type "fly" (expected put, move, remove or stay)'},
        {"agent": True, "type": "stay", "result": "invalid", "reason": "there is no agent true"},
        {"type": "put", "x": 0, "y": 0, "result": "invalid", "reason": "there is no agent null"},
        {"agent": 5, "type": "put", "x": "1", "y": 0, "result": "invalid",
         "reason": "a put needs whole-number x and y"},
        {"agent": 6, "type": "stay", "x": 1, "y": 2, "result": "ok"},
    ]
    parsed = parse_record(json.dumps(document))
    assert parsed.actions[0][0] == odd  # the record keeps each action as it was sent


def test_a_parsed_document_handed_in_is_copied_not_shared():
    document = big()
    record = parse_record(document)
    assert record.actions[0][0][0] == document["actions"][0][0][0]
    assert record.actions[0][0][0] is not document["actions"][0][0][0]
