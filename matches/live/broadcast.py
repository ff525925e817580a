"""Fan-out of committed events to the channel-layer groups that sockets listen on."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from matches.live import messages
from matches.live.viewers import viewers_news
from matches.models import Match, Turn
from matches.selectors.notices import for_everyone

log = logging.getLogger(__name__)

LIST_GROUP = "matches"  # summaries of the matches anyone may watch
JUDGES_LIST_GROUP = "matches.judges"  # summaries of every match


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def relay_event(message: dict[str, Any], late: int = 0, text: str | None = None
                ) -> dict[str, Any]:
    """The channel-layer event for a message: its JSON text (`text`, when the caller
    has encoded it) is encoded once, for every socket, with the message's kind and
    version alongside for the consumers' ordering; `late`, the spectator delay (ms)
    after which the public may see it (live/delay.py)."""
    event = {"type": "relay", "kind": message["type"], "turn": message.get("turn"),
             "text": text or json.dumps(message, separators=(",", ":"))}
    if late:
        event["late"] = late
    return event


def late_of(match: Match) -> int:
    """The ms after which the public may see what happens in a match now (its
    spectator delay: matches/access/delay.py)."""
    return match.delay_s * 1000


_local = threading.local()


@contextlib.contextmanager
def held() -> Iterator[list[tuple[str, dict[str, Any], int]]]:
    """Hold the broadcasts made in this thread inside the block in the list it gives,
    in order, instead of sending them: a caller whose event loop waits for this thread
    (a protocol server's) sends them itself with `broadcast_soon`, without the hop back
    to the loop that each `broadcast` from a thread takes."""
    outer = getattr(_local, "held", None)
    _local.held = kept = []
    try:
        yield kept
    finally:
        _local.held = outer


def broadcast(group: str, message: dict[str, Any], late: int = 0) -> None:
    """Send one event to a group; consumers relay its text to their sockets (the
    public's `late` ms later: `relay_event`).

    A failure (the layer's server restarting, say) is logged, not raised: what is
    broadcast is already stored, and clients catch up from the stored turns.
    """
    kept = getattr(_local, "held", None)
    if kept is not None:
        kept.append((group, message, late))
        return
    _send([(group, message, late)])


@contextlib.contextmanager
def together() -> Iterator[None]:
    """The broadcasts made in this thread inside the block are sent at its end, in
    order, in one hop to the layer's event loop instead of one hop each (an outer
    `held` keeps them instead). Those made before an error in the block are sent too."""
    if getattr(_local, "held", None) is not None:
        yield
        return
    kept: list[tuple[str, dict[str, Any], int]] = []
    try:
        with held() as kept:
            yield
    finally:
        _send(kept)


def _send(triples: list[tuple[str, dict[str, Any], int]]) -> None:
    layer = get_channel_layer()
    if layer is None or not triples:
        return
    texts: dict[int, str] = {}  # one message sent to two groups is encoded once
    events = []
    for group, message, late in triples:
        event = relay_event(message, late, texts.get(id(message)))
        texts[id(message)] = event["text"]
        events.append((group, event))

    async def send_all() -> None:
        for group, event in events:
            for attempt in (1, 2):  # once more: a connection left over from before a
                try:                # restart of the layer's server fails its first send,
                    await layer.group_send(group, event)  # the next one opens anew
                    break
                except Exception as error:
                    log.warning("broadcast of %s to %s failed (attempt %d): %r",
                                event["kind"], group, attempt, error)

    try:
        async_to_sync(send_all)()
    except Exception as error:  # (no event loop to hop to: the process is stopping)
        log.warning("broadcast of %d event(s) failed: %r", len(events), error)


async def broadcast_soon(group: str, message: dict[str, Any], late: int = 0) -> None:
    """`broadcast` from an event loop (a protocol server's): the same event, no thread."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(group, relay_event(message, late))
    except Exception as error:
        log.warning("broadcast of %s to %s failed: %r", message["type"], group, error)


def turn_announce(match: Match, row: Turn, before: dict[str, Any] | None = None) -> None:
    """After a transition commits: the turn (and the end) to the match's sockets, the
    viewer count when it changed, and the match's new line to the lists (`before`: the
    timeline/1 state of the turn before, when the caller holds it)."""
    now, late = timezone.now(), late_of(match)
    with together():
        broadcast(match_group(match.pk), messages.turn(match, row, now, before), late)
        if match.over:
            broadcast(match_group(match.pk), messages.end(match), late)
        count = viewers_news(match.pk)
        if count is not None:
            broadcast(match_group(match.pk), messages.viewers(count))
        summary_announce(match, now, row.scores)


def turns_announce(played: list[tuple[Match, Turn, dict[str, Any] | None]]) -> None:
    """`turn_announce` of several matches' turns, sent in one hop to the layer's event
    loop; one that fails to build is logged and the others still go."""
    with together():
        for match, row, before in played:
            try:
                turn_announce(match, row, before)
            except Exception:
                log.exception("the announcement of match %s's turn %s failed",
                              match.pk, row.number)


def control_announce(match: Match, action: str) -> None:
    """The judges paused, resumed or extended a match: its sockets get its new timing
    (docs/live-protocol.md, "control"), its line the lists."""
    with together():
        broadcast(match_group(match.pk), messages.control(match, action, timezone.now()),
                  late_of(match))
        summary_announce(match)


def end_announce(match: Match) -> None:
    """A game that ended without a turn (a player's time ran out): the end to the
    match's sockets, its line to the lists."""
    with together():
        broadcast(match_group(match.pk), messages.end(match), late_of(match))
        summary_announce(match)


def summary_announce(match: Match, now=None, scores=None) -> None:
    """A match's line to the judges' list, and to everyone's while it is public (with
    the scores of the turn just stored, when there is one)."""
    summary = messages.summary(match, now or timezone.now(), scores)
    with together():
        broadcast(JUDGES_LIST_GROUP, summary)
        if match.published or match.public_live:  # a live one's last summary ends its run
            broadcast(LIST_GROUP, summary, late_of(match))


def visibility_announce(match: Match, was_public: bool) -> None:
    """After a judge published or took back a match: its new line to the lists; when a
    public match turned private, everyone's list drops it and the sockets of viewers who
    may no longer watch it close."""
    with together():
        summary_announce(match)
        if was_public and not (match.published or match.public_live):
            gone = messages.withdrawn(match)
            broadcast(LIST_GROUP, gone)
            broadcast(match_group(match.pk), gone)


def notices_announce() -> None:
    """The announcements to everyone, as they are now, to every match not over (the
    venue, the wall and the TV show them)."""
    message = messages.notices(for_everyone())
    with together():
        for match_id in Match.objects.filter(closed=False).values_list("pk", flat=True):
            broadcast(match_group(match_id), message)
