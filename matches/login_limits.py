"""Failed logins, counted per account and per address on the cache.

The cache is Redis when REDIS_URL is set, so every daphne process sees the same
counts; a window starts at the first failure and ends FAILURE_WINDOW later. While an
account or an address is over its limit no password is even checked, so guessing
stops there; an account that does not exist is counted like one that does, so the
answer never tells which names exist. Every login path (the judges' page, the admin)
goes through ThrottledBackend.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

FAILURE_WINDOW = 15 * 60  # seconds
ACCOUNT_LIMIT = 5
ADDRESS_LIMIT = 20


def _keys(*, username: str | None, address: str | None) -> list[tuple[str, int]]:
    name = hashlib.sha256((username or "").casefold().encode()).hexdigest()[:32]
    return [(f"login-failures:account:{name}", ACCOUNT_LIMIT),
            (f"login-failures:address:{address or '-'}", ADDRESS_LIMIT)]


def request_address(request: HttpRequest | None) -> str | None:
    return request.META.get("REMOTE_ADDR") if request is not None else None


def login_blocked(*, username: str | None, address: str | None) -> bool:
    """Whether this account or this address has used up its failures for now."""
    counts = cache.get_many([key for key, _ in _keys(username=username, address=address)])
    return any(counts.get(key, 0) >= limit
               for key, limit in _keys(username=username, address=address))


def login_failed(*, username: str | None, address: str | None) -> None:
    for key, _ in _keys(username=username, address=address):
        cache.add(key, 0, timeout=FAILURE_WINDOW)  # the window starts at the first failure
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: a new window
            cache.set(key, 1, timeout=FAILURE_WINDOW)


def login_succeeded(*, username: str) -> None:
    """The account starts afresh; its address's count stays (one success opens no door)."""
    cache.delete(_keys(username=username, address=None)[0][0])


class ThrottledBackend(ModelBackend):
    """Django's own password check, refused outright while over a limit."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs: Any):
        address = request_address(request)
        if login_blocked(username=username, address=address):
            raise PermissionDenied("too many failed logins")  # stops every backend
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            login_failed(username=username, address=address)
        else:
            login_succeeded(username=user.get_username())
        return user
