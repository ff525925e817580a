"""Why an action failed, as data and in words (docs/formats.md, "Reasons").

The rules write every reason from a `Reason`, a template with named values, in English:
an outcome's `reason` is data, stored and sent as written. A screen shows it in its
language: `said(text)` finds the template a reason was written from, translates the
template and puts the values back, each said in turn where it is itself a reason's
words (an agent's name inside "agent 5 of team 1 (B) also targets (2, 14)"). A text no
template wrote (a record from elsewhere) is said as it is.
"""

from __future__ import annotations

import re
from typing import Any

from matches.rules import words

_FIELD = re.compile(r"\{(\w+)\}")
# Values of one shape wherever they stand (whole numbers, a team's letter); any other
# value is any text.
_SHAPES = dict.fromkeys(("x", "y", "dx", "dy", "count", "turn", "number", "index"), "-?[0-9]+")
_SHAPES["letter"] = "[A-Z]"
_TEMPLATES: list[Reason] = []  # the most words first: a longer template is more telling

# Translators: what joins the items of a list inside a reason (an agent, another agent)
LIST_SEPARATOR = words.gettext_noop(", ")


class Reason:
    """One kind of reason: `text` is its English template ("{agent} also targets ({x},
    {y})"), a msgid marked with gettext_noop where it is made, so makemessages finds it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.fields = tuple(_FIELD.findall(text))
        pieces = _FIELD.split(text)  # literal, field, literal, field, …, literal
        pattern = "".join(re.escape(piece) if index % 2 == 0 else
                          f"(?P<{piece}>{_SHAPES.get(piece, '.+?')})"
                          for index, piece in enumerate(pieces))
        self.pattern = re.compile(pattern, re.DOTALL)
        self.words = len(_FIELD.sub("", text))
        _TEMPLATES.append(self)
        _TEMPLATES.sort(key=lambda template: -template.words)

    def __call__(self, **values: Any) -> str:
        """The reason as stored: the template in English with `values` in it."""
        return self.text.format(**values)

    def __repr__(self) -> str:
        return f"Reason({self.text!r})"


def templates() -> tuple[Reason, ...]:
    """Every reason's template the rules have made (the registry imports them all)."""
    return tuple(_TEMPLATES)


def parse(text: str) -> tuple[Reason, dict[str, str]] | None:
    """The template `text` was written from and its values; None when no template
    wrote it."""
    for template in _TEMPLATES:
        found = template.pattern.fullmatch(text)
        if found:
            return template, found.groupdict()
    return None


def said(text: str) -> str:
    """A stored reason in the language of the moment."""
    parsed = parse(text)
    if parsed is None:
        return text
    template, values = parsed
    shown = {name: _value(value) for name, value in values.items()}
    try:
        return words.gettext(template.text).format(**shown)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field
        return template.text.format(**shown)


def _value(value: str) -> str:
    """A value inside a reason: a reason's words said in the language of the moment (a
    list of them too, joined as the language joins a list), anything else as it is."""
    items = value.split(", ")
    if len(items) > 1 and all(parse(item) is not None for item in items):
        return words.gettext(LIST_SEPARATOR).join(said(item) for item in items)
    return said(value)
