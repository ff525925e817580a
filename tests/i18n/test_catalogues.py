"""The catalogues (locale/<language>/LC_MESSAGES/{django,djangojs}.po and their .mo):
every word the code and the templates mark is in them, translated, never fuzzy, and the
compiled .mo files the server reads say what the .po files say.

The words are found as `manage.py makemessages` finds them (gettext's xgettext, which
`make test` installs from Debian's `gettext` where missing), into a scratch folder."""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
DOMAINS = ["django", "djangojs"]
CATALOGUES = [(language, domain) for language in LANGUAGES for domain in DOMAINS]
IGNORED = [".venv", "var", "tests", "bench", "deploy", "locale", ".locale-test-*"]


def tool(*command: str) -> str:
    assert shutil.which(command[0]), \
        f"{command[0]} is missing: `make test` installs Debian's gettext"
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def fresh():
    """The catalogues as makemessages makes them today from the code, in a scratch folder.
    makemessages writes a file's words to the first locale folder whose parent holds the
    file, so the scratch folder is one in the project's own folder (and skipped)."""
    scratch = ROOT / f".locale-test-{os.getpid()}"
    shutil.rmtree(scratch, ignore_errors=True)
    for language in LANGUAGES:
        (scratch / language / "LC_MESSAGES").mkdir(parents=True)
    saved, here = settings.LOCALE_PATHS, os.getcwd()
    settings.LOCALE_PATHS = [scratch]
    os.chdir(ROOT)  # makemessages reads the folder it is run in
    try:
        for domain in DOMAINS:
            call_command("makemessages", domain=domain, locale=LANGUAGES, verbosity=0,
                         ignore_patterns=IGNORED, no_obsolete=True)
    finally:
        settings.LOCALE_PATHS = saved
        os.chdir(here)
    yield scratch
    shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.parametrize("language, domain", CATALOGUES)
def test_every_marked_word_is_in_the_catalogue(fresh, language, domain):
    """msgcmp: each msgid the code and templates have is in the project's catalogue."""
    made = fresh / language / "LC_MESSAGES" / f"{domain}.po"
    kept = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    tool("msgcmp", "--use-untranslated", str(kept), str(made))


@pytest.mark.parametrize("language, domain", CATALOGUES)
def test_every_entry_is_translated_and_none_is_fuzzy(language, domain):
    kept = str(LOCALE / language / "LC_MESSAGES" / f"{domain}.po")
    tool("msgfmt", "--check", "--check-format", "-o", "/dev/null", kept)
    assert tool("msgattrib", "--untranslated", "--no-obsolete", kept) == ""
    assert tool("msgattrib", "--only-fuzzy", "--no-obsolete", kept) == ""


@pytest.mark.parametrize("language, domain", CATALOGUES)
def test_the_compiled_catalogue_says_what_the_po_says(tmp_path, language, domain):
    kept = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    compiled = tmp_path / "fresh.mo"
    tool("msgfmt", "-o", str(compiled), str(kept))
    with open(compiled, "rb") as made, open(kept.with_suffix(".mo"), "rb") as shipped:
        assert gettext.GNUTranslations(made)._catalog == \
            gettext.GNUTranslations(shipped)._catalog, \
            f"{kept.with_suffix('.mo')} is stale: run manage.py compilemessages"
