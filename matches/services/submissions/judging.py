"""Judging a request: a request of the match's own team is judged with its match row
locked (is the match open, is it the turn the team meant, is it the team's move, is the
move legal), and stored with its answer; any other request is a stranger's, refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from matches import metrics
from matches.access import not_its_match
from matches.models import Match, Team, storable_id
from matches.rules import rules_for
from matches.rules.base import team_named
from matches.selectors import epoch_ms, move_clock
from matches.services import transition
from matches.services.control import match_close_answered
from matches.services.submissions import limits, sql, storage
from matches.services.submissions.answers import (
    DryRun,
    Refusal,
    Reply,
    Request,
    client_address,
    refusal_reply,
)
from matches.services.submissions.debug import DebugProblem, debug_read
from matches.services.submissions.parsing import MAX_ACTIONS, MAX_BODY, parse_submission


def judge(request: Request, team: Team) -> Reply:
    """A request of the match's own team: judged and stored with its match row locked
    (Match.DoesNotExist if the match has gone)."""
    with transaction.atomic():
        match = sql.match_lock(team.match_id)
        # A judge enters a held match's actions (offline entry) for the step it was
        # paused in: its time is the pause's moment (services/control.py).
        entry_in_pause = bool(request.entered_by) and match.paused_at is not None \
            and not match.alternating
        moment = match.paused_at if entry_in_pause else request.received_at
        turn = match.strategy_turn(moment)
        limited = limits.rate_limited(request, team)
        if limited:
            if storage.tallied(f"team:{team.pk}", request, match, team, limited):
                return refusal_reply(limited)
            return storage.store(request, match, team, None, limited)
        if request.output:
            return _output(request, match, team, turn)
        # Before its start a match takes nothing, and its body is not even read: what a
        # refusal of it would say (a secret board's agents) is not told early.
        early = _closed(match, turn, request.received_at) if request.received_at < \
            match.start_at else None
        if early:
            return storage.store(request, match, team, None, early)
        dry_run = None
        try:
            actions, meant = _read(request, match.game)
        except DryRun as checked:  # well formed; answered as a real one would be, below
            actions, meant, dry_run = checked.actions, checked.meant, checked
        except Refusal as problem:
            return storage.store(request, match, team, None, problem)
        refusal = (_protocol_played(match) or _closed(match, turn, moment, entry_in_pause)
                   or _wrong_turn(turn, meant) or dry_run)
        if refusal:
            return storage.store(request, match, team, actions, refusal)
        if match.alternating:
            return _move(request, match, team, turn, actions)
        debug, said = _debug(request)
        kept = storage.create(request, match, team, turn, actions, 202, debug=debug)
        if match.fast_play and not request.entered_by:
            match_close_answered(match, turn, request.received_at)
        metrics.answer_taken("practice" if match.practice_by else team.name,
                             match.opens_at(turn), request.received_at)
    body = {"turn": turn, "received_at": epoch_ms(request.received_at), "actions": len(actions)}
    return Reply(202, body | _debug_said(debug, said, kept))


def _debug(request: Request) -> tuple[tuple[str, Any] | None, str]:
    """The submission's debug text and marks, if it sent any, and why they were dropped
    if they cannot be kept (the actions count all the same)."""
    try:
        return debug_read(request.body), ""
    except DebugProblem as problem:
        return None, str(problem)


def _debug_said(debug: tuple[str, Any] | None, problem: str, kept: bool) -> dict[str, str]:
    """The answer's word on the debug part, where the submission sent one."""
    if problem:
        return {"debug": f"dropped: {problem}"}
    if debug is None:
        return {}
    return {"debug": "kept" if kept else "dropped: the team's storage budget in this match "
                                         "is spent"}


def refuse_stranger(request: Request, team: Team | None) -> Reply:
    """A request without a token of its match's teams (`team`: of another match, if any)."""
    match = (Match.objects.filter(pk=request.match_id).first()
             if storable_id(request.match_id) else None)
    refusal = limits.address_limited(request) or _stranger_refusal(request, match, team)
    source = f"address:{client_address(request.remote_addr) or '-'}"
    if storage.tallied(source, request, match, None, refusal):
        return refusal_reply(refusal)
    return storage.store(request, match, None, None, refusal)


def _stranger_refusal(request: Request, match: Match | None, team: Team | None) -> Refusal:
    # Without a team's token the answer is the same whether the match exists or not
    # (a private match is not told from a missing one).
    if team is None and not request.authorization.strip():
        return Refusal(401, "unauthorized",
                       "send the team token as 'Authorization: Bearer <token>'")
    if team is None:
        return Refusal(401, "unauthorized", "the Authorization header carries no team token "
                                            "(expected 'Bearer <token>')")
    if match is None:
        return Refusal(404, "not_found", f"there is no match {request.match_id}")
    return Refusal(403, "forbidden", not_its_match(team, request.match_id))


def _output(request: Request, match: Match, team: Team, turn: int | None) -> Reply:
    """What a team's program printed besides its moves (through `playprogram`): kept
    for the audit (status 200), as text of at most MAX_BODY bytes."""
    if request.body_size > MAX_BODY:
        return storage.store(request, match, team, None, Refusal(
            413, "too_large", f"the body is {request.body_size} bytes; at most {MAX_BODY}"))
    try:
        text = request.body.decode("utf-8")
    except UnicodeDecodeError as error:
        return storage.store(request, match, team, None, Refusal(
            400, "not_text", f"the output is not UTF-8 text (byte {error.start})"))
    lines = len(text.splitlines())
    if not lines:
        return storage.store(request, match, team, None,
                             Refusal(400, "empty", "the output is empty"))
    storage.create(request, match, team, turn, None, 200, detail=f"program output: {lines} lines")
    return Reply(200, {"turn": turn, "lines": lines})


def _move(request: Request, match: Match, team: Team, turn: int,
          actions: list[dict[str, Any]]) -> Reply:
    """An alternating game's move (the match row locked): refused unless it is the
    team's move, its time has not run out and the move is legal; else stored, counted
    and its turn resolved at once (the passes of a team left without a move after it
    too): the turn message follows at once."""
    rules = rules_for(match.game)
    mover = rules.mover(turn)
    if team.index != mover:
        return storage.store(request, match, team, actions, Refusal(
            409, "not_your_move", f"turn {turn} is {team_named(mover)}'s move"))
    clock = move_clock(match, request.received_at)
    if clock["remaining_ms"][team.index] <= 0:
        return storage.store(request, match, team, actions, Refusal(
            409, "time_over", "the team's thinking time has run out: the game is lost on time"))
    played_on = transition.position_before(
        Match.objects.select_related("board").get(pk=match.pk), turn)
    reason = rules.move_refusal(played_on, team.index, actions)
    if reason:
        return storage.store(request, match, team, actions, Refusal(400, "illegal_move", reason))
    stored = rules.move_as_stored(actions)
    debug, said = _debug(request)
    kept = storage.create(request, match, team, turn, stored, 202, debug=debug)
    transition.move_resolve(match_id=match.pk, number=turn, now=request.received_at)
    return Reply(202, {"turn": turn, "received_at": epoch_ms(request.received_at),
                       "actions": len(stored)} | _debug_said(debug, said, kept))


def _protocol_played(match: Match) -> Refusal | None:
    """A game its own protocol server plays (CHaser over TCP) takes no answers here."""
    if match.protocol_played:
        return Refusal(409, "wrong_protocol", "this game is played over its own protocol "
                                              "server (docs/chaser-server.md), not this API")
    return None


def _read(request: Request, game: str) -> tuple[list[dict[str, Any]], int | None]:
    if request.entered_by and not request.note.strip():
        raise Refusal(400, "note_required", "an offline entry needs a note saying why")
    if request.body_size > MAX_BODY:
        raise Refusal(413, "too_large", f"the body is {request.body_size} bytes; at most 64 KiB "
                                        f"({MAX_BODY} bytes) are accepted")
    if request.game and request.game != game:
        raise Refusal(400, "wrong_dialect", f"match {request.match_id} is not a "
                                            f"{rules_for(request.game).title} match: the "
                                            f"{request.dialect} API serves those only")
    actions, meant = (request.read or parse_submission)(game, request.body)
    if len(actions) > MAX_ACTIONS:  # a dialect's list too
        raise Refusal(400, "invalid_actions", f"actions: at most {MAX_ACTIONS} actions")
    return actions, meant


def _closed(match: Match, turn: int | None, now: datetime,
            held_entry: bool = False) -> Refusal | None:
    if match.over:
        return Refusal(409, "not_running", "the match is finished")
    if match.paused_at is not None and not held_entry:  # services/control.py
        return Refusal(409, "paused", f"the match is paused by the judges: {match.pause_reason}"
                                      "; answers are taken again once it resumes")
    if now < match.start_at:
        return Refusal(409, "not_running",
                       f"the match starts at {epoch_ms(match.start_at)} (epoch ms)")
    if turn is None or match.resolved_turns >= turn:
        upcoming = turn + 1 if turn else match.next_turn_to_open(now)
        opens = (f"; turn {upcoming} opens at {epoch_ms(match.opens_at(upcoming))} (epoch ms)"
                 if upcoming <= match.turns else "")
        return Refusal(409, "step_over", f"the strategy step is over{opens}")
    return None


def _wrong_turn(turn: int, meant: int | None) -> Refusal | None:
    if meant is None or meant == turn:
        return None
    return Refusal(409, "wrong_turn", f"the open strategy step is turn {turn}, not {meant}")
