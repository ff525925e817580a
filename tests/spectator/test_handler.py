"""The ASGI handler runs Django's middleware chain in one hop to a thread per request
(spectator/handler.py), and every middleware still does its part."""

import asyncio
import inspect

import pytest
from asgiref.sync import SyncToAsync
from django.core.handlers.asgi import ASGIHandler

from spectator.handler import OneHopASGIHandler
from tests.asgi import asgi_get


def test_the_chain_is_one_synchronous_call():
    handler = OneHopASGIHandler()
    assert not inspect.iscoroutinefunction(handler._middleware_chain)
    assert not asyncio.iscoroutinefunction(handler._middleware_chain)


@pytest.mark.django_db(transaction=True)  # (the view reads the database in its thread)
@pytest.mark.parametrize("handler, most", [(OneHopASGIHandler, 4), (ASGIHandler, None)])
async def test_a_request_hops_to_a_thread_a_few_times_not_twice_a_middleware(
        monkeypatch, handler, most):
    """Counted on Django's own handler too, so that the count is known to catch the
    hops it takes (two a middleware)."""
    hops = []
    hop = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        hops.append(getattr(self.func, "__qualname__", "?"))
        return await hop(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    status, headers, body = await asgi_get(handler(), "/", b"lang=vi")
    assert status == 200
    assert headers["x-frame-options"] == "DENY"  # the last middleware's part
    assert 'lang="vi"' in body.decode()  # the language middleware's (?lang=vi)
    if most is None:
        assert len(hops) > 12, hops
    else:
        assert len(hops) <= most, hops
