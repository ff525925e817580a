"""Dialects: other contest servers' APIs that teams' programs already speak, each served
under a path of its own as a thin adapter over the answer API (docs/dialects.md)."""

from __future__ import annotations

import re

from django.http import HttpResponse
from django.urls import include, path

import matches.converters  # noqa: F401 (the `match` path converter)
from matches.paths import DIALECTS

ECHOED = 200  # characters of an unknown address said back
MATCH_ADDRESS = re.compile(r"/[a-z0-9]+/matches/([0-9]+)(?:/.*)?")


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


def unrouted(address: str) -> HttpResponse | None:
    """A dialect's answer, in its own words, to an address under its path that none of
    its routes takes: a match's address whose number no match can have (more digits than
    any id) is "no such match", as the dialect says it; any other, its 404. None for an
    address under no dialect's path."""
    import importlib

    address = address[:ECHOED]
    for prefix, module in DIALECTS.items():
        if address.startswith(prefix):
            found = MATCH_ADDRESS.fullmatch(address)
            return importlib.import_module(f"matches.dialects.{module}").unrouted(
                address, found[1] if found else None)
    return None
