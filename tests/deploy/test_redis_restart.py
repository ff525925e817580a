"""Redis restarted in the middle of a match, its data gone: the servers' hubs join their
groups again, and viewers, a browser among them, get every turn without a reload."""

import logging
import subprocess
import threading

import pytest
from channels.layers import channel_layers
from django.db import connections

from matches.live.outbox import Outbox
from matches.models import Match
from tests.deploy.checks import (
    STEP,
    assert_every_turn_once_in_order,
    assert_resolved_once_and_replayed,
    viewers_of,
)
from tests.deploy.conftest import Player, Watching, wait_until
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM, free_port, wait_for_port
from tests.factories import make_match


class PrivateRedis:
    """A Redis of the test's own (not the one the suite shares), stopped and started at will;
    it keeps nothing across a restart."""

    def __init__(self, directory) -> None:
        self.port, self.directory = free_port(), directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)], stdout=subprocess.DEVNULL)
        wait_for_port(self.port)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def redis_server(tmp_path):
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    if server.process.poll() is None:
        server.stop()


def resolved_turns(match_id: int) -> int:
    """Read on a thread of its own: the browser's event loop forbids the ORM on this one."""
    turns = []

    def read():
        try:
            turns.append(Match.objects.get(pk=match_id).resolved_turns)
        finally:
            connections.close_all()

    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    return turns[0]


def test_viewers_and_a_page_ride_out_a_redis_restart(venue, redis_server):
    from playwright.sync_api import sync_playwright

    venue.env["REDIS_URL"] = redis_server.url
    page_port = venue.server(app="tests.deploy.static_asgi:application")[1]
    ports = [page_port, venue.server()[1]]
    venue.clock()
    venue.clock()
    for port in ports:
        wait_for_port(port)
    match, tokens = make_match(turns=10, start_in=4, **STEP)
    with Player(ports, match.pk, tokens[0]), sync_playwright() as playwright:
        watching = Watching(viewers_of(match, ports))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{page_port}/matches/{match.pk}/")
        page.evaluate("window.sameDocument = true")  # gone if the page were loaded again
        page.wait_for_function(
            "parseInt(document.querySelector('[data-turn]').textContent) >= 2", timeout=30000)
        redis_server.stop()
        down_at = resolved_turns(match.pk)
        wait_until(lambda: resolved_turns(match.pk) >= down_at + 2,
                   "two turns resolved while Redis is down")
        redis_server.start()
        page.wait_for_function(
            "document.querySelector('[data-status]').textContent.startsWith('finished')",
            timeout=60000)
        assert page.inner_text("[data-turn]").strip() == "10 / 10"
        assert page.evaluate("window.sameDocument") is True
        browser.close()
        viewers = watching.finish()
    assert down_at + 2 < match.turns
    for port in ports:  # the failure was seen, and the hubs joined their groups again
        assert "joined the group again" in venue.log(f"daphne-{port}")
    assert_every_turn_once_in_order(viewers, 10)
    assert_resolved_once_and_replayed(match)


def test_a_broadcast_while_redis_is_down_is_logged_not_raised(settings, caplog):
    settings.CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port()}/0"]}}}  # nothing listens
    channel_layers.backends.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="matches.live.outbox"):
            Outbox().ready("match.1", {"type": "turn", "turn": 3})  # (no loop serves here)
    finally:
        channel_layers.backends.clear()
    assert "broadcast of turn to match.1 failed" in caplog.text
