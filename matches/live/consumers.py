"""Websocket consumers: join a group's hub, send the catch-up, relay events in turn order.

The turn number is the version of a match's stream. A consumer never sends a turn
twice or out of order: a turn it has already sent is dropped, and a gap (an event
lost while the channel layer restarted, say) is filled from the stored turns.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from matches import selectors
from matches.access import can_view, is_judge, team_by_authorization, visible_matches
from matches.live import messages
from matches.live.broadcast import JUDGES_LIST_GROUP, LIST_GROUP, match_group
from matches.live.hub import Hub
from matches.live.viewers import viewers_change
from matches.models import Match


def _query_int(scope, name: str) -> int | None:
    values = parse_qs(scope.get("query_string", b"").decode()).get(name)
    try:
        return int(values[0]) if values else None
    except ValueError:
        return None


def _authorization(scope) -> str:
    """A team's program may send its bearer token in the handshake, as with the API."""
    headers = dict(scope.get("headers") or ())
    return headers.get(b"authorization", b"").decode("latin-1")


@database_sync_to_async
def _may_watch(scope, match_id: int) -> bool:
    """The same rule as every page: judges, the match's own teams, everyone once public.
    A match one may not watch is answered as one that does not exist."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return False
    team = team_by_authorization(_authorization(scope))
    return can_view(scope.get("user"), match, team)


@database_sync_to_async
def _is_judge(scope) -> bool:
    return is_judge(scope.get("user"))


@database_sync_to_async
def _opening(match_id: int, since: int | None) -> list[dict]:
    match = Match.objects.select_related("board").get(pk=match_id)
    now = timezone.now()
    if since is None:
        return [messages.snapshot(match, now)]
    caught_up = messages.turns_since(match, since, now)
    if match.resolved_turns >= match.turns:
        caught_up.append(messages.end(match))
    return caught_up


@database_sync_to_async
def _turns_since(match_id: int, since: int) -> list[dict]:
    match = Match.objects.select_related("board").get(pk=match_id)
    return messages.turns_since(match, since, timezone.now())


@database_sync_to_async
def _count_viewer(match_id: int, change: int) -> int:
    return viewers_change(match_id, change)


class HubConsumer(AsyncJsonWebsocketConsumer):
    """A consumer that gets its group's events from the process's hub (`matches.live.hub`),
    through `deliver(event)`, instead of from a channel-layer channel of its own."""

    channel_layer_alias = None  # no channel of its own: the hub listens for all sockets
    hub: Hub | None = None

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:  # however the socket ended, even by an error in connect
            if self.hub is not None:
                await self.hub.leave(self)

    async def deliver(self, event):
        raise NotImplementedError


class MatchConsumer(HubConsumer):
    """/ws/matches/<id>/[?since=N]

    While the opening or a gap fill is being sent, the events that come are held in
    `backlog` and sent after it, in order.
    """

    async def connect(self):
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.sent_turn = -1
        self.counted = False
        self.ended = False
        self.backlog: list[dict] | None = []
        self.catching_up: asyncio.Task | None = None
        if not await _may_watch(self.scope, self.match_id):
            await self.close(code=4404)
            return
        # Joined before the opening is read, so that no turn falls between the two.
        self.hub = await Hub.join(match_group(self.match_id), self)
        await self.accept()
        since = _query_int(self.scope, "since")
        self.sent_turn = since if since is not None else -1
        for message in await _opening(self.match_id, since):
            await self._send_versioned(message)
        self.counted = True
        # Only the newcomer hears the count now; everyone hears it with each turn.
        await self.send_json(messages.viewers(await _count_viewer(self.match_id, +1)))
        await self._send_backlog()

    async def disconnect(self, code):
        if self.catching_up is not None:
            self.catching_up.cancel()
        if self.counted:
            await _count_viewer(self.match_id, -1)

    async def deliver(self, event):
        """An event of the match's group, from the hub, in the order the group got them."""
        if self.backlog is not None:
            self.backlog.append(event)
        elif self._after_a_gap(event):  # a lost event: fill from the stored turns first
            self.backlog = [event]
            self.catching_up = asyncio.create_task(self._send_backlog())
        else:
            await self._relay(event)

    async def resync(self):
        """The hub was out of its group for a while (Redis restarting, say): turns and the
        end may have been lost. Send what is stored after the last turn sent, holding the
        events that come meanwhile."""
        if self.backlog is None and not self.ended:
            self.backlog = []
            self.catching_up = asyncio.create_task(self._catch_up())

    async def _catch_up(self):
        try:
            for message in await _opening(self.match_id, self.sent_turn):
                await self._send_versioned(message)
        finally:
            await self._send_backlog()

    def _after_a_gap(self, event) -> bool:
        return event["kind"] == "turn" and event["turn"] > self.sent_turn + 1

    async def _send_backlog(self):
        """Send the held events in order, filling gaps from the stored turns, then let the
        hub's events through directly again."""
        try:
            while self.backlog:
                event = self.backlog.pop(0)
                if self._after_a_gap(event):
                    for missed in await _turns_since(self.match_id, self.sent_turn):
                        await self._send_versioned(missed)
                    if self._after_a_gap(event):  # still not stored: the next turn asks again
                        continue
                await self._relay(event)
        finally:
            self.backlog = None

    async def _relay(self, event):
        if self._sent_before(event["kind"], event["turn"]):
            return
        # Straight to the server's send: this runs once per socket and turn.
        await self.base_send({"type": "websocket.send", "text": event["text"]})

    async def _send_versioned(self, message):
        if message["type"] == "snapshot":
            self.sent_turn = message["turn"]
        elif self._sent_before(message["type"], message.get("turn")):
            return
        await self.send_json(message)

    def _sent_before(self, kind, turn) -> bool:
        """Whether a turn or the end was sent already; if not, it is counted as sent now."""
        if kind == "turn":
            if turn <= self.sent_turn:
                return True
            self.sent_turn = turn
        elif kind == "end":
            if self.ended:
                return True
            self.ended = True
        return False


@database_sync_to_async
def _summaries(user) -> list[dict]:
    now = timezone.now()
    return [selectors.match_summary(m, now)
            for m in selectors.recent_matches(now, visible_matches(user))]


class MatchListConsumer(HubConsumer):
    """/ws/matches/: the list of matches the viewer may see, then one summary per
    transition: judges hear of every match, everyone else of the public ones."""

    async def connect(self):
        self.held: list[dict] | None = []  # summaries that come while the list is read
        judge = await _is_judge(self.scope)
        self.hub = await Hub.join(JUDGES_LIST_GROUP if judge else LIST_GROUP, self)
        await self.accept()
        matches = await _summaries(self.scope.get("user"))
        await self.send_json(messages.matches(matches, timezone.now()))
        held, self.held = self.held, None
        for event in held:
            await self.send(text_data=event["text"])

    async def deliver(self, event):
        if self.held is not None:
            self.held.append(event)
        else:
            await self.send(text_data=event["text"])
