"""The screens' shared modules (static/matches/*.js and the parts in its sub-folders)
know no game: what a game draws, words or plays is in its own module
(static/matches/games/<game>.js), which they ask through the registry (games/index.js)."""

import re
from pathlib import Path

import pytest

from matches.rules import GAME_CHOICES

STATIC = Path(__file__).resolve().parents[1] / "static" / "matches"
SHARED = sorted(path for path in STATIC.rglob("*.js") if path.parent.name != "games")
# Each game's id and the first word of its name, and words only one game uses.
GAME_WORDS = sorted({word for game, title in GAME_CHOICES for word in (game, title.split()[0])}
                    | {"treasure", "territory", "Cool", "Hot"})


def code_of(path: Path) -> str:
    """The module without its comments (a comment may name a game as an example)."""
    return re.sub(r"//.*$", "", path.read_text(), flags=re.M)


def test_the_shared_modules_are_found():
    names = {str(path.relative_to(STATIC)) for path in SHARED}
    assert {"board.js", "play.js", "replay.js", "venue.js", "venue/cards.js"} <= names


@pytest.mark.parametrize("path", SHARED, ids=lambda path: str(path.relative_to(STATIC)))
def test_a_shared_module_names_no_game(path):
    code = code_of(path)
    named = [word for word in GAME_WORDS if re.search(rf"\b{re.escape(word)}\b", code, re.I)]
    module = path.relative_to(STATIC)
    assert named == [], f"{module} names {named}: that belongs in static/matches/games/"


def test_a_game_module_is_where_its_words_are():
    # the check above finds what it looks for: the games' own modules name them
    assert re.search(r"\btreasure\b", code_of(STATIC / "games" / "procon2020.js"))
    assert re.search(r"\bchaser\b", code_of(STATIC / "games" / "chaser.js"), re.I)
