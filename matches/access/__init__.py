"""Who may see a match: the one rule every page, API route and socket applies.

A match is private to the judges (users with the `matches.judge` permission) and to
its own two teams (by their bearer token) until a judge publishes it. A tournament's
team (an Entrant) has one token for all its matches: it stands for that match's team
wherever a match is named, and for the entrant itself where none is (lists, sockets). A match the
organiser made public live may be watched by anyone from its start, and stays public
after its end until a judge unpublishes it.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils import timezone

from matches.access.delay import delayed
from matches.caches import Fresh, Kept
from matches.models import Entrant, Match, PracticeTeam, Team, storable_id, token_hash

JUDGE_PERMISSION = "matches.judge"
TEAMS_CACHED = 4096  # tokens whose team a process keeps: two per match, thousands of matches

# The teams this process has read, by their token's digest (with a match's id where the
# token plays several): a token is random and given once, so its digest never names
# another team, even where a rolled-back test's ids come back. Its team's token, match and
# index never change, and a team is read on every request. A token found nowhere is not
# kept (its team or match may be made later: CHaser's games as they start).
TEAMS = Kept("teams by token", entries=TEAMS_CACHED)
LATER_GAMES = Kept("teams by token in later games", entries=TEAMS_CACHED)
ENTRANTS = Kept("tournament teams by token", entries=TEAMS_CACHED)
ENTRANT_TEAMS = Kept("tournament teams' teams by token", entries=TEAMS_CACHED)
# The digests of the tokens this process has found a team (or tournament team) for: the
# answer endpoint tells a team's answer from a stranger's by it without a query, before
# either reaches a thread (matches/api_asgi.py).
KNOWN = Kept("known tokens", entries=2 * TEAMS_CACHED)
# A token reissued (matches/services/tokens.py) changes its team's digest: the
# generation of the tokens, on the cache every process shares, tells each process to
# drop what it keeps. A process looks at most once a TOKENS_LOOK_SECONDS, so an old
# token works at most that long after its reissue.
TOKENS_GENERATION = "tokens:generation"
TOKENS_LOOK_SECONDS = 1.0
GENERATION = Fresh("tokens generation", TOKENS_LOOK_SECONDS)


def tokens_changed() -> None:
    """A team's token was reissued: every process drops the teams it keeps (a new
    generation: a random name, never one seen before, even after the cache was emptied)."""
    cache.set(TOKENS_GENERATION, uuid.uuid4().hex, timeout=None)
    GENERATION.expire()  # this process, at once


def _tokens_fresh() -> None:
    GENERATION.get(_generation_read)


def _generation_read() -> str | None:
    """The generation on the shared cache; a new one drops the teams this process keeps."""
    seen = GENERATION.last
    try:
        now = cache.get(TOKENS_GENERATION, "")
    except Exception:  # a cache that fails never stops a team's request
        return "" if seen is None else seen  # (looked at again a second later)
    if seen is not None and now != seen:
        teams_forget()
    return now


def is_judge(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.has_perm(JUDGE_PERMISSION))


def public_filter() -> Q:
    """`is_public` as a filter."""
    return (Q(published=True) | Q(public_live=True)) & (
        Q(public_from=None) | Q(public_from__lte=timezone.now()))


def is_public(match: Match) -> bool:
    """Published, or public live: a match watched by everyone while it ran stays theirs
    after its end (a venue's screens reload between rounds), until a judge unpublishes it.
    A match made with a spectator delay is the public's once it is that old."""
    return (match.published or match.public_live) and (
        match.public_from is None or match.public_from <= timezone.now())


def visible_matches(user, matches: QuerySet[Match] | None = None,
                    team: Team | None = None) -> QuerySet[Match]:
    """`can_view` as a filter: all for judges; the public ones and the team's own otherwise."""
    matches = Match.objects.all() if matches is None else matches
    if is_judge(user):
        return matches
    if isinstance(team, Entrant):
        own = Q(pk__in=Team.objects.filter(entrant_id=team.pk).values("match_id"))
    else:
        own = Q(pk=team.match_id) | Q(first_game_id=team.match_id) if team is not None else Q()
    return matches.filter(public_filter() | own)


def not_its_match(holder: Team | Entrant, match_id: int) -> str:
    """Why a team's token is refused on a match that is not its own, told to its holder:
    whose token it is and what it is for (a tournament team's is for its matches)."""
    if isinstance(holder, Entrant):
        return (f"this is {holder.name}'s token for tournament {holder.tournament_id}: "
                f"match {match_id} is not one of its matches")
    return f"this token belongs to another match ({holder.match_id}), not {match_id}"


def team_by_authorization(header: str, match_id: int | None = None) -> Team | Entrant | None:
    """The team whose token an `Authorization: Bearer <token>` header carries, if any: the
    one reading of a bearer token, for the API, the lean answer path and the sockets.

    A token is given for a match's first game and serves its later games too (Procon
    2020's second): with `match_id` of such a game, the team is that game's own row.
    A tournament team's token: with `match_id` of one of its matches, its team there;
    else the Entrant (which owns no match of the id)."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    _tokens_fresh()
    digest = token_hash(token.strip())
    try:
        team = _team_of_digest(digest)
    except Team.DoesNotExist:
        return _entrant_team(digest, match_id)
    KNOWN.get(digest, lambda: True)
    if match_id is not None and match_id != team.match_id and storable_id(match_id):
        try:
            return _team_in_later_game(team, match_id)
        except Team.DoesNotExist:
            return team  # no later game of its match: the service refuses it as a stranger
    return team


class TokenRefused(Exception):
    """A request carried a bearer token that no team holds (made up, mistyped, or
    replaced by a new token): answered 401, whatever it asked for (docs/api.md,
    "Tokens"), never read as a stranger's request."""


def bearer_holder(header: str, match_id: int | None = None) -> Team | Entrant | None:
    """The team of an `Authorization` header's bearer token, as `team_by_authorization`
    (None: no bearer token at all); TokenRefused for a token that is nobody's. A
    registered practice team's token is somebody's: it reads as a stranger."""
    holder = team_by_authorization(header, match_id)
    scheme, _, token = header.strip().partition(" ")
    if holder is None and scheme.lower() == "bearer" and token.strip() and not \
            PracticeTeam.objects.filter(token_hash=token_hash(token.strip())).exists():
        raise TokenRefused("this token is no team's: it may have been replaced by a new "
                           "one (ask the judges), or mistyped")
    return holder


def _team_in_later_game(team: Team, match_id: int) -> Team:
    """The team of the same side in a later game of the team's match (a game's teams
    never change); Team.DoesNotExist if `match_id` is no such game."""
    return LATER_GAMES.get((team.token_hash, match_id), lambda: Team.objects.get(
        match_id=match_id, match__first_game_id=team.match_id, index=team.index))


def _entrant_team(digest: str, match_id: int | None) -> Team | Entrant | None:
    try:
        entrant = ENTRANTS.get(digest, lambda: Entrant.objects.get(token_hash=digest))
    except Entrant.DoesNotExist:
        return None
    KNOWN.get(digest, lambda: True)
    if match_id is not None and storable_id(match_id):
        try:
            return _team_of_entrant(entrant, match_id)
        except Team.DoesNotExist:
            pass
    return entrant


def _team_of_entrant(entrant: Entrant, match_id: int) -> Team:
    """The entrant's team in a match (any game of it); Team.DoesNotExist when it does
    not play it (its next fixture's match may be made later)."""
    return ENTRANT_TEAMS.get((entrant.token_hash, match_id), lambda: Team.objects.get(
        match_id=match_id, entrant_id=entrant.pk))


def owns(team: Team | Entrant | None, match: Match) -> bool:
    """Whether the team (by its token) plays in this match: its game or a later one."""
    if isinstance(team, Entrant):
        return side_in(team, match) is not None
    return team is not None and team.match_id in (match.pk, match.first_game_id)


def reads_own(holder: Team | Entrant | None, match_id: int) -> bool:
    """Whether a token's holder, as found for this match (`bearer_holder(header,
    match_id)`: the row of the game it plays there), plays in the match of this id: its
    own reads pass the visitors' gates; another match's token reads as a visitor."""
    return isinstance(holder, Team) and holder.match_id == match_id


def side_in(team: Team | Entrant | None, match: Match) -> int | None:
    """The index (0 or 1) of the token's team in this match, if it plays in it."""
    if isinstance(team, Entrant):
        try:
            return _team_of_entrant(team, match.pk).index
        except Team.DoesNotExist:
            return None
    return team.index if owns(team, match) else None


def teams_forget() -> None:
    """Drop the teams this process keeps (a match has gone): the next requests read them."""
    for kept in (TEAMS, LATER_GAMES, ENTRANTS, ENTRANT_TEAMS, KNOWN):
        kept.reset()


def token_known(header: str) -> bool:
    """Whether an `Authorization: Bearer <token>` header carries a token this process has
    already found a team for (False: unknown, or not yet seen here)."""
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip()) and \
        KNOWN.peek(token_hash(token.strip())) is not None


def _team_of_digest(digest: str) -> Team:
    """The team of a token's SHA-256. A plain get: `first()` would order by the teams'
    default ordering (a join)."""
    return TEAMS.get(digest, lambda: Team.objects.get(token_hash=digest))


def can_view(user, match: Match, team: Team | None = None) -> bool:
    """Judges, the match's own teams, and everyone once it is public."""
    return is_public(match) or can_view_private(user, match, team)


def can_view_private(user, match: Match, team: Team | None = None) -> bool:
    """Judges and the match's own teams: who may watch it whether it is public or not."""
    return is_judge(user) or owns(team, match)


def as_seen(user, match: Match, team: Team | Entrant | None = None) -> Match:
    """The match as this viewer sees it: live for the judges and its own teams, its
    spectator delay behind for everyone else (matches/access/delay.py)."""
    if not match.delay_s or can_view_private(user, match, team):
        return match
    return delayed(match)


def published_seen(match: Match, own: bool, now: datetime | None = None) -> Match | None:
    """A published match's end, as one viewer may read it (its records, scores and
    downloads, the published list): for the judges and its own teams (`own`) the match
    once it is over, for everyone else its delayed copy once its end has come to them;
    None before then, and for a match not published. The one rule of every such read."""
    if not match.published:
        return None
    shown = match if own else delayed(match, now)
    return shown if shown.over else None


SHOWN_ORDER = {Match.RUNNING: 0, Match.UPCOMING: 1, Match.FINISHED: 2}


def all_as_seen(user, matches: list[Match], team: Team | Entrant | None = None) -> list[Match]:
    """A list of matches (`selectors.recent_matches`: running, upcoming, finished) as
    this viewer sees each, still in that order by what it sees: a delayed match that
    ended live is still running to the public."""
    now = timezone.now()
    seen = [as_seen(user, match, team) for match in matches]
    return sorted(seen, key=lambda match: SHOWN_ORDER[match.status(now)])


# A team signed in on the pages (matches/views/pages.py, `team_sign_in`): its token
# checked once, then only the team's row id kept in the server's session, by match.
SESSION_TEAMS = "team_matches"


def session_team(request, match: Match) -> Team | None:
    """The team of this match that this browser signed in as, if any."""
    kept = getattr(request, "session", {}).get(SESSION_TEAMS, {})
    team_id = kept.get(str(match.first_game_id or match.pk))
    if team_id is None:
        return None
    team = Team.objects.filter(pk=team_id).first()
    return team if team is not None and owns(team, match) else None


def session_team_keep(request, match: Match, team: Team) -> None:
    """Remember in the session that this browser is the team (in every game of its
    match: kept as its first game's row, which owns them all)."""
    first = match.first_game_id or match.pk
    row = team if team.match_id == first else Team.objects.get(match_id=first, index=team.index)
    kept = dict(request.session.get(SESSION_TEAMS, {}))
    kept[str(first)] = row.pk
    request.session[SESSION_TEAMS] = dict(list(kept.items())[-50:])  # a few matches at most
