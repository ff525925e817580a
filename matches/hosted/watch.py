"""A hosted run whose worker stopped (killed, its machine gone) ends its match
(docs/programs.md, "Workers"): the clock, after each tick, looks for runs that have
not moved their heartbeat on for HOSTED_LOST_SECONDS (the settings) while their match
goes on, and voids the match, saying which team's worker stopped. No run is left
playing for nobody: the match ends, the run is marked done, and its job, if it comes
again, finds it taken. A fast match whose programs no worker took before its start
(the end of its wait) is void too."""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.dispatch import receiver

from matches.caches import Every
from matches.models import HostedRun, Match
from matches.services.clock import clock_ticked
from matches.services.control import ControlError, match_void

log = logging.getLogger(__name__)

LOOK_SECONDS = 1.0  # how often the clock looks: one indexed query of the runs playing
LOOKS = Every("lost workers look", LOOK_SECONDS)


def lost_runs_end(now: datetime) -> int:
    """Void the matches of the runs whose worker stopped; how many runs were ended."""
    lost = list(HostedRun.objects.filter(
        status=HostedRun.PLAYING,
        heartbeat_at__lt=now - timedelta(seconds=settings.HOSTED_LOST_SECONDS))
        .select_related("match"))
    for run in lost:
        # its match's game under way (a protocol server's later games are matches made
        # as they start, each its first's `first_game`)
        for game in Match.objects.filter(Q(pk=run.match_id) | Q(first_game_id=run.match_id)):
            if game.over:
                continue
            team = run.match.teams.get(index=run.team_index).name
            with contextlib.suppress(ControlError):  # (void already)
                match_void(match_id=game.pk, judge="server",
                           reason=f"the worker playing {team}'s program stopped")
            log.warning("hosted run %s: its worker stopped; match %s is void", run.pk,
                        game.pk)
        HostedRun.objects.filter(pk=run.pk, status=HostedRun.PLAYING).update(
            status=HostedRun.DONE, ended_at=now, ended_by="its worker stopped")
    return len(lost)


def unstarted_end(now: datetime) -> int:
    """Void the fast matches that waited for their programs until their start (a wait of
    PROGRAMS_WAIT: services/programs.py) and that no worker has taken all of yet; how
    many runs were ended."""
    waiting = list(HostedRun.objects.filter(
        status=HostedRun.QUEUED, match__fast_play=True, match__start_at__lte=now,
        match__resolved_turns=0, match__ended_early=False).select_related("match"))
    for run in waiting:
        with contextlib.suppress(ControlError):  # (void already: its other run's)
            match_void(match_id=run.match_id, judge="server",
                       reason="no worker took its programs in time")
        HostedRun.objects.filter(pk=run.pk, status=HostedRun.QUEUED).update(
            status=HostedRun.DONE, ended_at=now, ended_by="no worker took it")
    return len(waiting)


@receiver(clock_ticked)
def _clock_ticked(sender, now: datetime, woken: bool, **kwargs) -> None:
    if LOOKS.due(now):
        lost_runs_end(now)
        unstarted_end(now)
    return None

