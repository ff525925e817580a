"""Dialects: other contest servers' APIs that teams' programs already speak, each served
under a path of its own as a thin adapter over the answer API (docs/dialects.md)."""

from __future__ import annotations

from django.urls import include, path, register_converter


class MatchId:
    """A match id in a dialect's path: at most 18 digits (a longer one names no match,
    and is a 404 before any database sees it)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(MatchId, "match")


def urlpatterns() -> list:
    from matches.dialects import kakomimasu_v1, procon30, procon31

    return [
        *kakomimasu_v1.routes(),
        path("procon30/", include(procon30.routes(procon30.Procon30()))),
        path("procon2020/", include(procon30.routes(procon30.Vietnam()))),
        path("procon31/", include(procon31.routes())),
    ]
