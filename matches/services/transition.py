"""The transition step: resolve each due turn exactly once, then broadcast it.

Several clocks may run against one database. A turn is claimed by locking its match's
row and moving its version (`resolved_turns`) on, only where it still stands at the
turn before, so exactly one of them resolves it; the rest find it moved and go on.
The turns due at once are claimed, resolved, stored and announced together
(`turns_resolve`), in a number of queries that does not grow with how many they are.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.db import connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from matches import metrics, selectors
from matches.caches import Kept, identity
from matches.live.broadcast import end_announce, turns_announce
from matches.models import Match, Submission, Turn
from matches.rules import rules_for
from matches.rules.timeline import states

log = logging.getLogger(__name__)

# Sent once a match (one game) has ended, after its transaction commits, with `match`:
# what follows a match's end (a tournament's next fixture, say) listens to it, so that
# this core never names the features that do.
match_ended = Signal()

# The latest (turn, rules state, timeline/1 state) of recently resolved matches in this
# process, by the match's identity, so that a turn is resolved from the previous state
# instead of replaying the whole record, and announced beside it without reading it.
STATES = Kept("rules states", entries=512)  # (more than a venue has live at once)


def position_before(match: Match, turn: int) -> Any:
    """The rules' state after turn - 1: the position turn `turn` is played on (the last
    one computed, kept, when it is that one)."""
    cached = STATES.peek(identity(match))
    if cached and cached[0] == turn - 1:
        return cached[1]
    *_, (state, _) = states(selectors.match_record(match, upto=turn - 1))
    return state


def _counted(turns: dict[int, int]) -> dict[int, dict[int, tuple[int, Any]]]:
    """The last accepted submission of each team for each match's turn (`turns`: the
    turn by match id), in one query: (id, actions) by match id, then team index."""
    accepted = (Submission.objects.filter(match_id__in=turns, turn__in=set(turns.values()),
                                          status_code=202)
                .order_by("received_at", "id")
                .values_list("match_id", "turn", "team__index", "id", "actions"))
    counted: dict[int, dict[int, tuple[int, Any]]] = {}
    for match_id, turn, index, pk, actions in accepted:
        if turns[match_id] == turn:
            counted.setdefault(match_id, {})[index] = (pk, actions)
    return counted


@dataclass(frozen=True)
class Due:
    """A turn a clock found due: match `match_id`'s turn `number`, found due by its
    deadline `deadline` (None: whatever its deadline is now)."""
    match_id: int
    number: int
    deadline: datetime | None = None


def turn_resolve(*, match_id: int, number: int, now: datetime | None = None,
                 deadline: datetime | None = None) -> Turn | None:
    """Resolve turn `number` if nobody has yet; None when another clock claimed it, or
    the match is paused, or (`deadline`: the deadline the caller found the turn due by)
    the judges moved its deadline since (services/control.py)."""
    return turns_resolve([Due(match_id, number, deadline)], now).get(match_id)


def turns_resolve(due: list[Due], now: datetime | None = None,
                  ahead: dict[int, Match] | None = None) -> dict[int, Turn]:
    """Resolve every turn in `due` (one per match) that nobody has yet, in one
    transaction whose queries do not grow with the number of turns; return the stored
    turns by match id. A turn is left out when another clock claimed it, or its match is
    paused, or the judges moved its deadlines since it was found due.

    `ahead`: the matches as read just before their deadline, with their board and teams
    (`turns_ahead`): the claim then reads only their rows, under its lock, at the
    deadline.

    A match ends after its turn when it was the last or the rules say the game is
    decided (a capture, neither player able to move): its result is stored then. Once
    the transaction commits, the turns are counted and posted to the outbox together
    (live/broadcast.py's `turns_announce`), whose announcer builds and sends their
    messages off this thread."""
    now = now or timezone.now()
    with transaction.atomic():
        matches = _claim({turn.match_id: turn for turn in due}, ahead or {})
        if not matches:
            return {}
        counted = _counted({match.pk: match.resolved_turns for match in matches})
        played = _play([(match, counted.get(match.pk, {})) for match in matches], now)
    _kept(played)
    return {match.pk: row for match, row, _, _ in played}


def turns_ahead(match_ids: list[int]) -> dict[int, Match]:
    """The matches whose turns fall due next, read before their deadline (a clock reads
    them while it waits for it) with what a turn's storage and its announcement read of
    them besides their row: their board and their teams (a team renamed in the last
    milliseconds before a deadline is named so from the next turn on). By id."""
    return Match.objects.select_related("board").prefetch_related("teams").in_bulk(match_ids)


def played_turns_store(match: Match, turns: list[dict[int, tuple[int, Any]]],
                       now: datetime | None = None, watched: bool = True) -> list[Turn]:
    """The next turns of a match a protocol server plays (services/protocol.py), in
    order, in one transaction: both players' lines of each are stored, so each is
    resolved from them as every turn is (`_play`, all of them in its few queries). No
    clock claims such turns, so they are taken with one statement instead of `_claim`'s
    locked read, and a judge's pause holds the server's next step, not turns already
    played; none once the match has ended (made void). `match` (its board read) is the
    server's own copy, moved on; `turns`, what `_counted` would read for each: each
    team's last accepted line of the turn, (id, actions) by team index, as the server
    stored them. `watched` False: no socket watched the game at its server's last look
    (live/broadcast.py's `turn_news`), and only the last turn is told (its line in the
    lists, its end): the others' would be replaced at once."""
    now = now or timezone.now()
    first = match.resolved_turns + 1
    with transaction.atomic():
        if not turns or not Match.objects.filter(
                pk=match.pk, resolved_turns=first - 1, ended_early=False).update(
                resolved_turns=first + len(turns) - 1):
            return []
        plays = []
        for counted in turns:
            match.resolved_turns += 1
            # (each turn's announcement reads a copy of its own, at its number)
            plays.append((copy.copy(match), counted))
        played = _play(plays, now, watched, last_told=not watched)
        _kept(played)
    return [row for _, row, _, _ in played]


def _play(plays: list[tuple[Match, dict[int, tuple[int, Any]]]], now: datetime,
          watched: bool = True, last_told: bool = False) -> list[tuple[Match, Turn, Any, Any]]:
    """Resolve and store the claimed turns, each a match (its `resolved_turns` moved on
    to the turn) and its counted lines (`_counted`: (id, actions) by team index), in the
    caller's transaction, in a number of queries that does not grow with them (one
    update of the counted lines, one insert of the turns; a save for each match that
    ends): one match's several turns come in order, each played on the one before. What
    follows its commit is told then: each turn counted, and announced (only the last,
    `last_told`)."""
    played, rows = [], []
    latest: dict[int, tuple[int, Any, Any]] = {}  # this call's last turn by match id
    for match, mine in plays:
        number = match.resolved_turns
        rules = rules_for(match.game)
        before = latest.get(match.pk)
        if before and before[0] == number - 1:
            _, state, shown = before
        else:
            cached = STATES.peek(identity(match))
            shown = cached[2] if cached and cached[0] == number - 1 else None
            state = position_before(match, number)
        if number == 1:  # the empty board's state, shown (a secret one is open by now)
            shown = rules.view(state)
        actions = [mine[index][1] if index in mine else [] for index in (0, 1)]
        state, outcomes = rules.resolve_turn(state, actions)
        view = rules.view(state)
        row = Turn(match=match, number=number, cells=view["cells"], agents=view["agents"],
                   outcomes=outcomes, scores=view["scores"], resolved_at=now)
        latest[match.pk] = (number, state, row.state())
        played.append((match, row, state, shown))
        rows.append(row)
    Submission.objects.filter(pk__in=[pk for _, mine in plays
                                      for pk, _ in mine.values()]).update(counted=True)
    Turn.objects.bulk_create(rows)
    for match, row, state, _ in played:
        if row.number >= match.turns or rules_for(match.game).is_over(state, match.turns):
            _end(match, row, state)
            transaction.on_commit(partial(match_ended.send, turn_resolve, match=match),
                                  robust=True)
    told = played[-1:] if last_told else played
    transaction.on_commit(lambda: _committed(played, told, watched), robust=True)
    return played


def _kept(played: list[tuple[Match, Turn, Any, Any]]) -> None:
    """Each match's new state kept for its next turn (its last turn's, once the turns
    are stored)."""
    latest = {match.pk: (match, row, state) for match, row, state, _ in played}
    for match, row, state in latest.values():
        STATES.put(identity(match), (row.number, state, row.state()))


def _claim(due: dict[int, Due], ahead: dict[int, Match]) -> list[Match]:
    """The matches whose due turn this clock takes, in id order, each with its
    `resolved_turns` moved on to that turn: their rows are locked (on PostgreSQL, in id
    order, so that two clocks never wait on each other in a circle) and only those
    still at the turn before, unpaused, open and with the deadline they were found due by
    are taken.

    At a deadline this is the turn's first work, so it reads and moves on the rows with
    two plain statements (the ORM's building of them was half the turn's making), and
    takes their board and teams from `ahead` (`turns_ahead`: read before the deadline;
    read here for a match not in it). Each match is a copy of its own: the announcer
    reads it while a later wave claims the next turn."""
    locked = _locked(sorted(due))
    taken = [match for match in locked
             if not match.ended_early and match.paused_at is None
             and match.resolved_turns == due[match.pk].number - 1
             and due[match.pk].deadline in (None, match.deadline(due[match.pk].number))]
    if not taken:
        return []
    _move_on([match.pk for match in taken])
    known = dict(ahead)
    missing = [match.pk for match in taken if match.pk not in known]
    if missing:
        known.update(turns_ahead(missing))
    claimed = []
    for row in taken:
        match = copy.copy(known[row.pk])
        for column in Match._meta.concrete_fields:  # the row as locked (a changed board
            setattr(match, column.attname, getattr(row, column.attname))  # is read anew)
        match.resolved_turns += 1
        claimed.append(match)
    return claimed


def _locked(match_ids: list[int]) -> list[Match]:
    """The matches' whole rows, locked until the transaction ends (SQLite has no FOR
    UPDATE: its writing transaction holds the whole database), in id order."""
    quote = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(match_ids))
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return list(Match.objects.raw(
        f"SELECT * FROM {quote(Match._meta.db_table)} WHERE {quote('id')} IN ({marks}) "
        f"ORDER BY {quote('id')}{lock}", match_ids))


def _move_on(match_ids: list[int]) -> None:
    """Each match's version (`resolved_turns`) one turn on, its row locked already."""
    quote = connection.ops.quote_name
    version = quote("resolved_turns")
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {quote(Match._meta.db_table)} SET {version} = {version} + 1 "
                       f"WHERE {quote('id')} IN ({', '.join(['%s'] * len(match_ids))})",
                       match_ids)


def _end(match: Match, row: Turn, state: Any) -> None:
    """Store the result of a match that ended with `row` (in the caller's transaction)."""
    rules = rules_for(match.game)
    match.result = selectors.final_result(match, row.scores, rules.result(state))
    match.ended_early = row.number < match.turns  # decided before its last turn
    match.ended_at = row.resolved_at
    match.save(update_fields=["result", "ended_early", "ended_at"])


def _committed(played: list[tuple[Match, Turn, Any, Any]],
               told: list[tuple[Match, Turn, Any, Any]], watched: bool = True) -> None:
    """After the turns' transaction commits (and what follows a match's end has been
    told): count them all and announce those `told`."""
    for match, row, _, _ in played:
        late = None if match.alternating or match.protocol_played else \
            (row.resolved_at - match.deadline(row.number)).total_seconds()
        metrics.turn_resolved(match.game, late)
    if told:
        turns_announce([(match, row, shown) for match, row, _, shown in told], watched)


def move_resolve(*, match_id: int, number: int, now: datetime) -> Turn:
    """An alternating game's turn, resolved the moment the mover's legal move is stored
    (in the caller's transaction, the match row locked); then, for as long as the team
    to move has no legal move and the game goes on, the server plays its pass."""
    row = turn_resolve(match_id=match_id, number=number, now=now)
    match = Match.objects.get(pk=match_id)
    rules = rules_for(match.game)
    while not match.over and rules.must_pass(position_before(match, match.resolved_turns + 1)):
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
        ended = Match.objects.filter(pk=match_id, resolved_turns=number - 1,
                                     ended_early=False,
                                     paused_at=None).update(ended_early=True, result=result,
                                                            ended_at=now)
        if ended:
            match.ended_early, match.result, match.ended_at = True, result, now
            end_announce(match)
            transaction.on_commit(lambda: match_ended.send(time_out, match=match), robust=True)
    return bool(ended)
