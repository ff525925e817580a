"""Failed logins, counted per account at an address and per address on the cache.

A name (in any letter case) gets ACCOUNT_LIMIT failures from one address, and an
address ADDRESS_LIMIT failures over all the names it tries. Failures from one address
never hold an account back at another, so nobody can lock a judge out by guessing
from elsewhere; a guesser is stopped at its own address. The cache is Redis when
REDIS_URL is set, so every daphne process sees the same counts; a window starts at
the first failure and ends FAILURE_WINDOW later. While over a limit no password is
even checked, so guessing stops there; an account that does not exist is counted
like one that does, so the answer never tells which names exist. Every login path
(the judges' page, the admin) goes through ThrottledBackend.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

FAILURE_WINDOW = 15 * 60  # seconds
ACCOUNT_LIMIT = 5  # failures for one name from one address
ADDRESS_LIMIT = 20  # failures from one address, whatever the names


def _pair_key(username: str | None, address: str | None) -> str:
    pair = f"{(username or '').casefold()}\n{address or '-'}"
    return f"login-failures:pair:{hashlib.sha256(pair.encode()).hexdigest()[:32]}"


def _keys(*, username: str | None, address: str | None) -> list[tuple[str, int]]:
    return [(_pair_key(username, address), ACCOUNT_LIMIT),
            (f"login-failures:address:{address or '-'}", ADDRESS_LIMIT)]


def request_address(request: HttpRequest | None) -> str | None:
    return request.META.get("REMOTE_ADDR") if request is not None else None


def login_blocked(*, username: str | None, address: str | None) -> bool:
    """Whether this name from this address, or this address, has used up its failures."""
    keys = _keys(username=username, address=address)
    counts = cache.get_many([key for key, _ in keys])
    return any(counts.get(key, 0) >= limit for key, limit in keys)


def login_failed(*, username: str | None, address: str | None) -> None:
    for key, _ in _keys(username=username, address=address):
        cache.add(key, 0, timeout=FAILURE_WINDOW)  # the window starts at the first failure
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr: a new window
            cache.set(key, 1, timeout=FAILURE_WINDOW)


def login_succeeded(*, username: str, address: str | None) -> None:
    """The account starts afresh at this address; the address's own count stays (one
    success opens no door to guessing other names)."""
    cache.delete(_pair_key(username, address))


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
            login_succeeded(username=user.get_username(), address=address)
        return user
