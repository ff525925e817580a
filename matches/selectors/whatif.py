"""What if (docs/api.md, "What if"): from any turn of a match, other actions, the
match's own, or a built-in player, for either team, computed by the same pure rules as
the match itself; nothing is stored. The turns up to the branch are the match's
counted actions (its record); the variation's are the caller's, then each team's
choice in `play_on` (matches/variations.py plays it).

Built-in players think for seconds, which a server's own process must never spend
beside the clock and the teams' answers, and a visitor could ask for minutes of them.
So each what-if is a job (matches/jobs.py): a process of its own, forked at once, that
is killed when its budget is spent or its caller stops waiting; the machine computes
a few at once (however many server processes it has), refuses more at once, and never
makes a board picture wait behind one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from django.conf import settings

from matches import jobs
from matches.admission import TooBusy
from matches.selectors.records import match_record
from matches.variations import WhatIfError, whatif_play

if TYPE_CHECKING:
    from matches.models import Match

# A what-if's budget, in seconds of its process's time (its caller waits this long, and
# its CPU is limited to about as much). Level-4 players on the largest boards think about
# a second a turn (bench/jobs.py): 15 s is a long variation on a contest's board, and
# holds one of a server's request threads and one core no longer than that.
WHATIF_SECONDS = 15
# What-ifs computed at once on the machine, by all its server processes: a core each, and
# a core always left to the clock, the answers and the pictures (one what-if on two
# cores), and tens of MiB each on the largest boards (bench/attack.py --floods whatif).
# One asked for beyond them is refused.
WHATIFS_AT_ONCE = max(1, len(os.sched_getaffinity(0)) - 1)
JOBS = jobs.Jobs("what-if", WHATIFS_AT_ONCE, settings.JOBS_DIR)


class WhatIfsBusy(TooBusy):
    """Every place for a what-if on this machine is taken: 429 `too_busy`, with
    `Retry-After`, as the gates' refusals are (matches/admission.py)."""

    def __init__(self) -> None:
        Exception.__init__(self, "as many what-ifs as this server computes at once "
                                 f"({WHATIFS_AT_ONCE}) are under way: try again in a few "
                                 "seconds")
        self.gate = "whatif"


class WhatIfUnfinished(Exception):
    """A what-if that was not computed to its end: `code` says why (`too_long`, its
    budget spent; `busy`, its process lost), the words what to do (answered 503)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def whatif(match: Match, from_turn: Any, turns: Any, play_on: Any = None) -> dict[str, Any]:
    """The timeline/1 states of the turns after `from_turn`: first the given `turns`
    (each [team 0's actions, team 1's], as match-record/1 writes them; a team's `null`
    is its `play_on` choice), then `play_on["turns"]` more, each team's actions its
    choice in `play_on["teams"]` (a level, "as-played", or nothing). Every turn's
    actions as played (`turns`), and the result if the variation ends the game.

    The match is read here; the variation is played in a job's process (WHATIF_SECONDS
    at most): WhatIfError for a variation that cannot be played, WhatIfsBusy when this
    machine computes WHATIFS_AT_ONCE already, WhatIfUnfinished when it was not computed
    to its end."""
    if type(from_turn) is not int or not 0 <= from_turn <= match.resolved_turns:
        raise WhatIfError(f"from_turn: a turn of the match, 0 to {match.resolved_turns}")
    record = match_record(match).to_json()
    try:
        return JOBS.run(whatif_play, record, from_turn, turns, play_on,
                        f"whatif-{match.pk}-{from_turn}", seconds=WHATIF_SECONDS)
    except jobs.AllBusy:
        raise WhatIfsBusy() from None
    except jobs.BudgetSpent:
        raise WhatIfUnfinished("too_long", (
            f"this what-if needs more than the {WHATIF_SECONDS} s of computing one may "
            "take: ask for fewer play_on turns, or weaker built-in players")) from None
    except jobs.JobFailed:
        raise WhatIfUnfinished("busy", "the what-if's process was lost: try again in a "
                                       "moment") from None
