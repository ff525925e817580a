"""The transition step: resolve each due turn exactly once, then broadcast it.

Several clocks may run against one database. A turn is claimed with a conditional
update of the match's version (`resolved_turns`), so exactly one of them resolves
it; the rest see zero rows updated and move on.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from matches import metrics, selectors
from matches.caches import Kept, identity
from matches.live.broadcast import end_announce, turn_announce
from matches.models import Match, Submission, Turn
from matches.rules import rules_for
from matches.rules.timeline import states

log = logging.getLogger(__name__)

# Sent once a match (one game) has ended, after its transaction commits, with `match`:
# what follows a match's end (a tournament's next fixture, say) listens to it, so that
# this core never names the features that do.
match_ended = Signal()

# The latest (turn, rules state) of recently resolved matches in this process, by the
# match's identity, so that a turn is resolved from the previous state instead of
# replaying the whole record.
STATES = Kept("rules states", entries=64)


def _state_before(match: Match, turn: int) -> Any:
    cached = STATES.peek(identity(match))
    if cached and cached[0] == turn - 1:
        return cached[1]
    *_, (state, _) = states(selectors.match_record(match, upto=turn - 1))
    return state


def counted_submissions(match: Match, turn: int) -> dict[int, tuple[int, Any]]:
    """The last accepted submission of each team for a turn, as (id, actions) by team
    index."""
    accepted = (Submission.objects.filter(match=match, turn=turn, status_code=202)
                .order_by("received_at", "id").values_list("team__index", "id", "actions"))
    return {index: (pk, actions) for index, pk, actions in accepted}


def turn_resolve(*, match_id: int, number: int, now: datetime | None = None,
                 start_at: datetime | None = None) -> Turn | None:
    """Resolve turn `number` if nobody has yet; None when another clock claimed it, or
    the match is paused, or (`start_at`: the start the caller found the turn due by)
    the judges moved its deadlines since (services/control.py).

    The match ends after the turn when it was the last or the rules say the game is
    decided (a capture, neither player able to move): its result is stored then."""
    with transaction.atomic():
        unmoved = {} if start_at is None else {"start_at": start_at}
        claimed = Match.objects.filter(pk=match_id, resolved_turns=number - 1, closed=False,
                                       paused_at=None, **unmoved).update(resolved_turns=number)
        if not claimed:
            return None
        match = Match.objects.select_related("board").get(pk=match_id)
        rules = rules_for(match.game)
        state = _state_before(match, number)
        counted = counted_submissions(match, number)
        actions = [counted[index][1] if index in counted else [] for index in (0, 1)]
        state, outcomes = rules.resolve_turn(state, actions)
        view = rules.view(state)
        Submission.objects.filter(pk__in=[pk for pk, _ in counted.values()]).update(counted=True)
        row = Turn.objects.create(match=match, number=number, cells=view["cells"],
                                  agents=view["agents"], outcomes=outcomes,
                                  scores=view["scores"], resolved_at=now or timezone.now())
        late = None if match.alternating or match.protocol_played else \
            (row.resolved_at - match.deadline(number)).total_seconds()
        transaction.on_commit(lambda: metrics.turn_resolved(match.game, late), robust=True)
        if number >= match.turns or rules.is_over(state, match.turns):
            match.result = selectors.final_result(match, view["scores"], rules.result(state))
            match.closed = number < match.turns  # decided before its last turn
            match.ended_at = row.resolved_at
            match.save(update_fields=["result", "closed", "ended_at"])
            transaction.on_commit(lambda: match_ended.send(turn_resolve, match=match),
                                  robust=True)
        transaction.on_commit(lambda: turn_announce(match, row), robust=True)
    STATES.put(identity(match), (number, state))
    return row


def state_before(match: Match, turn: int) -> Any:
    """The rules' state after turn - 1 (the position the turn is played on)."""
    return _state_before(match, turn)


def move_resolve(*, match_id: int, number: int, now: datetime) -> Turn:
    """An alternating game's turn, resolved the moment the mover's legal move is stored
    (in the caller's transaction, the match row locked); then, for as long as the team
    to move has no legal move and the game goes on, the server plays its pass."""
    row = turn_resolve(match_id=match_id, number=number, now=now)
    match = Match.objects.get(pk=match_id)
    rules = rules_for(match.game)
    while not match.over and rules.must_pass(_state_before(match, match.resolved_turns + 1)):
        number = match.resolved_turns + 1
        mover = match.teams.get(index=rules.mover(number))
        Submission.objects.create(
            match=match, team=mover, turn=number, received_at=now, body=b"",
            body_size=0, actions=rules.pass_move(), status_code=202, entered_by="server",
            note="no legal move: the server passes for the team")
        row = turn_resolve(match_id=match_id, number=number, now=now)
        match.refresh_from_db()
    return row


def time_out(*, match_id: int, number: int) -> bool:
    """End an alternating game whose mover of turn `number` used up its thinking time:
    the other team wins on time. False if the move came first (or another clock did
    this)."""
    with transaction.atomic():
        match = Match.objects.select_related("board").get(pk=match_id)
        loser = rules_for(match.game).mover(number)
        result = {"winner": 1 - loser, "decided_by": "time"}
        now = timezone.now()
        ended = Match.objects.filter(pk=match_id, resolved_turns=number - 1, closed=False,
                                     paused_at=None).update(closed=True, result=result,
                                                            ended_at=now)
        if ended:
            match.closed, match.result, match.ended_at = True, result, now
            transaction.on_commit(lambda: end_announce(match), robust=True)
            transaction.on_commit(lambda: match_ended.send(time_out, match=match), robust=True)
    return bool(ended)
