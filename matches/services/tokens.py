"""A team's token reissued (`manage.py reissuetoken`; README, "The contest day"): a team
that lost its token gets a new one, shown once; the old one stops working everywhere
within a second (matches/access.py, `tokens_changed`). Only the digest is stored, as
for every token. A match's team's token serves its later games too; a tournament
team's, all its matches."""

from __future__ import annotations

from django.db import transaction

from matches.access import tokens_changed
from matches.models import Entrant, Team, new_token, token_hash


def token_reissue(holder: Team | Entrant) -> str:
    """A new token for a match's team (its first game's row) or a tournament's team."""
    token = new_token()
    with transaction.atomic():
        type(holder).objects.filter(pk=holder.pk).update(token_hash=token_hash(token))
        transaction.on_commit(tokens_changed, robust=True)
    return token
