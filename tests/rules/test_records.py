"""match-record/1 parsing: a bad record is refused with one line naming the field."""

import json

import pytest

from matches.rules.records import RecordError, first_difference, parse_record, parse_timeline
from matches.rules.timeline import compute_timeline
from tests.factories import put, record_json


def refusal(document) -> str:
    source = json.dumps(document) if isinstance(document, dict) else document
    with pytest.raises(RecordError) as caught:
        parse_record(source)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_the_formats_example_is_well_formed():
    record = parse_record(json.dumps(record_json()))
    assert (record.game, record.agents, record.turns) == ("kakomimasu", 2, 3)
    assert len(record.actions) == 3
    assert record.teams[1] == {"name": "Beta"} and record.title == "Final, field A-1"


def test_a_record_round_trips_through_json():
    record = parse_record(json.dumps(record_json()))
    assert parse_record(json.dumps(record.to_json())) == record


def test_bad_json_is_refused():
    assert refusal('{"format": ').startswith("not valid JSON: ")
    assert refusal(b"\xff\xfe").startswith("not valid JSON: ")


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "match-record/2"}, 'format: expected "match-record/1", got "match-record/2"'),
    ({"game": "go"}, 'game: unknown game "go" (known: kakomimasu, procon2020, chaser, blokus-duo)'),
    ({"game": 7}, "game: expected a string, got the number 7"),
    ({"agents": "2"}, "agents: expected a whole number, got a string"),
    ({"agents": True}, "agents: expected a whole number, got a boolean"),
    ({"agents": 0}, "agents: 0 is outside 1..12"),
    ({"turns": 2.5}, "turns: expected a whole number, got the number 2.5"),
    ({"teams": [{"name": "Solo"}]}, "teams: expected 2 teams, got 1"),
    ({"teams": [{"name": "A"}, {}]}, "teams[1].name: missing"),
    ({"teams": [{"name": "A"}, {"name": " "}]}, "teams[1].name: empty"),
    ({"title": None}, "title: expected a string, got null"),
    ({"actions": {}}, "actions: expected a list, got an object"),
])
def test_mistyped_keys_are_named(change, message):
    assert refusal(record_json(**change)) == message


def test_missing_keys_are_named():
    for key in ("game", "board", "agents", "turns", "teams"):
        document = record_json()
        del document[key]
        assert refusal(document) == f"{key}: missing"


def sized(width, height, points):
    return {"width": width, "height": height, "points": points}


@pytest.mark.parametrize(("board", "message"), [
    (sized(2, 1, [[1, 2], [3, 4]]), "board.points: 2 rows, expected 1 (board.height)"),
    (sized(3, 2, [[1, 2, 3], [4, 5]]), "board.points[1]: 2 values, expected 3 (board.width)"),
    (sized(2, 1, [[1, 17]]), "board.points[0][1]: 17 is outside -16..16"),
    (sized(2, 1, [[-17, 0]]), "board.points[0][0]: -17 is outside -16..16"),
    (sized(2, 1, [[1, "2"]]), "board.points[0][1]: expected a whole number, got a string"),
    (sized(0, 1, [[]]), "board.width: 0 is outside 1..64"),
    ({"height": 1, "points": [[1]]}, "board.width: missing"),
    (sized(1, 1, "1"), "board.points: expected a list, got a string"),
])
def test_boards_that_do_not_match_their_size_or_range_are_refused(board, message):
    assert refusal(record_json(board=board, agents=1)) == message


def test_more_turns_of_actions_than_turns_is_refused():
    document = record_json(turns=1)
    assert refusal(document) == "actions: 3 turns of actions, but turns is 1"


def test_a_turn_needs_exactly_two_team_lists():
    document = record_json(actions=[[[put(0, 0, 0)]]])
    assert refusal(document) == "actions[0]: expected 2 team lists, got 1"
    document = record_json(actions=[[[], [], []]])
    assert refusal(document) == "actions[0]: expected 2 team lists, got 3"
    document = record_json(actions=[[[], [5]]])
    assert refusal(document) == "actions[0][1][0]: expected an object, got the number 5"


def test_an_action_with_an_unknown_agent_or_type_is_an_invalid_action_not_an_error():
    document = record_json(actions=[[[{"agent": 9, "type": "put", "x": 0, "y": 0},
                                      {"agent": 0, "type": "fly"}], []]])
    timeline = compute_timeline(parse_record(json.dumps(document)))
    outcomes = timeline["states"][1]["outcomes"][0]
    assert [o["result"] for o in outcomes] == ["invalid", "invalid"]
    assert outcomes[0]["reason"] == "there is no agent 9"


def test_result_only_once_the_match_is_over():
    unfinished = compute_timeline(parse_record(json.dumps(record_json(turns=5))))
    assert "result" not in unfinished and len(unfinished["states"]) == 4
    finished = compute_timeline(parse_record(json.dumps(record_json())))
    # A: walls on 1 and 5; B: 16 and -16; B's remove of a neutral cell is invalid
    assert finished["states"][-1]["outcomes"][1][0]["reason"] == "target is not a wall"
    assert finished["result"] == {"winner": 0, "decided_by": "total"}


def test_the_formats_example_timeline():
    timeline = compute_timeline(parse_record(json.dumps(record_json())))
    first = timeline["states"][1]
    assert first["cells"] == ["A...", "....", "..BB"]
    assert first["agents"] == [[[0, 0], None], [[3, 2], [2, 2]]]
    assert first["scores"][0] == {"wall": 1, "territory": 0, "total": 1}
    assert first["scores"][1] == {"wall": 0, "territory": 0, "total": 0}


def test_first_difference_names_the_turn_and_the_cell():
    timeline = compute_timeline(parse_record(json.dumps(record_json())))
    changed = json.loads(json.dumps(timeline))
    changed["states"][2]["cells"][1] = ".b.."
    assert first_difference(timeline, changed) == "turn 2: cell (1, 1) expected 'A', computed 'b'"
    assert first_difference(timeline, timeline) is None


def test_a_timeline_must_say_its_format():
    with pytest.raises(RecordError, match='format: expected "timeline/1"'):
        parse_timeline('{"format": "match-record/1"}')


@pytest.mark.parametrize(("source", "start"), [
    ('{"format": "match-record/1", "agents": NaN}', "not valid JSON: NaN is not a JSON number"),
    ('{"format": "match-record/1", "agents": ' + "9" * 5000 + "}", "not valid JSON: "),
    ('{"format": "match-record/1", "x": ' + "[" * 100000 + "]" * 100000 + "}",
     "not valid JSON: nested too deeply"),
])
def test_json_that_python_reads_but_a_record_must_not_be_is_refused(source, start):
    assert refusal(source).startswith(start)


def with_action(action):
    return record_json(actions=[[[put(0, 0, 0)], [action]]])


@pytest.mark.parametrize(("document", "message"), [
    (record_json(title="t\ud800"), "title: holds a lone surrogate (\\ud800 at character 1)"),
    (record_json(title="t\x00"), "title: holds a NUL character (at character 1)"),
    (record_json(teams=[{"name": "A"}, {"name": "\udfff B"}]),
     "teams[1].name: holds a lone surrogate (\\udfff at character 0)"),
    (with_action({"type": "put\ud800", "agent": 1, "x": 1, "y": 1}),
     "actions[0][1][0].type: holds a lone surrogate (\\ud800 at character 3)"),
    (with_action({"type": "put", "agent": 1, "x": 1, "y": 1, "note": ["ok", "\x00"]}),
     "actions[0][1][0].note[1]: holds a NUL character (at character 0)"),
    (with_action({"type": "put", "agent": 1, "x": 1, "y": 1, "a\ud800": 1}),
     'actions[0][1][0]["a\\ud800"]: the key holds a lone surrogate (\\ud800 at character 1)'),
])
def test_strings_that_no_utf8_text_can_hold_are_refused_naming_the_field(document, message):
    assert refusal(document) == message


def test_a_surrogate_written_as_raw_utf8_bytes_is_refused_too():
    raw = json.dumps(record_json(title="TITLE")).encode().replace(b"TITLE", b"t\xed\xa0\x80")
    assert refusal(raw) == "title: holds a lone surrogate (\\ud800 at character 1)"


@pytest.mark.parametrize(("names", "message"), [
    (["Alpha", "Alpha"], "teams[1].name: the same as teams[0].name"),
    (["Al\npha", "Beta"], "teams[0].name: holds a control character (U+000A)"),
    (["Alpha", "Be\x1b[2Jta"], "teams[1].name: holds a control character (U+001B)"),
    (["Alpha", "Be\u2028ta"], "teams[1].name: holds a control character (U+2028)"),
    (["", "Beta"], "teams[0].name: empty"),
])
def test_team_names_are_refused_as_creatematch_refuses_them(names, message):
    assert refusal(record_json(teams=[{"name": name} for name in names])) == message


def test_names_in_any_script_and_emoji_are_kept():
    names = ["チーム 北", "Équipe 🦊‍🔥"]
    record = parse_record(json.dumps(record_json(teams=[{"name": name} for name in names])))
    assert [team["name"] for team in record.teams] == names
