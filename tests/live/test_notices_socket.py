"""The judges' announcements to everyone reach every live screen: in the snapshot a
socket opens with, and as a `notices` message when one is posted or taken down; one to
a team alone never reaches a screen (docs/live-protocol.md, `notices`)."""

import pytest
from asgiref.sync import sync_to_async

from matches.services.notices import announcement_post, announcement_take_down
from tests.factories import make_match
from tests.live.clients import browser_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]


async def next_of(socket, wanted):
    while True:
        message = await socket.receive_json_from(timeout=3)
        if message["type"] == wanted:
            return message


async def test_a_screen_is_told_the_announcements_as_they_change():
    match, _ = await sync_to_async(make_match)()
    await sync_to_async(announcement_post)(text="Welcome", judge="judy")
    socket = browser_socket(f"/ws/matches/{match.pk}/")
    assert (await socket.connect())[0]
    snapshot = await next_of(socket, "snapshot")
    assert [notice["text"] for notice in snapshot["notices"]] == ["Welcome"]
    team = await sync_to_async(lambda: match.teams.get(index=0))()
    await sync_to_async(announcement_post)(text="Alpha: call the desk", judge="judy", to=team)
    lunch = await sync_to_async(announcement_post)(text="Lunch at 12:30", judge="judy")
    told = await next_of(socket, "notices")  # the team's post sent none
    assert [notice["text"] for notice in told["notices"]] == ["Lunch at 12:30", "Welcome"]
    await sync_to_async(announcement_take_down)(announcement_id=lunch.pk, judge="judy")
    told = await next_of(socket, "notices")
    assert [notice["text"] for notice in told["notices"]] == ["Welcome"]
    assert "Alpha: call the desk" not in str(told)
    await socket.disconnect()
