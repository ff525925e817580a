"""python manage.py resumematch ID [--judge NAME]

Let a paused match go on (docs/api.md, "Held by the judges"): the open step has as much
time as it had when paused (a timed game's deadlines, and its later games' starts, move
by the pause's length; an alternating game's mover is credited it). Refused (exit status
2, one line) for no such match or one that is not paused.
"""

from matches.management.commands.voidmatch import ControlCommand
from matches.services.control import match_resume


class Command(ControlCommand):
    help = "Resume a paused match, the pause's length given back."

    def act(self, match: int, judge: str, **options) -> str:
        went = match_resume(match_id=match, judge=judge)
        held = went.control_log[-1]["seconds"]
        return f"match {went.pk} resumed after {held:g} s"
