"""python manage.py rundrawing: the machine's drawing worker, for every server of the
machine (matches/drawing.py; deploy/serve.sh starts it).

The servers reach it at the Unix socket `--socket` (by default SPECTATOR_DRAWING_SOCKET),
which they are given in the same variable. It draws one picture at a time. SIGTERM or
SIGINT (Ctrl-C) stops it at once, with exit status 0: a server waiting for a picture then
draws it in a worker of its own.
"""

from __future__ import annotations

import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from matches import drawing


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = "Draw the pictures of every server of this machine (runs until stopped)."

    def add_arguments(self, parser):
        parser.add_argument("--socket", default=settings.DRAWING_SOCKET,
                            help="the Unix socket to listen at (default: "
                                 "SPECTATOR_DRAWING_SOCKET)")

    def handle(self, *args, socket: str, **options):
        if not socket:
            raise CommandError("give --socket PATH, or set SPECTATOR_DRAWING_SOCKET")
        signal.signal(signal.SIGTERM, _interrupt)
        self.stdout.write(f"Drawing for this machine's servers at {socket}; Ctrl-C to stop.")
        try:
            drawing.serve(socket)
        except KeyboardInterrupt:
            pass
        except OSError as error:
            raise CommandError(str(error)) from error
        self.stdout.write("Drawing stopped.")
