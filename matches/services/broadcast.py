"""Fan-out of committed events to the channel layer groups browsers listen on."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

LIST_GROUP = "matches"


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def broadcast(group: str, message: dict[str, Any]) -> None:
    """Send one event to a group; consumers relay its message to their sockets."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, {"type": "relay", "message": message})
