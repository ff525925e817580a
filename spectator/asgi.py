"""The ASGI entry point: `daphne spectator.asgi:application`."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
django.setup(set_prefix=False)  # (as django.core.asgi.get_asgi_application does)

from spectator.handler import OneHopASGIHandler  # noqa: E402

django_asgi = OneHopASGIHandler()

# Imported after Django is set up: the routes load models.
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from matches.admission import Admission  # noqa: E402
from matches.api_asgi import AnswerEndpoint  # noqa: E402
from matches.live.frames import spare_connection_dumps  # noqa: E402
from matches.live.outbox import Served  # noqa: E402
from matches.metrics import Counted  # noqa: E402
from matches.responsive import keep_responsive  # noqa: E402
from spectator.routing import websocket_urlpatterns  # noqa: E402
from spectator.sessions import HandshakeGuard, ReadSessionAuthStack  # noqa: E402

# The loop that serves the sockets sends what they are told (matches/live/outbox.py).
application = Served(ProtocolTypeRouter({
    # Reads pass their gate (matches/admission.py); a team's answer passes none.
    "http": Counted(Admission(AnswerEndpoint(django_asgi))),
    # Who may open a socket (Origin, or a team's token): docs/live-protocol.md.
    "websocket": HandshakeGuard(ReadSessionAuthStack(URLRouter(websocket_urlpatterns))),
}))

# What is loaded by now lives as long as the process: kept out of the collector's full
# passes, which otherwise stop the loop for 100 ms or more while a crowd is being served;
# and the loop and the answers' thread take the interpreter back quickly.
keep_responsive()
# and its sockets' connections cost no text no one reads (matches/live/frames.py)
spare_connection_dumps()
