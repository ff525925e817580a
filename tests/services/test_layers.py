"""The core's modules never import a feature's: the models import Django and the rules
only (issue "Foundations 2": the one arrow back up was matches/models.py importing the
tournaments' models). The code that makes matches asks the rules' registry, naming no
game. No module imports one that imports it back, even from inside a function (the
tournaments' runner and services did)."""

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


def module_names() -> dict[str, Path]:
    """Every module of the matches package by its dotted name."""
    names = {}
    for path in (ROOT / "matches").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imported_ours(path: Path, names: dict[str, Path]) -> set[str]:
    """The package's modules a module imports anywhere in it; `from package import
    module` counts as the module, not the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in names
                         else node.module for alias in node.names)
    return found & names.keys()


def circle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from `start` back to itself, if there is one."""
    paths = [[start]]
    seen = set()
    while paths:
        path = paths.pop()
        for name in sorted(graph[path[-1]]):
            if name == start:
                return [*path, name]
            if name not in seen:
                seen.add(name)
                paths.append([*path, name])
    return None


def test_no_module_imports_one_that_imports_it_back():
    names = module_names()
    graph = {name: imported_ours(path, names) - {name} for name, path in names.items()}
    assert graph["matches.tournaments.services"], "the scan reads no imports"
    circles = {name: circle_through(name, graph) for name in graph}
    assert not {name: path for name, path in circles.items() if path}


MAKERS = ["management/commands/demo.py", "management/commands/creatematch.py",
          "services/matches.py", "services/boards.py", "tournaments/runner.py",
          "tournaments/services.py", "boards/specs.py", "boards/saved.py"]


def test_the_code_that_makes_matches_names_no_game():
    from matches.rules import GAMES

    for name in MAKERS:
        tree = ast.parse((ROOT / "matches" / name).read_text())
        named = [node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and node.value in GAMES]
        assert not named, (name, named)
