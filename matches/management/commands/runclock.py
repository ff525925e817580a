"""python manage.py runclock: resolve every due turn, for as long as it runs
(the loop is `matches.clock`)."""

from __future__ import annotations

import asyncio
import contextlib

from django.core.management.base import BaseCommand

from matches.clock import run_clock


class Command(BaseCommand):
    help = "Resolve every due turn of every match at its deadline (runs until stopped)."

    def handle(self, *args, **options):
        self.stdout.write("Clock running; Ctrl-C to stop.")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run_clock())
