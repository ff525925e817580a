"""The `matches` app's models, in two parts that import nothing of each other's
module: the play itself (`play`: boards, matches, teams, the requests teams sent, the
turns) and the contests around it (`tournaments`: tournaments, their entrants and
fixtures, which matches and teams point to by name). The rest of the code imports them
from here; no feature's module is imported by the core's."""

from matches.models.ladder import LadderGame, LadderStanding
from matches.models.notices import Announcement, Question
from matches.models.play import (
    MAX_ID,
    Board,
    Match,
    PracticeTeam,
    RequestTally,
    Submission,
    Team,
    Turn,
    new_token,
    storable_id,
    token_hash,
)
from matches.models.programs import HostedRun, Program, ProgramVersion
from matches.models.tournaments import Entrant, Fixture, Tournament

__all__ = ["Announcement", "Board", "Entrant", "Fixture", "HostedRun", "LadderGame",
           "LadderStanding",
           "Match", "PracticeTeam", "Program", "ProgramVersion",
           "Question", "RequestTally", "Submission", "Team", "Tournament", "Turn",
           "MAX_ID", "new_token", "storable_id", "token_hash"]
