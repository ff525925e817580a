"""Every page in Japanese: no word the code says in English is left on it.

A page is fetched with `?lang=ja` and its visible text read (text, and the title,
aria-label, placeholder and alt attributes; not code, kbd, pre or textarea, nor what is
marked translate="no": commands and data shown as they are, such as a team's request or
a judge's note). A word of three letters or more that the English catalogue uses
(any msgid's) and that the page's own data does not hold (team, board, match and
tournament names) is a word left untranslated. Vietnamese shares the same markings and
its catalogue is checked entry by entry (test_catalogues.py)."""

from __future__ import annotations

import gettext
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client

from matches.models import Board, Match, Team, Tournament
from matches.rules.records import parse_record
from matches.services.archive import match_import
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from tests.factories import make_match

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "conformance"
SHOWN_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt"}
AS_THEY_ARE = {"code", "kbd", "pre", "script", "style", "textarea"}
# Names and codes that stay as they are in every language.
NAMES = {"json", "csv", "png", "gif", "zip", "api", "procon", "chaser", "cool", "hot", "blokus",
         "duo", "solkoff", "kakomimasu", "u-16", "vietnam",
         "home", "end", "space", "esc",  # keys of a keyboard
         "match-record/1", "timeline/1"}  # formats
WORD = re.compile(r"[A-Za-z][\w/-]*[A-Za-z0-9]")  # match-record/1 is one word


def english_words() -> set[str]:
    words = set()
    for domain in ("django", "djangojs"):
        path = ROOT / "locale" / "ja" / "LC_MESSAGES" / f"{domain}.mo"
        with open(path, "rb") as file:
            catalog = gettext.GNUTranslations(file)._catalog
        for key in catalog:
            msgid = key[0] if isinstance(key, tuple) else key
            text = re.sub(r"<code>.*?</code>|<[^>]+>|%\(\w+\)s", " ", msgid)
            words |= {word.lower() for word in WORD.findall(text) if len(word) > 2}
    return words - NAMES


class Shown(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.opened: list[str] = []  # the elements shown as they are (nested ones too)
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in AS_THEY_ARE or ("translate", "no") in attrs:
            self.opened.append(tag)
            self.hidden += 1
            return
        if self.hidden:
            return
        self.texts += [value for name, value in attrs if name in SHOWN_ATTRIBUTES and value]

    def handle_endtag(self, tag):
        if self.opened and tag == self.opened[-1]:
            self.opened.pop()
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden and data.strip():
            self.texts.append(data.strip())


def left_in_english(html: str, data_words: set[str], vocabulary: set[str]) -> list[str]:
    shown = Shown()
    shown.feed(html)
    found = []
    for text in shown.texts:
        words = {w.lower() for w in WORD.findall(text) if len(w) > 2} - data_words
        if words & vocabulary:
            found.append(text)
    return found


def data_words() -> set[str]:
    names = [*Team.objects.values_list("name", flat=True),
             *Board.objects.values_list("name", flat=True),
             *Match.objects.values_list("title", flat=True),
             *Tournament.objects.values_list("name", flat=True)]
    return {w.lower() for name in names for w in WORD.findall(name) if len(w) > 2}


@pytest.fixture
def contest(django_user_model):
    from django.contrib.auth.models import Permission

    judge = django_user_model.objects.create_user("審判", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    record = parse_record((VECTORS / "kakomimasu" / "enclosure_ring.record.json").read_bytes())
    published = match_import(record, published=True)
    live, _ = make_match(teams=("東京", "大阪"))
    created = tournament_create(Plan(
        name="春の大会", game="kakomimasu", format="knockout", public=True,
        teams=[EntrantSpec(name, short) for name, short in
               (("奈良", "NR"), ("函館", "HK"), ("仙台", "SD"))],
        start_at=live.start_at, boards=["A-1"], turns=5))
    tournaments_tick(live.start_at)
    return {"published": published, "live": live, "tournament": created.tournament,
            "judge": judge}


def pages(contest) -> list[tuple[str, bool]]:
    """(path, as a judge)"""
    published, live = contest["published"].pk, contest["live"].pk
    tournament = contest["tournament"].pk
    return [("/", False), ("/matches/", False), (f"/matches/{live}/", False),
            (f"/matches/{published}/replay", False), (f"/matches/{live}/play", False),
            (f"/matches/{live}/embed", False), (f"/screens/?matches={live}", False),
            ("/tv/", False), ("/tournaments/", False), (f"/tournaments/{tournament}/", False),
            ("/accounts/login/", False), ("/no-such-page/", False),
            (f"/matches/{published}/audit", True), (f"/matches/{live}/audit", True),
            ("/judges/import", True), (f"/tournaments/{tournament}/", True)]


def test_every_page_is_in_japanese(contest):
    vocabulary = english_words()
    names = data_words()
    problems = []
    for path, as_judge in pages(contest):
        client = Client()
        if as_judge:
            client.force_login(contest["judge"])
        joiner = "&" if "?" in path else "?"
        answer = client.get(f"{path}{joiner}lang=ja")
        assert answer.status_code in (200, 404), path
        assert answer.headers["Content-Language"] == "ja"
        for text in left_in_english(answer.content.decode(), names, vocabulary):
            problems.append(f"{path}: {text!r}")
    assert not problems, "left in English:\n" + "\n".join(problems)


def test_the_language_is_chosen_by_address_then_cookie_then_browser(client):
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="vi,en;q=0.5").headers["Content-Language"] == "vi"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="de").headers["Content-Language"] == "en"
    chosen = client.get("/?lang=ja", HTTP_ACCEPT_LANGUAGE="vi")
    assert chosen.headers["Content-Language"] == "ja" and '<html lang="ja">' in \
        chosen.content.decode()
    # the choice is kept for the next pages, over the browser's
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="vi").headers["Content-Language"] == "ja"
    assert client.get("/?lang=xx").headers["Content-Language"] == "ja"  # not a language of ours
    page = unicodedata.normalize("NFC", client.get("/?lang=en").content.decode())
    for code, name in (("ja", "日本語"), ("vi", "Tiếng Việt"), ("en", "English")):
        # each language named in its own words, whatever the page's language
        assert f'data-language="{code}"' in page and unicodedata.normalize("NFC", name) in page


def test_the_scripts_words_come_in_the_pages_language(client):
    catalog = client.get("/jsi18n/?lang=vi").content.decode()
    assert "django.gettext" in catalog and "\\u0111" in catalog or "đ" in catalog


def test_a_verdict_is_sent_in_every_language(contest):
    from django.utils import translation

    from matches import selectors

    match = contest["published"]
    said = selectors.verdicts(match, selectors.latest_scores(match))
    assert set(said) == {"ja", "vi", "en"}
    with translation.override("en"):
        assert said["en"] == selectors.verdict(match, selectors.latest_scores(match))
    assert said["ja"] != said["en"] and said["vi"] != said["en"]


@pytest.mark.parametrize("language", ["en", "ja", "vi"])
def test_no_two_columns_of_the_standings_share_a_head(contest, language):
    """The standings' own score and a game's points as a tie-break are two columns: in
    no language may they read the same ("điểm" twice, once). (A Swiss tournament's: a
    knockout's table shows neither, its teams ranked by the round they reached.)"""
    import re

    swiss = tournament_create(Plan(
        name="秋の大会", game="kakomimasu", format="swiss", public=True,
        teams=[EntrantSpec(name, short) for name, short in
               (("奈良", "NR"), ("函館", "HK"), ("仙台", "SD"), ("大阪", "OS"))],
        start_at=contest["live"].start_at, boards=["A-1"], turns=5)).tournament
    page = Client().get(f"/tournaments/{swiss.pk}/?lang={language}").content.decode()
    heads = re.search(r"<thead><tr>(.*?)</tr></thead>", page, re.S).group(1)
    words = [re.sub(r"<[^>]+>", "", cell).strip().lower()
             for cell in re.findall(r"<th[^>]*>(.*?)</th>", heads, re.S)]
    assert len(words) >= 8 and len(set(words)) == len(words), words
