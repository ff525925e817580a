"""The sockets of pages that show live data besides a match's own (docs/live-protocol.md,
"Pages"): a page is read over HTTP when it opens, and its socket then says when to read
it again (`changed`, versioned) or brings what changed itself (a tournament's `line`s).

A page's version is a moment (epoch ms): a read made at or after it shows the change.
A page knows the version of what it shows (the moment it was read), so a `changed` it
already has is dropped, and one it lacks makes it read once, at that moment (the public
hears of a change once it has come to them, its spectator delay later, as its matches'
turns). A socket's first message is a `changed` too: the latest version its process
heard for the page, or, where the process has listened to the page's group for less
long than the page has been open, the moment it started listening (plus the delay): a
page read before then may have missed a change, and reads again; a crowd that opens a
page another viewer has open reads nothing more.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from channels.db import database_sync_to_async
from django.utils import timezone

from matches.access import is_judge
from matches.admission import BYTES, client_address
from matches.live import messages
from matches.live.broadcast import ROOM_GROUP, tournament_group
from matches.live.consumers import HubConsumer
from matches.live.delay import DelayLine
from matches.live.hub import Hub
from matches.models import Tournament
from matches.selectors import epoch_ms


class Heard:
    """Per process and group: since when its pages' sockets have heard every `changed`
    of the group (epoch ms), the latest version heard, and how many sockets listen."""

    _groups: dict[tuple[Any, str], Heard] = {}

    def __init__(self) -> None:
        self.since = epoch_ms(timezone.now())
        self.latest = 0
        self.members = 0

    @classmethod
    def joined(cls, group: str) -> Heard:
        key = (asyncio.get_running_loop(), group)
        heard = cls._groups.get(key)
        if heard is None:
            heard = cls._groups[key] = cls()
        heard.members += 1
        return heard

    @classmethod
    def left(cls, group: str) -> None:
        key = (asyncio.get_running_loop(), group)
        heard = cls._groups.get(key)
        if heard is not None:
            heard.members -= 1
            if heard.members <= 0:  # the group's hub goes with its last socket
                del cls._groups[key]

    def version(self, late: int) -> int:
        """The version a newcomer's page must have not to read again."""
        return max(self.latest, self.since + late)


@database_sync_to_async
def _tournament_seen(scope, tournament_id: int) -> tuple[bool, int] | None:
    """(whether the socket is a judge's, its spectator delay in ms), or None
    when this socket may not see the tournament (its page is a 404 to it)."""
    tournament = Tournament.objects.filter(pk=tournament_id).only("public", "settings").first()
    if tournament is None:
        return None
    judge = is_judge(scope.get("user"))
    if not (tournament.public or judge):
        return None
    delay = int((tournament.settings or {}).get("delay_seconds", 0) or 0) * 1000
    return judge, 0 if judge else delay


class PageConsumer(HubConsumer):
    """A page's socket: its group's `changed` notices and data, in the order they come.
    A subclass says which group and page (`opened`)."""

    page = ""
    group: str | None = None
    heard: Heard | None = None
    late = 0  # the page's spectator delay for this socket, ms
    key: int | None = None

    held: list[dict] | None = None  # events that come while the socket opens

    async def joined(self, group: str, delayed: bool) -> None:
        """Join the group (through its delay line when `delayed`), accept, and send the
        opening `changed`, then what the group said meanwhile."""
        self.held = []
        self.hub = await (DelayLine.join(group, self) if delayed else Hub.join(group, self))
        self.group, self.heard = group, Heard.joined(group)
        await self.accept()
        text = json.dumps(messages.changed(self.page, self.key, self.heard.version(self.late)))
        await self.send(text_data=text)
        BYTES.charge(client_address(self.scope), len(text))
        held, self.held = self.held, None
        for event in held:
            await self.deliver(event)

    async def ended_socket(self):
        if self.group is not None:
            Heard.left(self.group)
            self.group = None

    async def deliver(self, event):
        if event["kind"] == "changed" and self.heard is not None:
            self.heard.latest = max(self.heard.latest, event.get("version") or 0)
        if self.held is not None:
            self.held.append(event)
        else:
            await self.send(text_data=event["text"])

    async def resync(self):
        """The hub was out of its group for a while: a change may have been lost, and
        the page reads again (once what happened meanwhile has come to it)."""
        version = epoch_ms(timezone.now()) + self.late
        if self.heard is not None:
            self.heard.latest = max(self.heard.latest, version)
        await self.send_json(messages.changed(self.page, self.key, version))


class TournamentConsumer(PageConsumer):
    """/ws/tournaments/<id>/: a tournament's page. `changed` when it is to be read again,
    and each of its matches' `line` after each turn. The judges' socket hears both live;
    everyone else's behind the tournament's spectator delay (through the group's delay
    line, live/delay.py)."""

    page = "tournament"

    async def connect(self):
        self.key = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        seen = await _tournament_seen(self.scope, self.key)
        if seen is None:
            return await self.refuse(4404)
        judge, self.late = seen
        await self.joined(tournament_group(self.key, judges=judge), delayed=not judge)


@database_sync_to_async
def _judge(scope) -> bool:
    return is_judge(scope.get("user"))


class RoomConsumer(PageConsumer):
    """/ws/control/: the control room's (judges only: anyone else's is closed with 4404,
    as the room is a 404 to them). `changed` whenever the room is to be read again: a
    match's turn, hold or end, a match made, a team heard from, a question asked or
    answered, an announcement posted or taken down."""

    page = "room"

    async def connect(self):
        if not await _judge(self.scope):
            return await self.refuse(4404)
        await self.joined(ROOM_GROUP, delayed=False)
