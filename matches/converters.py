"""The `match` path converter: a match id of at most 18 digits. A longer one names no
match and is a 404 before any database sees it (none can hold it)."""

from django.urls import register_converter


class MatchId:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(MatchId, "match")
