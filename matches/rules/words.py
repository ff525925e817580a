"""The words the rules give people (a verdict, a score's parts, a panel's lines) in the
language of the moment, without the rules knowing Django: the rules call `gettext` and
`ngettext` here, which say the English words until the app plugs in its translations
(matches/apps.py). Named as xgettext knows them, so `makemessages` finds every msgid.
Reasons in outcomes are data (the timeline format's) and stay English.
"""

from __future__ import annotations

from collections.abc import Callable

_gettext: Callable[[str], str] = lambda text: text  # noqa: E731
_ngettext: Callable[[str, str, int], str] = (  # noqa: E731
    lambda singular, plural, count: singular if count == 1 else plural)


def gettext(text: str) -> str:
    return _gettext(text)


def ngettext(singular: str, plural: str, count: int) -> str:
    return _ngettext(singular, plural, count)


def gettext_noop(text: str) -> str:
    """A msgid said later (a class's table of words): `gettext(value)` where it is shown."""
    return text


# The parts of every game's score, as people read them.
PARTS = {"total": gettext_noop("total"), "wall": gettext_noop("wall"),
         "territory": gettext_noop("territory"), "tile": gettext_noop("tile"),
         "area": gettext_noop("area"), "treasure": gettext_noop("treasure"),
         "items": gettext_noop("items"), "remaining": gettext_noop("remaining"),
         "games": gettext_noop("games"), "points": gettext_noop("points")}


def number(value: int) -> str:
    """A whole number as every screen writes it: with a real minus sign (−3), never a
    hyphen (static/matches/venue/words.js's `signed` is its twin)."""
    return f"\u2212{-value}" if value < 0 else str(value)


def part(name: str) -> str:
    """A score part's name in the language of the moment ("wall": 城壁)."""
    return gettext(PARTS[name]) if name in PARTS else name


def use(translate: Callable[[str], str], translate_plural: Callable[[str, str, int], str]) -> None:
    """Say the rules' words through these (the app's translations)."""
    global _gettext, _ngettext
    _gettext, _ngettext = translate, translate_plural
