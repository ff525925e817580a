"""The tournaments' read API: GET /api/tournaments and /api/tournaments/{id}
(docs/api.md, "Tournaments"). A tournament is shown to everyone when the organiser made
it public, else to judges and, with their token, to its own teams."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from ninja import Router, Schema, Status

from matches.access import bearer_holder, is_judge
from matches.admission import PAGE, cost
from matches.models import Entrant, Team, Tournament, storable_id
from matches.tournaments.table import tournament_data

router = Router(tags=["tournaments"])
LISTED = 50  # the most recent tournaments the list shows


class Error(Schema):
    error: str
    detail: str


class TeamEntry(Schema):
    index: int
    name: str
    short: str
    affiliation: str
    group: int | None
    # whether it passed the rehearsal, where the tournament asks for one (left out else)
    rehearsal: bool | None = None


class FixtureOut(Schema):
    id: int  # what `manage.py awardfixture` and the judges' forms name it by
    teams: list[int | None]  # seeds; the second null for a bye
    matches: list[int]
    winner: int | None
    finished: bool
    stage: str  # "" , "group", "knockout" or "third"
    group: int | None
    decided_by: str  # "games", "bye", "judge", "award" or "" (not yet)
    points: list[dict[str, int]]


class RoundOut(Schema):
    round: int
    fixtures: list[FixtureOut]


class StandingOut(Schema):
    rank: int
    team: int
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    score: float
    tiebreaks: dict[str, float]


class TournamentSummary(Schema):
    id: int
    name: str
    game: str
    format: str
    status: str
    start_at: int
    games_per_fixture: int
    teams: list[TeamEntry]
    standings: list[StandingOut]


class TournamentOut(TournamentSummary):
    rounds: list[RoundOut]


def visible_tournaments(request: HttpRequest) -> QuerySet[Tournament]:
    tournaments = Tournament.objects.all()
    if is_judge(request.user):
        return tournaments
    holder = bearer_holder(request.headers.get("Authorization", ""))
    own = Q(pk=-1)
    if isinstance(holder, Entrant):
        own = Q(pk=holder.tournament_id)
    elif isinstance(holder, Team) and holder.entrant_id:
        own = Q(entrants__pk=holder.entrant_id)
    return tournaments.filter(Q(public=True) | own).distinct()


@router.get("", response={200: list[TournamentSummary], 401: Error}, summary="Tournaments",
            description="The most recent tournaments the caller may see (the public ones; "
                        "with a team's token its own), each with its teams and standings.")
@cost(PAGE)
def list_tournaments(request: HttpRequest):
    now = timezone.now()
    shown = visible_tournaments(request).order_by("-start_at", "-pk")[:LISTED]
    public = not is_judge(request.user)
    return [_without_rounds(tournament_data(tournament, now, public)) for tournament in shown]


@router.get("/{tournament_id}", response={200: TournamentOut, 401: Error, 404: Error,
                                          422: Error},
            summary="A tournament: its teams, rounds, fixtures and standings",
            description="Fixtures and standings name teams by their `index` in `teams`. "
                        "Standings are ranked by the game's contest rules; `tiebreaks` holds "
                        "its tie-breaks (Blokus Duo: `solkoff`, `sb`).")
@cost(PAGE)
def get_tournament(request: HttpRequest, tournament_id: int):
    found = (visible_tournaments(request).filter(pk=tournament_id).first()
             if storable_id(tournament_id) else None)
    if found is None:
        return Status(404, {"error": "not_found",
                            "detail": f"there is no tournament {tournament_id}"})
    # its own teams read it live, as the judges do (docs/api.md, "The spectator delay")
    own = _own_tournament(request, found)
    return Status(200, tournament_data(found, timezone.now(),
                                       not (is_judge(request.user) or own)))


def _own_tournament(request: HttpRequest, tournament: Tournament) -> bool:
    """The request's bearer token is a team's of this tournament."""
    holder = bearer_holder(request.headers.get("Authorization", ""))
    if isinstance(holder, Entrant):
        return holder.tournament_id == tournament.pk
    return isinstance(holder, Team) and holder.entrant_id is not None and \
        Entrant.objects.filter(pk=holder.entrant_id, tournament_id=tournament.pk).exists()


def _without_rounds(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "rounds"}
