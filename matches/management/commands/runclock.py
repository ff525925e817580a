"""python manage.py runclock: resolve every due turn, for as long as it runs
(the loop is `matches.services.clock`).

SIGTERM or SIGINT (Ctrl-C) stops it after the tick under way, with exit status 0.
`-v 2` logs every tick and how long the clock then sleeps.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from django.core.management.base import BaseCommand

from matches.services.clock import IDLE_SECONDS, run_clock


class Command(BaseCommand):
    help = "Resolve every due turn of every match at its deadline (runs until stopped)."

    def add_arguments(self, parser):
        parser.add_argument("--idle-seconds", type=float, default=IDLE_SECONDS,
                            help="the longest sleep between two ticks, in case a "
                                 "notification of a new match is lost (default %(default)s)")

    def handle(self, *args, idle_seconds: float, verbosity: int, **options):
        if verbosity >= 2:
            logging.getLogger("matches.clock").setLevel(logging.DEBUG)
        self.stdout.write("Clock running; Ctrl-C to stop.")
        asyncio.run(self.run(idle_seconds))
        self.stdout.write("Clock stopped.")

    async def run(self, idle_seconds: float) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await run_clock(stop, idle_seconds=idle_seconds)
