from django.urls import path

from matches.live.consumers import MatchConsumer, MatchListConsumer

websocket_urlpatterns = [
    path("ws/matches/", MatchListConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
]
