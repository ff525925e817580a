"""What each stored change tells the sockets (its *news*: the channel-layer groups and
the messages they hear), posted to the process's one outbox (live/outbox.py) once the
change's transaction commits. The services call the `*_announce` functions; nothing
else in the project sends to the sockets' groups."""

from __future__ import annotations

import functools
import logging
import threading
import time
from functools import partial
from typing import Any

from django.utils import timezone

from matches.caches import identity, resettable
from matches.live import messages
from matches.live.outbox import OUTBOX, Triple
from matches.live.viewers import viewers_news
from matches.models import Fixture, Match, Tournament, Turn
from matches.selectors import epoch_ms, match_games
from matches.selectors.notices import for_everyone

log = logging.getLogger(__name__)

LIST_GROUP = "matches"  # summaries of the matches anyone may watch
JUDGES_LIST_GROUP = "matches.judges"  # summaries of every match
ROOM_GROUP = "room"  # the control room's sockets (judges): `changed` (live/pages.py)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def tournament_group(tournament_id: int, judges: bool = False) -> str:
    """A tournament's page's sockets: the judges' (live), or everyone's (behind the
    tournament's spectator delay: live/pages.py)."""
    return f"tournament.{tournament_id}{'.judges' if judges else ''}"


@functools.lru_cache(maxsize=4096)
def _fixture_tournament(fixture_id: int, match_identity: tuple) -> int | None:
    return Fixture.objects.filter(pk=fixture_id).values_list("tournament_id", flat=True).first()


resettable(_fixture_tournament.cache_clear)


def _tournament_of(match: Match) -> int | None:
    """A match's tournament (kept, keyed by the match's identity, so that a turn asks it
    once: a fixture's tournament never changes)."""
    if not match.fixture_id:
        return None
    return _fixture_tournament(match.fixture_id, identity(match))


def late_of(match: Match) -> int:
    """The ms after which the public may see what happens in a match now (its
    spectator delay: matches/access/delay.py)."""
    return match.delay_s * 1000


def turn_news(match: Match, row: Turn, before: dict[str, Any] | None = None,
              watched: bool = True) -> list[Triple]:
    """A stored turn: the turn (and the end) to the match's sockets, the viewer count
    when it changed, and the match's new line to the lists (`before`: the timeline/1
    state of the turn before, when the caller holds it). `watched` False (a protocol
    server's game that no socket watched at its last look): the turn is not built for
    the match's sockets (one that opens since fills the gap from the stored turns), its
    end and its line still are."""
    now, late, group = timezone.now(), late_of(match), match_group(match.pk)
    news = [(group, messages.turn(match, row, now, before), late)] if watched else []
    if match.over:  # (its end from the turn just stored: nothing read back)
        news.append((group, messages.end(match, row.state()), late))
    count = viewers_news(match.pk) if watched else None
    if count is not None:
        news.append((group, messages.viewers(count), 0))
    return news + summary_news(match, now, row.scores)


def turns_news(played: list[tuple[Match, Turn, dict[str, Any] | None]],
               watched: bool = True) -> list[Triple]:
    """`turn_news` of several matches' turns; one that fails to build is logged and the
    others still go."""
    news: list[Triple] = []
    for match, row, before in played:
        try:
            news.extend(turn_news(match, row, before, watched))
        except Exception:
            log.exception("the announcement of match %s's turn %s failed",
                          match.pk, row.number)
    return news


def summary_news(match: Match, now=None, scores=None) -> list[Triple]:
    """A match's line to the judges' list, and to everyone's while it is public (with
    the scores of the turn just stored, when there is one)."""
    summary = messages.summary(match, now or timezone.now(), scores)
    news = [(JUDGES_LIST_GROUP, summary, 0)]
    if match.published or match.public_live:  # a live one's last summary ends its run
        news.append((LIST_GROUP, summary, late_of(match)))
    tournament_id = _tournament_of(match)
    if tournament_id:  # its line on its tournament's page and walls (a later game's too)
        line = messages.line(summary["match"], tournament_id)
        news += [(tournament_group(tournament_id, judges=True), line, 0),
                 (tournament_group(tournament_id), line, late_of(match))]
    return news + room_news()  # (the room shows every match not over)


def room_news() -> list[Triple]:
    """The control room changed (a match's turn, its hold, its end, a match made, a
    team heard from, a question, an announcement): its sockets read it again."""
    return [(ROOM_GROUP, messages.changed("room", None, epoch_ms(timezone.now())), 0)]


def control_news(match: Match, action: str) -> list[Triple]:
    now = timezone.now()
    return [(match_group(match.pk), messages.control(match, action, now), late_of(match)),
            *summary_news(match, now)]


def end_news(match: Match) -> list[Triple]:
    return [(match_group(match.pk), messages.end(match), late_of(match)),
            *summary_news(match)]


def visibility_news(match: Match, was_public: bool) -> list[Triple]:
    news = summary_news(match)
    if was_public and not (match.published or match.public_live):
        gone = messages.withdrawn(match)
        news += [(LIST_GROUP, gone, 0), (match_group(match.pk), gone, 0)]
    return news


def notices_news() -> list[Triple]:
    message = messages.notices(for_everyone())
    return [(match_group(match_id), message, 0)
            for match_id in Match.objects.unfinished().values_list("pk", flat=True)]


def tournament_news(tournament_id: int) -> list[Triple]:
    """Something of a tournament's page changed (a fixture settled or judged, a round
    drawn, a match made or published): its judges may read it again now; everyone else
    hears of it once it has come to them, a spectator delay later (held as its lines
    are: that something changed tells something too), and reads it then."""
    tournament = Tournament.objects.filter(pk=tournament_id).only("settings").first()
    if tournament is None:
        return []
    now = epoch_ms(timezone.now())
    delay = int((tournament.settings or {}).get("delay_seconds", 0) or 0) * 1000
    return [(tournament_group(tournament_id, judges=True),
             messages.changed("tournament", tournament_id, now), 0),
            (tournament_group(tournament_id),
             messages.changed("tournament", tournament_id, now + delay), delay)]


# What the services call, in the transaction that stores the change (or after it): each
# posts its news to the outbox once the transaction commits.

def turns_announce(played: list[tuple[Match, Turn, dict[str, Any] | None]],
                   watched: bool = True) -> None:
    """Turns stored (several matches' at once: a clock's tick; `watched`: turn_news)."""
    OUTBOX.on_commit(partial(turns_news, played, watched))


def control_announce(match: Match, action: str) -> None:
    """The judges paused, resumed or extended a match: its sockets get its new timing
    (docs/live-protocol.md, "control"), its line the lists."""
    OUTBOX.on_commit(partial(control_news, match, action))


def end_announce(match: Match) -> None:
    """A game that ended without a turn (a player's time ran out, a void): the end to
    the match's sockets, its line to the lists."""
    OUTBOX.on_commit(partial(end_news, match))


def made_news(match: Match) -> list[Triple]:
    """A match made: its line to the lists; a later game of a match of several, the
    match's games to the sockets of the games before it (`next_game`), as late as the
    public may see the new game."""
    news = summary_news(match)
    if match.first_game_id:
        first = Match.objects.get(pk=match.first_game_id)
        games = [game.pk for game in match_games(first)]
        told = messages.next_game(games)
        news += [(match_group(game), told, late_of(match)) for game in games
                 if game != match.pk]
    return news


def summary_announce(match: Match) -> None:
    """A match's line changed (it was made, or its next game was): a later game's making
    is told to the games before it too."""
    OUTBOX.on_commit(partial(made_news, match))


def visibility_announce(match: Match, was_public: bool) -> None:
    """After a judge published or took back a match: its new line to the lists; when a
    public match turned private, everyone's list drops it and the sockets of viewers who
    may no longer watch it close."""
    OUTBOX.on_commit(partial(visibility_news, match, was_public))


def notices_announce() -> None:
    """The announcements to everyone, as they are now, to every match not over (the
    venue, the wall and the TV show them)."""
    OUTBOX.on_commit(notices_news)


def step_announce(match_id: int, late: int, build) -> None:
    """A protocol game's step (`build`: its message, built by the announcer)."""
    OUTBOX.post(lambda: [(match_group(match_id), build(), late)])


def tournament_announce(tournament_id: int) -> None:
    """A tournament's page changed otherwise than by a turn of its matches (those are its
    `line`s): its sockets are told to read it again (docs/live-protocol.md, "changed")."""
    OUTBOX.on_commit(partial(tournament_news, tournament_id))


def room_announce() -> None:
    """The control room's part changed otherwise than by a match's line (a question, an
    announcement): its sockets read it again."""
    OUTBOX.on_commit(room_news)


ROOM_HEARD_GAP = 1.0  # s: a team's requests tell the room this often at most
_room_heard: dict[int, float] = {}
_room_heard_lock = threading.Lock()


def room_heard(team_id: int) -> None:
    """A match's team sent a request (its health in the room: its last request, its
    answers' time): the room is told, once a ROOM_HEARD_GAP at most for each team, so
    that a team's flood costs the answers' thread a dictionary look."""
    now = time.monotonic()
    with _room_heard_lock:
        if now - _room_heard.get(team_id, -ROOM_HEARD_GAP) < ROOM_HEARD_GAP:
            return
        if len(_room_heard) > 10_000:
            _room_heard.clear()
        _room_heard[team_id] = now
    room_announce()
