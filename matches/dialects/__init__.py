"""Dialects: other contest servers' APIs that teams' programs already speak, each served
under a path of its own as a thin adapter over the answer API (docs/dialects.md)."""

from __future__ import annotations

from django.urls import include, path

import matches.converters  # noqa: F401 (the `match` path converter)


def urlpatterns() -> list:
    """The dialects' routes (a dialect's event stream is the live layer's, over the window
    the dialect makes of a request: spectator/urls.py)."""
    from matches.dialects import kakomimasu_v1, procon30, procon31

    return [
        *kakomimasu_v1.routes(),
        path("procon30/", include(procon30.routes(procon30.Procon30()))),
        path("procon2020/", include(procon30.routes(procon30.Vietnam()))),
        path("procon31/", include(procon31.routes())),
    ]
