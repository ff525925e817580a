"""Publishing a match: its pages, replay and data for everyone, or back to private.

The lists of matches hear of the change at once, so that a venue's list shows a
newly published match without a reload, and a match taken back leaves the lists and
the screens of those who may no longer watch it.
"""

from __future__ import annotations

from django.db import transaction

from matches.live.broadcast import visibility_announce
from matches.models import Match


class PublicationError(ValueError):
    """A change of visibility that is not allowed; the message says why."""


def match_publish(*, match_id: int, published: bool, debug: bool = False) -> Match:
    """Publish a finished match (with its teams' debug output if `debug`: docs/api.md,
    "Your program's debug output"), or take a match back to its judges and teams."""
    with transaction.atomic():
        match = Match.objects.select_for_update().select_related("board").get(pk=match_id)
        if published and not match.over:
            raise PublicationError("Only a finished match can be published.")
        was_public = match.published or match.public_live
        match.published = published
        match.debug_public = published and debug
        if not published:  # else a match that was public live would stay public
            match.public_live = False
        match.save(update_fields=["published", "public_live", "debug_public"])
        visibility_announce(match, was_public)
    return match
