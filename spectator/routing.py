from django.urls import path, re_path

import matches.converters  # noqa: F401 (the `match` path converter)
from matches.live.consumers import MatchConsumer, MatchListConsumer, NoSuchSocket
from matches.live.pages import RoomConsumer, TournamentConsumer

websocket_urlpatterns = [
    path("ws/matches/", MatchListConsumer.as_asgi()),
    path("ws/matches/<match:match_id>/", MatchConsumer.as_asgi()),
    # A page's socket (live/pages.py): when to read it again, and what changed.
    path("ws/tournaments/<match:tournament_id>/", TournamentConsumer.as_asgi()),
    path("ws/control/", RoomConsumer.as_asgi()),
    # Any other path (a match id no database can hold, say): closed with 4404, as a
    # match one may not watch, never an error of the server.
    re_path(r"", NoSuchSocket.as_asgi()),
]
