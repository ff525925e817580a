"""Websocket consumers: join a group's hub, send the catch-up, relay events in turn order.

The turn number is the version of a match's stream. A consumer never sends a turn
twice or out of order: a turn it has already sent is dropped, and a gap (an event
lost while the channel layer restarted, say) is filled from the stored turns.
What a socket sends, who may open one and its close codes: docs/live-protocol.md.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import parse_qs

from autobahn.exception import Disconnected  # daphne's: a send to a socket that closed
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from matches import metrics, selectors
from matches.access import (
    SESSION_TEAMS,
    all_as_seen,
    can_view_private,
    is_judge,
    is_public,
    session_team,
    visible_matches,
)
from matches.access.delay import delayed, due_times
from matches.admission import BYTES, client_address
from matches.live import frames, messages
from matches.live.batches import Batched
from matches.live.broadcast import JUDGES_LIST_GROUP, LIST_GROUP, late_of, match_group
from matches.live.delay import DelayLine
from matches.live.hub import Hub
from matches.live.outbox import relay_event
from matches.live.viewers import viewers_change
from matches.models import Match, Turn


def _since(scope, turns: int) -> tuple[int | None, str | None]:
    """The `?since=N` of a reconnecting client (None without one), or why it is refused:
    N is a turn of the match, 0 to its last; a turn not played yet is waited for."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    if "since" not in query:
        return None, None
    text = query["since"][-1]
    if not (text.isascii() and text.isdigit() and len(text) <= 6) or int(text) > turns:
        return None, f"since must be a turn of this match, 0 to {turns}; got {text[:20]!r}"
    return int(text), None


def _anonymous(scope) -> bool:
    """A socket no one in particular opened (no team's token, no one signed in, no team
    in its browser's session): it may watch what the public may, and no more, so its
    checks are the crowd's, made once for all its sockets at a time. Its session is
    read already (by the handshake's lookup of its user) or has no key: reading it here
    asks nothing of the database."""
    user, session = scope.get("user"), scope.get("session")
    if scope.get("team") is not None or getattr(user, "is_authenticated", True):
        return False
    if session is None:
        return True
    if session.session_key is not None and not hasattr(session, "_session_cache"):
        return False  # (not read yet: leave it to the socket's own checks)
    return not session.get(SESSION_TEAMS)


@database_sync_to_async
def _public(match_id: int) -> Match | None:
    match = Match.objects.filter(pk=match_id).first()
    return match if match is not None and is_public(match) else None


async def _public_of_crowd(match_id: int, _items: list) -> Match | None:
    return await _public(match_id)


# A crowd's sockets on a public match: its row read once for those that open at a time.
PUBLIC = Batched("public match", _public_of_crowd)


@database_sync_to_async
def _watchable(scope, match_id: int) -> Match | None:
    """The match, if this socket may watch it: the same rule as every page (judges, the
    match's own teams by their token, everyone once public). A match one may not watch
    is answered as one that does not exist."""
    match = Match.objects.filter(pk=match_id).first()
    # a public match asks nothing more (no session read for a crowd's sockets)
    if match is None or not (is_public(match) or
                             can_view_private(scope.get("user"), match, _team(scope, match))):
        return None
    return match


def _team(scope, match: Match):
    """The socket's team: its token's, or the one its browser signed in as (a page's
    session: matches/access.py, `session_team`)."""
    return scope.get("team") or session_team(SimpleNamespace(session=scope.get("session", {})),
                                             match)


@database_sync_to_async
def _watches_in_private(scope, match: Match) -> bool:
    return can_view_private(scope.get("user"), match, _team(scope, match))


@database_sync_to_async
def _is_judge(scope) -> bool:
    return is_judge(scope.get("user"))


# The most turns a catch-up sends one by one; a client further behind gets a snapshot
# instead (a reconnect with ?since=0 on a long match costs one message, not a thousand).
CATCH_UP_TURNS = 20


def _catch_up_messages(match: Match, since: int) -> list[dict]:
    """The turns after `since`, or a snapshot when they are more than CATCH_UP_TURNS."""
    now = timezone.now()
    if match.resolved_turns - since > CATCH_UP_TURNS:
        return [messages.snapshot_text(match, now)]
    return messages.turns_since(match, since, now)


def _read(match_id: int, late: bool) -> Match:
    """The match, as the socket's viewer sees it now: `late`, the public's copy behind
    its spectator delay (matches/access/delay.py)."""
    match = Match.objects.select_related("board").get(pk=match_id)
    return delayed(match) if late else match


@database_sync_to_async
def _opening(match_id: int, since: int | None, late: bool = False) -> list[dict]:
    match = _read(match_id, late)
    if since is None:
        return [messages.snapshot_text(match, timezone.now())]
    caught_up = _catch_up_messages(match, since)
    if match.over and not (caught_up and caught_up[0]["type"] == "snapshot"):
        caught_up.append(messages.end(match))
    return caught_up


async def _opening_of_crowd(key: tuple[int, int | None, bool], _items: list) -> list[dict]:
    return await _opening(*key)


# Every socket's opening, read once for those that ask at a time (by the match, their
# `since` and whether they see it late): after each of them joined its group.
OPENINGS = Batched("opening", _opening_of_crowd)


@database_sync_to_async
def _turns_since(match_id: int, since: int, late: bool = False) -> list[dict]:
    return _catch_up_messages(_read(match_id, late), since)


@database_sync_to_async
def _unseen(match_id: int) -> list[tuple[float, dict]]:
    """A delayed match's events that the public has not seen yet, each with when it
    comes to them (epoch s): a new delay line's seed (matches/live/delay.py)."""
    match = Match.objects.select_related("board").get(pk=match_id)
    late, now = late_of(match), timezone.now()
    # the soonest SEED_TURNS: a long delay of fast turns is not read at once (the turns
    # after them come as a gap, filled from the stored turns, with the first held event)
    due = {number: at for at, number in due_times(match, now)[:SEED_TURNS]}
    rows = Turn.objects.filter(match_id=match_id, number__in=list(due)).order_by("number")
    # each as it was sent then (its clocks and deadline of that moment)
    events = [(due[row.number].timestamp(),
               relay_event(messages.turn(match, row, row.resolved_at), late)) for row in rows]
    ended = match.ended_at and match.ended_at + timedelta(seconds=match.delay_s)
    if match.over and ended and ended > now:  # its end (with its last turn, or without)
        events.append((ended.timestamp(), relay_event(messages.end(match), late)))
    return events


SEED_TURNS = 600


@database_sync_to_async
def _count_viewer(match_id: int, change: int) -> int:
    return viewers_change(match_id, change)


async def _count_viewers(match_id: int, changes: list[int]) -> int:
    return await _count_viewer(match_id, sum(changes))


# Sockets counted in and out: one change of the match's count for those that come or
# go at a time, and its new count for each.
COUNTS = Batched("viewer count", _count_viewers)


class HubConsumer(AsyncJsonWebsocketConsumer):
    """A consumer that gets its group's events from the process's hub (`matches.live.hub`),
    through `deliver(event)`, instead of from a channel-layer channel of its own."""

    channel_layer_alias = None  # no channel of its own: the hub listens for all sockets
    hub: Hub | None = None
    wire = None  # daphne's connection, once accepted (live/frames.py)

    async def __call__(self, scope, receive, send):
        metrics.SOCKETS.inc()
        try:
            await super().__call__(scope, receive, send)
        except Disconnected:  # the client left while its opening was being sent: done
            pass
        finally:  # however the socket ended, even by an error in connect
            metrics.SOCKETS.dec()
            if self.hub is not None:
                await self.hub.leave(self)
            await self.ended_socket()

    async def dispatch(self, message):
        """As channels' own, without its hop to the database thread before each message
        to close that thread's stale connections (a crowd's connects queued there, each
        a hop): each database call of the consumers closes them itself, before and after
        (`database_sync_to_async`)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def receive(self, text_data=None, bytes_data=None):
        """A socket only sends (docs/live-protocol.md): what a client sends is ignored."""

    async def accept(self, subprotocol=None, headers=None):
        """A page that offered its team's token as a subprotocol (`bearer`, then the
        token: spectator/sessions.py) is answered with `bearer`, as a browser requires."""
        if subprotocol is None and "bearer" in (self.scope.get("subprotocols") or ()):
            subprotocol = "bearer"
        await super().accept(subprotocol, headers)
        self.wire = frames.connection(self.base_send)

    async def send_shared(self, message: dict):
        """Send a text many sockets send (`message["text"]`: a turn's event, an opening
        shared by a crowd): its frame is built once for all of them (live/frames.py)."""
        if self.wire is None or not frames.write(self.wire, frames.framed(message)):
            await self.base_send({"type": "websocket.send", "text": message["text"]})

    async def refuse(self, code: int, message: dict | None = None):
        """Accept, say why (an `error` message) and close with a 44xx code: unlike a
        refused handshake (HTTP 403), a client can read the code."""
        await self.accept()
        if message is not None:
            await self.send_json(message)
        await self.close(code=code)

    async def ended_socket(self):
        """Clean up after the socket, whichever way it ended."""

    async def deliver(self, event):
        raise NotImplementedError


class NoSuchSocket(HubConsumer):
    """A socket at a path that names nothing: closed with 4404 (docs/live-protocol.md)."""

    async def connect(self):
        await self.refuse(4404)


class MatchConsumer(HubConsumer):
    """/ws/matches/<id>/[?since=N]

    While the opening or a gap fill is being sent, the events that come are held in
    `backlog` and sent after it, in order.
    """

    counted = False
    late = False
    catching_up: asyncio.Task | None = None

    async def connect(self):
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.sent_turn = -1
        self.ended = False
        self.backlog: list[dict] | None = []
        if _anonymous(self.scope):  # one of the crowd: the public's rules, read for all
            match = await PUBLIC.ask(self.match_id)
            self.stays_if_private = False
        else:
            match = await _watchable(self.scope, self.match_id)
            self.stays_if_private = match is not None and await _watches_in_private(
                self.scope, match)
        if match is None:
            return await self.refuse(4404)
        # the public's socket of a match with a spectator delay sees it that far behind
        self.late = bool(match.delay_s) and not self.stays_if_private
        since, problem = _since(self.scope, match.turns)
        if problem is not None:
            return await self.refuse(4400, messages.error("bad_since", problem))
        # Joined before the opening is read, so that no turn falls between the two.
        group = match_group(self.match_id)
        self.hub = await (DelayLine.join(group, self, seed=lambda: _unseen(self.match_id))
                          if self.late else Hub.join(group, self))
        await self.accept()
        self.sent_turn = since if since is not None else -1
        sent = 0
        for message in await OPENINGS.ask((self.match_id, since, self.late)):
            sent += await self._send_versioned(message)
        if not self.stays_if_private:  # a visitor: charged to its address's byte budget
            BYTES.charge(client_address(self.scope), sent)
        count = await COUNTS.ask(self.match_id, +1)
        self.counted = True
        # Only the newcomer hears the count now; everyone hears it with each turn.
        await self.send_json(messages.viewers(count))
        await self._send_backlog()

    async def ended_socket(self):
        if self.catching_up is not None:
            self.catching_up.cancel()
        if self.counted:
            self.counted = False
            await COUNTS.ask(self.match_id, -1)

    async def deliver(self, event):
        """An event of the match's group, from the hub, in the order the group got them."""
        if event["kind"] == "withdrawn":  # a judge took the match back
            if not self.stays_if_private:
                await self.send(text_data=event["text"])
                await self.close(code=4404)
        elif self.backlog is not None:
            self.backlog.append(event)
        elif self._after_a_gap(event):  # a lost event: fill from the stored turns first
            self.backlog = [event]
            self.catching_up = asyncio.create_task(self._send_backlog())
        else:
            await self._relay(event)

    def deliver_now(self, event) -> bool:
        """`deliver` of the crowd's common case without awaiting: the next turn to a
        socket that is up to date, its shared frame written straight to the connection
        (a turn sent before is left out, as `_relay` does). False for anything else
        (another kind, a backlog or a gap to fill, a frame the connection does not take
        as it stands): the hub then awaits `deliver`."""
        if event["kind"] != "turn" or self.backlog is not None or self.wire is None:
            return False
        turn = event["turn"]
        if turn <= self.sent_turn:
            return True
        if turn > self.sent_turn + 1 or not frames.write(self.wire, frames.framed(event)):
            return False
        self.sent_turn = turn
        return True

    async def resync(self):
        """The hub was out of its group for a while (Redis restarting, say): turns and the
        end may have been lost. Send what is stored after the last turn sent, holding the
        events that come meanwhile."""
        if self.backlog is None and not self.ended:
            self.backlog = []
            self.catching_up = asyncio.create_task(self._catch_up())

    async def _catch_up(self):
        try:
            for message in await _opening(self.match_id, self.sent_turn, self.late):
                await self._send_versioned(message)
        finally:
            await self._send_backlog()

    def _after_a_gap(self, event) -> bool:
        """Whether turns are missing before this event: a turn past the next one, or an end
        past the last turn sent (that turn's event lost, the end's not: it carries the
        last turn, and comes right after it)."""
        if event["kind"] == "end":
            return event["turn"] > self.sent_turn
        return event["kind"] == "turn" and event["turn"] > self.sent_turn + 1

    async def _send_backlog(self):
        """Send the held events in order, filling gaps from the stored turns, then let the
        hub's events through directly again."""
        try:
            while self.backlog:
                event = self.backlog.pop(0)
                if self._after_a_gap(event):
                    for missed in await _turns_since(self.match_id, self.sent_turn, self.late):
                        await self._send_versioned(missed)
                    if self._after_a_gap(event):  # still not stored: the next turn asks again
                        continue
                await self._relay(event)
        finally:
            self.backlog = None

    async def _relay(self, event):
        if self._sent_before(event["kind"], event["turn"]):
            return
        # Straight to the server's send, its frame built once: this runs once per socket
        # and turn.
        await self.send_shared(event)

    async def _send_versioned(self, message) -> int:
        """Send a versioned message unless it was sent before; the characters sent."""
        if message["type"] == "snapshot":
            self.sent_turn = message["turn"]
            await self.send_shared(message)  # encoded once for everyone
            return len(message["text"])
        if self._sent_before(message["type"], message.get("turn")):
            return 0
        text = await self.encode_json(message)
        await self.send(text_data=text)
        return len(text)

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
            for m in all_as_seen(user, selectors.recent_matches(now, visible_matches(user)))]


class MatchListConsumer(HubConsumer):
    """/ws/matches/: the list of matches the viewer may see, then one summary per
    transition: judges hear of every match, everyone else of the public ones."""

    async def connect(self):
        self.held: list[dict] | None = []  # summaries that come while the list is read
        judge = await _is_judge(self.scope)
        # everyone's list hears of a delayed match's turns as late as its sockets do
        self.hub = await (Hub.join(JUDGES_LIST_GROUP, self) if judge
                          else DelayLine.join(LIST_GROUP, self))
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
