"""python manage.py reissuetoken MATCH TEAM
python manage.py reissuetoken --tournament ID TEAM

A new token for a team that lost its own (README, "The contest day"), printed once: TEAM
is A or B (or 0, 1, or the team's name) of a match, or a tournament team's seed (0 the
first) or name. The old token stops working within a second in every server process.
A match's team's token serves its later games too; a tournament team's, all its
matches. Refused (exit status 2, one line) for no such match, tournament or team.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from matches.models import Match, Tournament
from matches.services.tokens import token_reissue


class Command(BaseCommand):
    help = "Reissue a team's token (the old one stops working); the new one is printed once."

    def add_arguments(self, parser):
        parser.add_argument("match", type=int, nargs="?", help="the match (its first game)")
        parser.add_argument("team", help="A or B, 0 or 1, or its name; a tournament's: "
                                         "its seed or name")
        parser.add_argument("--tournament", type=int, help="a tournament's team instead")

    def handle(self, *args, match: int | None, team: str, tournament: int | None, **options):
        if tournament is not None:
            found = Tournament.objects.filter(pk=tournament).first()
            if found is None:
                raise CommandError(f"there is no tournament {tournament}", returncode=2)
            holders = {str(entrant.index): entrant for entrant in found.entrants.all()}
        else:
            if match is None:
                raise CommandError("the match (or --tournament) and the team", returncode=2)
            game = Match.objects.filter(pk=match).first()
            if game is None:
                raise CommandError(f"there is no match {match}", returncode=2)
            first = game.first_game or game
            holders = {str(row.index): row for row in first.teams.all()}
            holders |= {row.letter: row for row in first.teams.all()}
        chosen = holders.get(team.strip().upper() if len(team.strip()) == 1 else team.strip()) \
            or next((holder for holder in holders.values()
                     if holder.name.casefold() == team.strip().casefold()), None)
        if chosen is None:
            raise CommandError(f"no team {team!r} there", returncode=2)
        token = token_reissue(chosen)
        self.stdout.write(f"{chosen.name}'s new token (shown once; the old one no longer "
                          f"works): {token}")
