"""The layers import downward only. Who may see what (matches/access/: tokens, visibility,
the spectator delay's copy) sits below the reads: the selectors, views, API, sockets and
dialects call it, and it calls none of them (it imported selectors/delay.py while
selectors/debug.py imported it: a loop between the two packages)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ABOVE_ACCESS = ("matches.selectors", "matches.views", "matches.api", "matches.live",
                "matches.dialects", "matches.services", "matches.tournaments")


def imported(path: Path) -> set[str]:
    """The modules a file imports, at its top or inside its functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def test_who_may_see_imports_no_layer_above_it():
    files = sorted((ROOT / "matches" / "access").glob("*.py"))
    assert {path.name for path in files} >= {"__init__.py", "delay.py"}
    upward = {f"{path.name}: {name}" for path in files for name in imported(path)
              if name.startswith(ABOVE_ACCESS)}
    assert not upward


def test_the_delayed_copy_has_one_home():
    assert not (ROOT / "matches" / "selectors" / "delay.py").exists()
    users = [path for path in (ROOT / "matches").rglob("*.py")
             if "matches.selectors.delay" in path.read_text()]
    assert not users


def test_no_dialect_imports_the_live_layer():
    # A dialect is its query language and its JSON; the Kakomimasu v1 event stream is the
    # live layer's (live/streams.py) over the window the dialect makes of a request.
    upward = {f"{path.name}: {name}" for path in (ROOT / "matches" / "dialects").glob("*.py")
              for name in imported(path) if name.startswith("matches.live")}
    assert not upward
