"""The hosted programs' jobs (spectator/celery.py; docs/programs.md, "Workers"): each is
one hosted program's play of one team of one match. A job's run is taken in the
database before it plays, so a job delivered twice (its worker lost, say) plays
nothing the second time."""

from __future__ import annotations

import contextlib
import logging
import socket

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from matches.models import HostedRun
from matches.services.programs import programs_taken

log = logging.getLogger(__name__)


@shared_task(name="hosted.play", ignore_result=True)
def play(run_id: int) -> str:
    """Play hosted run `run_id` once; returns how it ended."""
    from matches.hosted.play import hosted_play  # (the worker's, not the server's)

    close_old_connections()
    with transaction.atomic():
        now = timezone.now()
        taken = HostedRun.objects.filter(pk=run_id, status=HostedRun.QUEUED).update(
            status=HostedRun.PLAYING, started_at=now, heartbeat_at=now,
            worker=f"{socket.gethostname()}:{play.request.hostname or ''}"[:200])
    if not taken:
        log.warning("hosted run %s was taken already: not played again", run_id)
        return "taken"
    run = HostedRun.objects.select_related("match").get(pk=run_id)
    if run.match.protocol_played:
        return _served(run)
    programs_taken(run.match_id, timezone.now())  # (a fast match starts once all are)
    try:
        played = hosted_play(run.version_id, run.match_id, run.team_index,
                             settings.HOSTED_SERVER_URL, run_id=run_id)
        said = played.said
    except Exception as error:
        log.exception("hosted run %s failed", run_id)
        said = f"the worker failed: {type(error).__name__}"
    finally:
        close_old_connections()
    HostedRun.objects.filter(pk=run_id).update(status=HostedRun.DONE, ended_at=timezone.now(),
                                               ended_by=said[:200])
    return said


@shared_task(name="hosted.build", ignore_result=True)
def build(version_id: int) -> str:
    """Build a handed-in version (once: a second delivery finds it built)."""
    from matches.services.programs import program_build

    close_old_connections()
    try:
        return program_build(version_id).status
    finally:
        close_old_connections()


def _served(run: HostedRun) -> str:
    """A match of a game with its own protocol server (CHaser): one job plays both
    teams' runs (the scrimmage queues the first team's only), the server this worker's."""
    from matches.hosted.play import protocol_play
    from matches.protocol_servers import server_for
    from matches.services.control import ControlError, match_void

    now = timezone.now()
    HostedRun.objects.filter(match_id=run.match_id, status=HostedRun.QUEUED).update(
        status=HostedRun.PLAYING, started_at=now, heartbeat_at=now, worker=run.worker)
    runs = list(HostedRun.objects.filter(match_id=run.match_id).select_related(
        "match", "version").order_by("team_index"))
    try:
        played = {team: one.said for team, one in
                  protocol_play(runs, server_for(run.match.game).hosted).items()}
    except Exception as error:
        log.exception("hosted match %s failed", run.match_id)
        played = {one.team_index: f"the worker failed: {type(error).__name__}" for one in runs}
    finally:
        close_old_connections()
    first = type(run.match).objects.get(pk=run.match_id)
    if first.resolved_turns == 0 and not first.over:  # its first game never started
        with contextlib.suppress(ControlError):
            match_void(match_id=first.pk, judge="server",
                       reason="a program never came to its seat: " + "; ".join(
                           f"{one.match.teams.get(index=one.team_index).name}: "
                           f"{played.get(one.team_index, '')}" for one in runs))
    for one in runs:
        HostedRun.objects.filter(pk=one.pk).update(
            status=HostedRun.DONE, ended_at=timezone.now(),
            ended_by=played.get(one.team_index, "")[:200])
    return "; ".join(played.values())
