"""Websocket consumers: join a group, send the catch-up, relay events in turn order.

The turn number is the version of a match's stream. A consumer never sends a turn
twice or out of order: a turn it has already sent is dropped, and a gap (an event
lost while the channel layer restarted, say) is filled from the stored turns.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from matches import selectors
from matches.models import Match
from matches.services.broadcast import LIST_GROUP, match_group


def _query_int(scope, name: str) -> int | None:
    values = parse_qs(scope.get("query_string", b"").decode()).get(name)
    try:
        return int(values[0]) if values else None
    except ValueError:
        return None


@database_sync_to_async
def _load(match_id: int) -> Match | None:
    return Match.objects.select_related("board").filter(pk=match_id).first()


@database_sync_to_async
def _opening(match_id: int, since: int | None) -> list[dict]:
    match = Match.objects.select_related("board").get(pk=match_id)
    now = timezone.now()
    if since is None:
        return [selectors.snapshot(match, now)]
    messages = selectors.turn_messages_since(match, since, now)
    if match.resolved_turns >= match.turns:
        messages.append(selectors.end_message(match))
    return messages


@database_sync_to_async
def _turns_since(match_id: int, since: int) -> list[dict]:
    match = Match.objects.select_related("board").get(pk=match_id)
    return selectors.turn_messages_since(match, since, timezone.now())


@database_sync_to_async
def _count_viewer(match_id: int, change: int) -> int:
    return selectors.viewers_change(match_id, change)


class MatchConsumer(AsyncJsonWebsocketConsumer):
    """/ws/matches/<id>/[?since=N]"""

    async def connect(self):
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.group = match_group(self.match_id)
        self.sent_turn = -1
        self.counted = False
        if await _load(self.match_id) is None:
            await self.close(code=4404)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        since = _query_int(self.scope, "since")
        self.sent_turn = since if since is not None else -1
        for message in await _opening(self.match_id, since):
            await self._send_versioned(message)
        self.counted = True
        # Only the newcomer hears the count now; everyone hears it with each turn.
        await self.send_json({"type": "viewers", "count": await _count_viewer(self.match_id, +1)})

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.counted:
            await _count_viewer(self.match_id, -1)

    async def relay(self, event):
        if event["kind"] == "turn":
            if event["turn"] <= self.sent_turn:
                return
            if event["turn"] > self.sent_turn + 1:  # a lost event: fill from the stored turns
                for missed in await _turns_since(self.match_id, self.sent_turn):
                    await self._send_versioned(missed)
                return
            self.sent_turn = event["turn"]
        await self.send(text_data=event["text"])

    async def _send_versioned(self, message):
        if message["type"] == "turn":
            if message["turn"] <= self.sent_turn:
                return
            self.sent_turn = message["turn"]
        elif message["type"] == "snapshot":
            self.sent_turn = message["turn"]
        await self.send_json(message)


@database_sync_to_async
def _summaries() -> list[dict]:
    now = timezone.now()
    return [selectors.match_summary(m, now) for m in selectors.recent_matches(now)]


class MatchListConsumer(AsyncJsonWebsocketConsumer):
    """/ws/matches/: the list of matches, then one summary per transition."""

    async def connect(self):
        await self.channel_layer.group_add(LIST_GROUP, self.channel_name)
        await self.accept()
        await self.send_json({"type": "matches", "matches": await _summaries(),
                              "server_time": selectors.epoch_ms(timezone.now())})

    async def disconnect(self, code):
        await self.channel_layer.group_discard(LIST_GROUP, self.channel_name)

    async def relay(self, event):
        await self.send(text_data=event["text"])
