"""python manage.py extendmatch ID SECONDS [--reason TEXT] [--judge NAME]

Give a match's open step SECONDS more (docs/api.md, "Held by the judges"): a timed
game's deadlines, and its later games' starts, move by SECONDS; an alternating game's
mover gets SECONDS more thinking time. Refused (exit status 2, one line) for no such
match, a match over, SECONDS not above 0 or over an hour.
"""

from matches.management.commands.voidmatch import ControlCommand
from matches.services.control import match_extend


class Command(ControlCommand):
    help = "Give a match's open step (or the mover) more seconds."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("seconds", type=float)
        parser.add_argument("--reason", default="", help="why, kept in the audit")

    def act(self, match: int, judge: str, seconds: float, reason: str, **options) -> str:
        extended = match_extend(match_id=match, seconds=seconds, judge=judge, reason=reason)
        return f"match {extended.pk} extended by {seconds:g} s"
