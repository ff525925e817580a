"""CHaser's TCP server (docs/chaser-server.md), one concern a module:

- connection.py: the line protocol, one connected program read and written a line at
  a time;
- game.py: the game driver, turning each program's lines into its steps and storing
  them before answering;
- server.py: the listener on Cool's and Hot's ports, the seats, and a match of games;
- maps.py: the map files, and the settings that play one;
- loops.py: the demo's matches and a tournament's fixtures, played one after another;
- hosted.py: a hosted scrimmage's match, served by the worker that plays its programs.

What the demo, the tournament commands and the hosted programs' workers ask of every
protocol server is here.
"""

from matches.protocol_servers.chaser import hosted
from matches.protocol_servers.chaser.loops import demo, tournament
from matches.protocol_servers.chaser.maps import board_problem

__all__ = ["board_problem", "demo", "hosted", "tournament"]
