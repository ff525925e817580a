"""The ASGI entry point: `daphne spectator.asgi:application`."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
django_asgi = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402  (after Django is set up)

application = ProtocolTypeRouter({"http": django_asgi})
