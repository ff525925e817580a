"""The core's modules never import a feature's: the models import Django and the rules
only (issue "Foundations 2": the one arrow back up was matches/models.py importing the
tournaments' models)."""

import ast
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "matches" / "models"


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
