"""A finished match's result in words, in every language the site speaks (a game's
and, where it decides one, its match's), a game's result once its match is decided, and
the reasons of a turn's failed actions in every language."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from matches.caches import Kept, identity
from matches.models import Match
from matches.rules import reasons, rules_for
from matches.selectors.records import games_in_order, match_games

log = logging.getLogger(__name__)

# A finished match's verdict in every language, per (match's identity, its last turn,
# its result): every snapshot and summary of it carries them.
_VERDICTS = Kept("verdicts", entries=1024)


def verdicts_now(match: Match, scores: list[dict[str, int]]) -> dict[str, Any]:
    """`verdict` in the active language and `verdicts` in every one (None before the
    end)."""
    if match.result is None:
        return {"verdict": None, "verdicts": None}
    key = (identity(match), match.resolved_turns, repr(match.result), repr(scores))
    said = _VERDICTS.get(key, lambda: verdicts(match, scores))
    language = translation.get_language() or settings.LANGUAGE_CODE
    return {"verdict": said.get(language[:2]) or verdict(match, scores), "verdicts": said}


def final_result(match: Match, scores: list[dict[str, int]],
                 game_result: dict[str, Any]) -> dict[str, Any]:
    """A game's result as its rules decide it, and, when this game decides a match of
    several, what the match's result adds (the rules' `match_result`: Procon 2020's
    totals summed in place of the game's winner; a best of three's `match`)."""
    first = match.first_game or match
    if first.match_games == 1:
        return game_result
    rules = rules_for(match.game)
    games = match_games(first)
    this = games.index(match)
    finals = games_in_order(games[:this], this, rules) + [(scores, game_result)]
    return {**game_result, **rules.match_result(finals, first.match_games)}


def every_language(build: Callable[[], Any]) -> dict[str, Any]:
    """What `build` says in each of the site's languages ({"ja", "vi", "en"}): the words a
    message carries to every viewer of a match, each screen showing its own language."""
    said = {}
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            said[code] = build()
    return said


def reasons_said(outcomes: Iterable[Iterable[dict[str, Any]]] | None) -> dict[str, dict[str, str]]:
    """Each reason of a turn's outcomes (English data, docs/formats.md) in every language:
    {reason: {"ja", "vi", "en"}}, for a screen to show in its own (live messages and the
    replay's data carry it beside the outcomes)."""
    found = {outcome["reason"] for team in outcomes or () for outcome in team
             if isinstance(outcome.get("reason"), str) and outcome["reason"]}
    return {reason: _reason_said(reason) for reason in sorted(found)}


@functools.lru_cache(maxsize=4096)  # a reason says the same words for ever
def _reason_said(reason: str) -> dict[str, str]:
    return every_language(lambda: reasons.said(reason))


def callouts_every_language(game: str, before: Mapping[str, Any], state: Mapping[str, Any],
                  names: Sequence[str]) -> dict[str, list[dict[str, Any]]] | None:
    """What the game's rules find notable in the turn from `before` to `state`, in every
    language; None for a quiet turn (or one its rules cannot read: words about a turn
    never hold up the turn, a replay or a socket)."""
    rules = rules_for(game)
    return callouts_unless_quiet(every_language(
        lambda: callouts_this_language(rules, before, state, names)))


def callouts_this_language(rules, before: Mapping[str, Any], state: Mapping[str, Any],
                  names: Sequence[str]) -> list[dict[str, Any]] | None:
    """The turn's callouts in the language of the moment (None: the rules could not
    read it, logged)."""
    try:
        return rules.callouts(before, state, names)
    except Exception:
        log.exception("callouts of a %s turn %s", rules.game, state.get("turn"))
        return None


def callouts_unless_quiet(said: dict[str, list[dict[str, Any]] | None]
                          ) -> dict[str, list[dict[str, Any]]] | None:
    """`callouts_this_language` of every language as `callouts_every_language` gives
    them: None for a quiet turn or one the rules could not read."""
    if any(callouts is None for callouts in said.values()) or not any(said.values()):
        return None
    return said


def verdicts(match: Match, scores: list[dict[str, int]]) -> dict[str, str] | None:
    """`verdict` in every language; None before the end."""
    if match.result is None:
        return None
    return every_language(lambda: verdict(match, scores))


def verdict(match: Match, scores: list[dict[str, int]]) -> str | None:
    """The end of a match in plain words ("Alpha wins by 34 points"); None before it."""
    if match.result is None:
        return None
    names = [team.name for team in match.teams.all()]
    rules = rules_for(match.game)
    words = rules.verdict(match.result, scores, names)
    of_match = rules.match_verdict(match.result, names)
    if of_match:
        return f"{words} · {of_match}"
    first = match.first_game or match
    if first.match_games > 1 and "match" not in match.result and \
            match.result.get("decided_by") != "void":
        # a game that does not end its match: its words are the game's, and say so
        games = match_games(first)
        number = next((index for index, game in enumerate(games, 1) if game.pk == match.pk), 1)
        return gettext("Game %(number)s of %(games)s: %(said)s") % {
            "number": number, "games": first.match_games, "said": words}
    return words
