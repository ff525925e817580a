"""The core's modules never import a feature's: the models import Django and the rules
only (issue "Foundations 2": the one arrow back up was matches/models.py importing the
tournaments' models). The code that makes matches asks the rules' registry, naming no
game."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "matches" / "models"


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module)
    return found


def test_the_models_import_django_the_rules_and_each_other_only():
    files = sorted(MODELS.glob("*.py"))
    assert {path.name for path in files} >= {"__init__.py", "play.py", "tournaments.py"}
    for path in files:
        ours = {name for name in imported_modules(path) if name.split(".")[0] == "matches"}
        assert all(name == "matches.rules" or name.startswith(("matches.rules.",
                                                                "matches.models."))
                   for name in ours), (path.name, ours)


MAKERS = ["management/commands/demo.py", "management/commands/creatematch.py",
          "services/matches.py", "services/boards.py", "tournaments/runner.py",
          "tournaments/services.py"]


def test_the_code_that_makes_matches_names_no_game():
    from matches.rules import GAMES

    for name in MAKERS:
        tree = ast.parse((ROOT / "matches" / name).read_text())
        named = [node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and node.value in GAMES]
        assert not named, (name, named)
