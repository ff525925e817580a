"""A match's title as each reader says it. An organiser's title is shown as written; a
title the server makes (a tournament's "Kosen Cup · round 2: Nara vs Hanoi", a later
game's "Final (game 2)") is kept in parts (`Match.title_parts`) and put into words in
the language of the page, screen or answer that shows it (docs/screens.md), while
`Match.title` keeps the English words for the records and exports, which are the same
for everyone. Pure: no query."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext


def tournament_parts(tournament: str, round_number: int, names: list[str],
                     replay: int = 0) -> tuple[str, dict[str, Any]]:
    """A tournament match's title in English and in parts: its `replay` is the number of
    a fixture's match played again (2 for the second), 0 for the first."""
    parts = {"tournament": tournament, "round": round_number, "teams": list(names),
             "replay": replay}
    return english(parts), parts


def game_parts(parts: dict[str, Any], title: str, number: int) -> tuple[str, dict[str, Any]]:
    """A later game's title (its number in the match, from 2), after its first game's
    parts or organiser's `title`; ("", {}) for a first game with no title."""
    if not parts and not title:
        return "", {}
    later = {**(parts or {"title": title}), "game": number}
    return english(later), later


def english(parts: dict[str, Any]) -> str:
    from django.utils import translation

    with translation.override("en"):
        return _said(parts, "")


def shown_title(match: Any) -> str:
    """The match's title in the active language."""
    parts = match.title_parts or {}
    said = _said(parts, match.title) if parts else match.title
    return said or gettext("Match %(id)s") % {"id": match.pk}


def _said(parts: dict[str, Any], title: str) -> str:
    if "tournament" in parts:
        names = [*parts.get("teams", ()), "", ""][:2]
        said = gettext("%(tournament)s · round %(round)s: %(a)s vs %(b)s") % {
            "tournament": parts["tournament"], "round": parts.get("round", ""),
            "a": names[0], "b": names[1]}
        if parts.get("replay"):
            said = gettext("%(title)s (match %(number)s)") % {"title": said,
                                                              "number": parts["replay"]}
    else:
        said = parts.get("title", title)
    if said and parts.get("game"):
        said = gettext("%(title)s (game %(number)s)") % {"title": said,
                                                         "number": parts["game"]}
    return said
