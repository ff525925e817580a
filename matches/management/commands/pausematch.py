"""python manage.py pausematch ID --reason TEXT [--judge NAME]

Hold a running (or coming) match (docs/api.md, "Held by the judges"): its clock stops,
teams' requests are answered 409 `paused`, every screen shows "Paused by the judges:
<reason>". `resumematch ID` lets it go on with the time it had. Refused (exit status 2,
one line) for no such match, an empty reason, a match over, paused already, or played
over its own protocol.
"""

from matches.management.commands.voidmatch import ControlCommand
from matches.services.control import match_pause


class Command(ControlCommand):
    help = "Pause a match: its clock stops and teams are told it is paused."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--reason", required=True, help="why, as the screens show it")

    def act(self, match: int, judge: str, reason: str, **options) -> str:
        held = match_pause(match_id=match, reason=reason, judge=judge)
        return f"match {held.pk} is paused: {held.pause_reason}"
