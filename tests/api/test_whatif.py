"""What if (docs/api.md, "What if"): from any turn of a match, the given actions and
then built-in players, computed by the same rules: for every real game of the
conformance vectors, a what-if from any turn with the rest of its own actions equals
the rules' own timeline of it; bad variations are refused in words, nothing is stored."""

import json
from pathlib import Path

import pytest

from matches.models import Match
from matches.rules.records import first_difference, parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
GAMES = ("kakomimasu", "procon2020", "chaser", "blokus-duo")


def vectors(game, count=3):
    """The game's longest vectors: (name, record, timeline)."""
    found = []
    for path in sorted((VECTORS / game).glob("*.record.json")):
        record = json.loads(path.read_text())
        timeline = json.loads(path.with_name(path.name.replace(".record", ".timeline"))
                              .read_text())
        found.append((len(record["actions"]), path.name, record, timeline))
    return [(name, record, timeline) for _, name, record, timeline in sorted(found)[-count:]]


def ask(client, match, body):
    return client.post(f"/api/matches/{match.pk}/whatif", json.dumps(body),
                       content_type="application/json")


@pytest.mark.parametrize("game", GAMES)
def test_a_whatif_with_the_matchs_own_actions_is_the_rules_own_replay(client, game):
    for name, record, timeline in vectors(game):
        match = match_import(parse_record(record), published=True)
        played = len(record["actions"])
        for branch in sorted({0, played // 2, played - 1} - {-1}):
            answer = ask(client, match, {"from_turn": branch,
                                         "turns": record["actions"][branch:]})
            assert answer.status_code == 200, (name, answer.content)
            got = answer.json()["states"]
            want = timeline["states"][branch + 1:]
            # as two timelines agree (docs/formats.md): the states, and the outcomes' keys
            # that the game's rules compare
            assert first_difference({"game": game, "states": want},
                                    {"game": game, "states": got}) is None, (name, branch)


def test_other_actions_change_the_variation_and_nothing_is_stored(client):
    name, record, timeline = vectors("kakomimasu", 1)[0]
    match = match_import(parse_record(record), published=True)
    stored = Match.objects.get(pk=match.pk).resolved_turns
    answer = ask(client, match, {"from_turn": 0, "turns": [[[], []]]}).json()
    assert len(answer["states"]) == 1 and answer["states"][0]["turn"] == 1
    assert answer["states"][0] != timeline["states"][1] or record["actions"][0] == [[], []]
    assert Match.objects.get(pk=match.pk).resolved_turns == stored


@pytest.mark.parametrize("game", ("kakomimasu", "procon2020", "blokus-duo"))
def test_built_in_players_play_on_for_either_team(client, game):
    _, record, _ = vectors(game, 1)[0]
    match = match_import(parse_record(record), published=True)
    answer = ask(client, match, {"from_turn": 0, "turns": [],
                                 "play_on": {"turns": 4, "teams": {"0": "level-2",
                                                                   "1": "level-1"}}})
    assert answer.status_code == 200, answer.content
    played = answer.json()
    assert 1 <= len(played["states"]) <= 4 and len(played["turns"]) == len(played["states"])
    assert any(actions for turn in played["turns"] for actions in turn)
    again = ask(client, match, {"from_turn": 0, "turns": played["turns"]}).json()
    assert again["states"] == played["states"]  # the link's actions give the same again


@pytest.mark.parametrize(("body", "words"), [
    ({"from_turn": -1}, "from_turn: a turn of the match"),
    ({"from_turn": "1"}, "from_turn"),
    ({"from_turn": 0, "turns": "x"}, "turns: a list"),
    ({"from_turn": 0, "turns": [[[]]]}, "turns[0]: expected 2 team lists"),
    ({"from_turn": 0, "turns": [[["x"], []]]}, "turns[0][0][0]"),
    ({"from_turn": 0, "play_on": {"turns": 9999}}, "play_on.turns"),
    ({"from_turn": 0, "play_on": {"turns": 1, "teams": {"0": "level-9"}}}, "play_on.teams.0"),
    ({"from_turn": 0, "play_on": {"turns": 1, "teams": {"2": "level-1"}}}, "play_on.teams"),
])
def test_a_variation_that_cannot_be_played_is_refused_in_words(client, body, words):
    _, record, _ = vectors("kakomimasu", 1)[0]
    match = match_import(parse_record(record), published=True)
    answer = ask(client, match, body)
    assert answer.status_code == 400 and words in answer.json()["detail"], answer.content


def test_a_chaser_variation_takes_commands_but_has_no_built_in_player(client):
    _, record, _ = vectors("chaser", 1)[0]
    match = match_import(parse_record(record), published=True)
    answer = ask(client, match, {"from_turn": 0,
                                 "play_on": {"turns": 2, "teams": {"0": "level-1"}}})
    assert answer.status_code == 400 and "own protocol" in answer.json()["detail"]


def test_a_private_match_is_nobodys_but_its_own(client):
    _, record, _ = vectors("kakomimasu", 1)[0]
    match = match_import(parse_record(record), published=False)
    assert ask(client, match, {"from_turn": 0}).status_code == 404
    assert client.post(f"/api/matches/{match.pk}/whatif", "{bad",
                       content_type="application/json").status_code == 404


def test_one_team_changes_its_move_while_the_other_plays_as_it_did(client):
    name, record, timeline = vectors("kakomimasu", 1)[0]
    match = match_import(parse_record(record), published=True)
    played = len(record["actions"])
    answer = ask(client, match, {"from_turn": 1, "turns": [[[], None]],
                                 "play_on": {"turns": played - 2,
                                             "teams": {"0": "as-played", "1": "as-played"}}})
    assert answer.status_code == 200, answer.content
    turns = answer.json()["turns"]
    assert turns[0] == [[], record["actions"][1][1]]  # team B's own move at the branch
    assert turns[1:] == record["actions"][2:]  # and both teams' afterwards


def test_a_blokus_duo_replay_has_each_players_legal_moves_after_every_turn(client):
    from matches.rules.blokus_duo_board import illegal_reason, on_board_placements
    from matches.rules.timeline import states

    _, record, timeline = vectors("blokus-duo", 1)[0]
    match = match_import(parse_record(record), published=True)
    answer = client.get(f"/api/matches/{match.pk}/analysis").json()
    assert answer["name"] == "legal moves"
    assert len(answer["series"]) == len(timeline["states"])
    positions = [state for state, _ in states(parse_record(record))]
    everywhere = on_board_placements()
    for turn in (0, len(positions) // 2, len(positions) - 1):  # counted the long way
        for team in (0, 1):
            legal = sum(1 for where in everywhere
                        if not illegal_reason(positions[turn], team, where))
            assert answer["series"][turn][team] == legal, (turn, team)
    other = match_import(parse_record(vectors("kakomimasu", 1)[0][1]), published=True)
    refused = client.get(f"/api/matches/{other.pk}/analysis")
    assert refused.status_code == 404 and refused.json()["error"] == "no_analysis"


@pytest.mark.parametrize("game", GAMES)
def test_a_variation_says_who_leads_after_each_turn_as_the_replay_does(client, game):
    """The replay draws the server's lead for a variation's turns too (rules' `lead`;
    the last by the result where the variation ends the game)."""
    from matches import selectors
    from matches.rules import rules_for
    from matches.selectors.texts import replay_text

    name, record, timeline = vectors(game, 1)[0]
    match = match_import(parse_record(record), published=True)
    played = len(record["actions"])
    answer = ask(client, match, {"from_turn": played // 2,
                                 "turns": record["actions"][played // 2:]}).json()
    rules = rules_for(game)
    assert len(answer["leads"]) == len(answer["states"])
    for state, lead in zip(answer["states"][:-1], answer["leads"], strict=False):
        assert lead == rules.lead(state["scores"])
    if "result" in answer:
        assert answer["leads"][-1] == rules.lead(answer["states"][-1]["scores"],
                                                 answer["result"])
    # the replay's own: one a state, the last by the match's result, as its text says
    data = selectors.replay_data(match)
    assert data["leads"] == json.loads(replay_text(match))["leads"]
    assert len(data["leads"]) == len(data["states"]) == played + 1
    assert data["leads"][-1]["team"] == match.result["winner"]


@pytest.mark.parametrize("game", GAMES)
def test_a_variation_says_what_each_turn_did_and_how_it_moved_the_difference(client, game):
    """The replay draws a variation's marks and swings as the server says (the rules'
    `last_turn` and `swing`), each turn from the one before, the first from the branch;
    played as the match was, they are the match's own."""
    from matches import selectors

    name, record, timeline = vectors(game, 1)[0]
    match = match_import(parse_record(record), published=True)
    played = len(record["actions"])
    branch = played // 2
    answer = ask(client, match, {"from_turn": branch,
                                 "turns": record["actions"][branch:]}).json()
    data = selectors.replay_data(match)
    assert answer["lasts"] == data["lasts"][branch + 1:]
    assert answer["swings"] == data["swings"][branch + 1:]
    assert len(data["lasts"]) == len(data["swings"]) == played + 1
    from matches.selectors.texts import replay_text  # the page's own text says the same
    text = json.loads(replay_text(match))
    assert (text["lasts"], text["swings"]) == (data["lasts"], data["swings"])
