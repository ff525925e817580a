"""Django's ASGI handler with its middleware chain run as one synchronous call.

Under ASGI, Django adapts every synchronous middleware on its own: each one's request
and response steps hop to a thread and back, about twenty hops a request for the nine
middlewares in settings.py, which cost a page or an API read 7-10 ms of CPU before its
view did anything (bench/clockload.py's demo spent most of its HTTP time there). All
of them, and every view, are synchronous, so the whole chain runs in the request's
thread in one hop, as under WSGI; the ASGI side (reading the body, sending the
response, streaming an event stream's async iterator) is Django's own.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)
