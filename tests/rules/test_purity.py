"""The rules are pure: importing them (and replaying a match) loads no Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rules_import_no_django():
    # Every module of the package, so that a game's module split in several stays pure.
    program = (
        "import importlib, pkgutil, sys; import matches.rules; "
        "[importlib.import_module(f'matches.rules.{m.name}') "
        "for m in pkgutil.iter_modules(matches.rules.__path__)]; "
        "print(len([m for m in sys.modules if m.startswith('matches.rules.')]), "
        "sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    modules, django = done.stdout.strip().split(" ", 1)
    assert django == "[]"
    assert int(modules) >= len(list((ROOT / "matches" / "rules").glob("[!_]*.py")))
