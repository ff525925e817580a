"""The project's documents: every `docs/….md` that the code, the templates, the README or
the documents themselves name exists; every link inside `docs/` leads somewhere; each game
has its rule book; and the complete examples of docs/formats.md are what the rules compute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from matches.rules import GAMES
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CODE_FOLDERS = ("matches", "spectator", "static", "templates", "bench", "tests")
CODE_SUFFIXES = {".py", ".js", ".html", ".md"}
# Not ours to scan: the virtualenv, run-time state, the vectors copied unchanged, and this
# file (whose own mentions would make the scan find what it looks for).
SKIPPED = {ROOT / ".venv", ROOT / "var", ROOT / ".git", ROOT / "tests" / "conformance",
           Path(__file__).resolve()}

# A docs path ending in .md, at the start of a word or after `../` (a relative citation),
# but not inside another folder's path (the shared folder's own docs, say).
CITATION = re.compile(r"(?:(?<![\w/.-])|(?<=\.\./))(docs/[\w./-]*?\.md)\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _walk(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.iterdir()):
        if path in SKIPPED or path.name in ("__pycache__", "node_modules"):
            continue
        if path.is_dir():
            yield from _walk(path)
        else:
            yield path


def citing_files() -> list[Path]:
    """The code, the templates and the folders' READMEs, the README, and the documents."""
    found = [ROOT / "README.md"]
    for name in CODE_FOLDERS:
        if (ROOT / name).is_dir():
            found += [p for p in _walk(ROOT / name) if p.suffix in CODE_SUFFIXES]
    if DOCS.is_dir():
        found += [p for p in _walk(DOCS) if p.suffix == ".md"]
    return found


def citations() -> dict[str, list[str]]:
    """Each cited `docs/….md` path, with the places (file:line) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(ROOT)}:{line}"
            cited.setdefault(match.group(1), []).append(where)
    return cited


CITED = citations()


def test_the_code_cites_documents():
    """The scan finds the citations it is meant to check (it cannot pass on nothing)."""
    assert "docs/formats.md" in CITED
    for game in GAMES:
        assert f"docs/rules/{game}.md" in CITED, f"nothing cites the rules of {game}"


@pytest.mark.parametrize("cited", sorted(CITED))
def test_every_cited_document_exists(cited):
    places = ", ".join(CITED[cited])
    assert (ROOT / cited).is_file(), f"{cited} is cited ({places}) but does not exist"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_its_rule_book(game):
    assert (DOCS / "rules" / f"{game}.md").is_file()


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", plain).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(heading) for heading in HEADING.findall(text)}


def broken_link(source: Path, target: str) -> str | None:
    """Why a link of a document leads nowhere, or None when it resolves."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
        return None
    name, _, anchor = target.partition("#")
    place = (source.parent / name).resolve() if name else source
    if not place.exists():
        return f"{name} does not exist"
    if anchor and place.suffix == ".md" and anchor not in anchors(place):
        return f"{place.relative_to(ROOT)} has no heading #{anchor}"
    return None


def test_every_link_in_the_documents_resolves():
    assert DOCS.is_dir(), "docs/ is missing"
    broken = []
    for path in (p for p in _walk(DOCS) if p.suffix == ".md"):
        text = FENCE.sub("", path.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            problem = broken_link(path, target)
            if problem:
                broken.append(f"{path.relative_to(ROOT)}: ({target}): {problem}")
    assert not broken, "\n".join(broken)


def format_examples() -> list[tuple[dict, dict]]:
    """The (record, timeline) pairs of docs/formats.md, in the order they are shown."""
    blocks = [json.loads(block) for block in
              JSON_BLOCK.findall((DOCS / "formats.md").read_text(encoding="utf-8"))]
    records = [b for b in blocks if b.get("format") == "match-record/1"]
    timelines = [b for b in blocks if b.get("format") == "timeline/1"]
    assert len(records) == len(timelines), "every example record is followed by its timeline"
    return list(zip(records, timelines, strict=True))


def test_formats_shows_a_complete_example_of_every_game():
    assert sorted(record["game"] for record, _ in format_examples()) == sorted(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_a_formats_example_is_what_the_rules_compute(game):
    record, timeline = next((r, t) for r, t in format_examples() if r["game"] == game)
    assert timeline["game"] == game
    assert compute_timeline(parse_record(record)) == timeline
