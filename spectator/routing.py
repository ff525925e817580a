from django.urls import path

import matches.converters  # noqa: F401 (the `match` path converter)
from matches.live.consumers import MatchConsumer, MatchListConsumer

websocket_urlpatterns = [
    path("ws/matches/", MatchListConsumer.as_asgi()),
    path("ws/matches/<match:match_id>/", MatchConsumer.as_asgi()),
]
