"""For the venue's monitor and nginx: GET /healthz (is this server fit to serve a
match?) and GET /metrics (Prometheus's numbers, matches/metrics.py). README,
"Operations".

/healthz answers 200 when the database answers, the channel layer carries a message to
this process and back, and a clock has ticked within CLOCK_SILENT_SECONDS; else 503,
with what failed. It is cheap whoever floods it: one process works the answer out at
most once a second (HEALTH_KEPT_SECONDS) and says the same until then. /metrics is for
the venue's networks (SPECTATOR_TRUSTED_NETWORKS), this machine and judges; 404 to
anyone else.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

from matches import metrics
from matches.access import is_judge
from matches.admission import PAGE, cost, is_trusted
from matches.caches import Fresh
from matches.services.clock import CLOCK_TICKED_KEY

CLOCK_SILENT_SECONDS = 10.0  # a clock that has not ticked for this long is not there
HEALTH_KEPT_SECONDS = 1.0
CHECK_SECONDS = 2.0  # each check's limit: a check that hangs fails, it never hangs us
HEALTH = Fresh("health answer", HEALTH_KEPT_SECONDS)
_lock = asyncio.Lock()


@cost(PAGE)
async def healthz(request: HttpRequest) -> JsonResponse:
    async with _lock:  # one working out at a time; the others wait and take its answer
        answer = HEALTH.current()
        if answer is None:
            answer = await _health()
            HEALTH.put(answer)
    return JsonResponse(answer, status=200 if answer["status"] == "ok" else 503,
                        headers={"Cache-Control": "no-store"})


async def _health() -> dict[str, Any]:
    checks = {"database": await _timed(sync_to_async(_database, thread_sensitive=False)()),
              "channel_layer": await _timed(_channel_layer()),
              "clock": await sync_to_async(_clock, thread_sensitive=False)()}
    return {"status": "ok" if all(check["ok"] for check in checks.values()) else "failing",
            "checks": checks}


async def _timed(check) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(check, CHECK_SECONDS)
    except Exception as error:  # what failed is the answer, never a 500
        return {"ok": False, "error": f"{type(error).__name__}: {str(error)[:200]}"}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # this worker thread's own


async def _channel_layer() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "healthz"})
    await layer.receive(channel)


def _clock() -> dict[str, Any]:
    try:
        ticked = cache.get(CLOCK_TICKED_KEY)
    except Exception as error:
        return {"ok": False, "error": f"the cache: {type(error).__name__}"}
    if ticked is None:
        return {"ok": False, "error": "no clock has ticked: is runclock running?"}
    ago = round(time.time() - ticked, 1)
    return {"ok": ago < CLOCK_SILENT_SECONDS, "last_tick_seconds_ago": ago}


@cost(PAGE)
def metrics_view(request: HttpRequest) -> HttpResponse:
    address = request.META.get("REMOTE_ADDR")
    if not (is_trusted(address) or address in ("127.0.0.1", "::1") or is_judge(request.user)):
        raise Http404("no such page")
    return HttpResponse(metrics.exposition(), content_type=metrics.CONTENT_TYPE)
