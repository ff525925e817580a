"""Filters of the judges' pages and the lists: numbers with a real minus sign, and raw
JSON bodies that a browser may wrap only where JSON has punctuation."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from matches.rules import words

register = template.Library()

# After these a long body may wrap: never inside a number, a word or a string's letters.
_BREAK_AFTER = re.compile(r"([,:\[])")


@register.filter
def json_breaks(text: str) -> SafeString:
    """The text escaped, with a wrapping opportunity (<wbr>) after each comma, colon and
    opening bracket; spaces wrap as usual in `white-space: pre-wrap`."""
    return mark_safe(_BREAK_AFTER.sub(r"\1<wbr>", escape(text)))  # noqa: S308 (escaped)


@register.filter
def minus(value: object) -> str:
    """A whole number with a real minus sign (−3), as the screens write it."""
    return words.number(value) if isinstance(value, int) else str(value)
