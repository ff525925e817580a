"""The large reads — a match's whole state, its replay, its timeline and record — as
JSON text built once per version of the match and kept (docs/api.md, "Limits and what
is kept").

A stored turn never changes, so each turn's text is encoded once and kept
(`TURN_TEXTS`); a read of a long match joins kept texts instead of reading and encoding
every turn again. Once a match is over its whole texts never change again: they are
kept, and its turns' texts are not (they would be a second copy of them). The parts
that change with the clock (status, deadline, server time) are added per request,
outside what is kept.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from django.utils import timezone

from matches import selectors
from matches.caches import Kept, identity
from matches.models import Entrant, Match, Team, Turn
from matches.rules import rules_for
from matches.selectors import notices

TURN_TEXTS = Kept("turn texts", entries=500_000, limit=192 << 20)
WHOLE_TEXTS = Kept("whole reads", entries=256, limit=96 << 20)


def _identity(match: Match) -> tuple:
    """A match's identity (matches/caches.py: an id used again never finds the texts of
    another match) and its start."""
    return *identity(match), match.start_at.timestamp()


def estimated_size(match: Match) -> int:
    """About how many bytes a match's whole state is (a byte a cell a turn, and its
    board's cells once: bench/reads.py), known from its row alone, before any work is
    done for it (matches/admission.py, `LARGE_READ`)."""
    board = match.board
    cells = board.width * board.height if board is not None else 0
    return cells * (match.resolved_turns + 1) + 4096


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# Each form: the turn's columns it reads (None: all of them), and how it is encoded.
TURN_FORMS = {
    # timeline/1's state of a turn: the replay's and the timeline's
    "state": (None, lambda row: _dumps(row.state())),
    # the replay's words for the turn's reasons, in every language
    "reasons": (("number", "outcomes"), lambda row: _dumps(selectors.reasons_said(row.outcomes))),
    # the scores after the turn (who leads: selectors.leads)
    "scores": (("number", "scores"), lambda row: _dumps(row.scores)),
    # the API's `actions`: what the turn's actions did
    "actions": (("number", "outcomes"),
                lambda row: _dumps({"turn": row.number, "outcomes": row.outcomes})),
}
CHUNK = 100  # turns read from the database at a time: a long match's big boards are
#              never all in memory at once, only their texts


def _turn_rows(match: Match, first: int, last: int, columns: tuple[str, ...] | None = None):
    """The stored turns first..last in order, read a chunk at a time."""
    rows = Turn.objects.filter(match_id=match.pk, number__gte=first,
                               number__lte=last).order_by("number")
    return (rows if columns is None else rows.only(*columns)).iterator(chunk_size=CHUNK)


def turn_texts(match: Match, upto: int, form: str) -> list[str]:
    """The text of each stored turn 1..upto, in `form` (a key of TURN_FORMS); the
    turns not kept yet are read in one query, a chunk at a time, and kept while the
    match goes on."""
    identity, (columns, encode) = _identity(match), TURN_FORMS[form]
    texts = [TURN_TEXTS.peek((identity, form, number)) for number in range(1, upto + 1)]
    missing = [number for number, text in enumerate(texts, 1) if text is None]
    if missing:
        for row in _turn_rows(match, missing[0], missing[-1], columns):
            if texts[row.number - 1] is None:
                texts[row.number - 1] = encode(row)
                if not match.over:
                    TURN_TEXTS.put((identity, form, row.number), texts[row.number - 1])
    return [text for text in texts if text is not None]


def callout_texts(match: Match, upto: int) -> list[str]:
    """What each turn 1..upto did that mattered (its rules' `callouts`, in every
    language; "null" for a quiet turn), as JSON texts kept like the turns' own: each
    needs the state before it, so the turn before the first missing one is read too."""
    identity = _identity(match)
    texts = [TURN_TEXTS.peek((identity, "callouts", number)) for number in range(1, upto + 1)]
    missing = [number for number, text in enumerate(texts, 1) if text is None]
    if missing:
        names = [team.name for team in match.teams.all()]
        before = selectors.initial_view(match) if missing[0] == 1 else None
        for row in _turn_rows(match, missing[0] - 1, missing[-1]):
            state = row.state()
            if before is not None and texts[row.number - 1] is None:
                text = _dumps(selectors.callouts_every_language(match.game, before, state, names))
                texts[row.number - 1] = text
                if not match.over:
                    TURN_TEXTS.put((identity, "callouts", row.number), text)
            before = state
    return [text if text is not None else "null" for text in texts]


def _array(texts: list[str]) -> list[str]:
    """The pieces of one JSON array of `texts` (JSON texts), to be joined with the rest of
    a read at once: joining a long match's read piece by piece made a copy of it at each
    step (the replay's data of a 1,000-turn 64 × 64 match held 81 MiB at once for 15)."""
    pieces = ["["]
    for index, text in enumerate(texts):
        if index:
            pieces.append(",")
        pieces.append(text)
    pieces.append("]")
    return pieces


def _version(match: Match, now: datetime) -> tuple:
    return (*_identity(match), match.resolved_turns, match.ended_early, match.board_hidden(now),
            json.dumps(match.result, sort_keys=True))


# --- GET /api/matches/{id} ------------------------------------------------------------

def public_state_text(match: Match, you: int | None, now: datetime | None = None, *,
                      holder: Team | Entrant | None = None) -> bytes:
    """`selectors.public_state` plus `you`, as JSON (UTF-8): what changes only with a
    turn is kept; the match's moment (status, deadline, server time, who leads, the
    games of its match, the announcements up: everyone's and the token's `holder`'s)
    is added now."""
    now = now or timezone.now()

    def build() -> tuple[str, Any]:
        meta = selectors.match_meta(match)
        meta.pop("game_of_match")  # other games move on without this one: read per request
        state = selectors.latest_view(match)
        last = selectors.last_marks(match, state)
        actions = turn_texts(match, match.resolved_turns, "actions")
        text = "".join([_dumps({**meta, "state": state, "last": last})[1:-1], ',"actions":',
                        *_array(actions)])
        return text.encode(), state["scores"]  # kept as bytes: each answer one copy

    kept, scores = WHOLE_TEXTS.get(("api", *_version(match, now)), build)
    moment = {**selectors.timing(match, now, scores),
              "game_of_match": selectors.game_of_match(match), "you": you,
              "announcements": notices.for_holder(holder)}
    return b"".join((b"{", kept, b",", _dumps(moment)[1:].encode()))


# --- the replay page's data -------------------------------------------------------

def replay_text(match: Match, now: datetime | None = None) -> str:
    """`selectors.replay_data` as JSON text safe inside a <script> element (as Django's
    json_script writes it)."""
    now = now or timezone.now()

    def build() -> str:
        data = selectors.replay_data(match, now, states=False)
        states = [_dumps(selectors.initial_view(match)),
                  *turn_texts(match, match.resolved_turns, "state")]
        reasons = ["{}", *turn_texts(match, match.resolved_turns, "reasons")]
        hidden = match.board_hidden(now)
        callouts = ["null", *(["null"] * match.resolved_turns if hidden
                              else callout_texts(match, match.resolved_turns))]
        scores = [selectors.initial_view(match)["scores"],
                  *map(json.loads, turn_texts(match, match.resolved_turns, "scores"))]
        rules, shown = rules_for(match.game), list(map(json.loads, states))
        drawn = {"leads": selectors.leads(match, scores), "lasts": rules.last_turns(shown),
                 "swings": rules.swings(scores), "news": selectors.drawing_news_of(match, shown)}
        text = "".join([_dumps(data)[:-1], ',"states":', *_array(states), ',"reasons":',
                        *_array(reasons), ',"callouts":', *_array(callouts), ",",
                        _dumps(drawn)[1:]])
        return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")

    return WHOLE_TEXTS.get(("replay", match.status(now), *_version(match, now)), build)


# --- records and timelines of published matches -----------------------------------

def timeline_text(match: Match) -> tuple[str, str]:
    """The stored timeline/1 as JSON text, and its ETag."""
    now = timezone.now()
    version = ("timeline", *_version(match, now))

    def build() -> str:
        head = {"format": "timeline/1", "game": match.game}
        states = [_dumps(selectors.initial_view(match)),
                  *turn_texts(match, match.resolved_turns, "state")]
        tail = "" if match.result is None else ',"result":' + _dumps(match.result)
        return "".join([_dumps(head)[:-1], ',"states":', *_array(states), tail, "}"])

    return WHOLE_TEXTS.get(version, build), etag_of(version)


def record_text(match: Match) -> tuple[str, str]:
    """The match-record/1 as JSON text, and its ETag."""
    version = ("record", *_version(match, timezone.now()), match.debug_public)
    text = WHOLE_TEXTS.get(version, lambda: _dumps(selectors.match_export(match)))
    return text, etag_of(version)


def etag_of(version: tuple) -> str:
    return '"' + hashlib.sha256(repr(version).encode()).hexdigest()[:32] + '"'
