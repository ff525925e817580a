"""Built-in players seated at a team of a match (a practice match's level: `Team.seat`
"level-1" to "level-4"): each answers every step of its team through the answer service,
as a team's program would, with what the API shows it.

After each tick the clock asks which seated teams have an open step they have not
answered; each such answer is read and sent from a thread of its own (one for the
process), never the clock's, and the thinking itself is done in a process of its own
(one, started when first needed): a searching level thinks for seconds, and neither
the clock nor the answers of teams' programs may wait for it, not even for the
interpreter's lock. The same tick takes down the guests' practice matches whose time is
up (`services/practice.py`), at most once a minute.

How long a level may think (`think_budget`, the `budget` its bot is given): the time
its step has left when its answer starts (a timed game: until the step's deadline; an
alternating game: a tenth of what the mover's chess clock has left, so that a whole
game fits in it), less a safety margin (a quarter of a second and a tenth of the
time: reading the state, sending the answer), shared out among the answers waiting:
one thread sends the answers and one process thinks, so the answers of several seated
matches are worked out one after the other, and each takes its share of what is left
(divided by the answers under way or queued, this one included: the first of three
takes a third, the next half of what is then left, and so on), never more than
BUDGET_CAP seconds. We chose this over a pool of thinking processes: the machine may
have two cores only, and the server's own threads need one.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from django.db import close_old_connections, connections
from django.db.models import Prefetch
from django.dispatch import receiver
from django.utils import timezone

from matches.bots import bots_for, level_bot, seat_answer, warm_up
from matches.models import Match, Team
from matches.rules import GAMES, rules_for
from matches.selectors.clocks import next_deadline
from matches.selectors.texts import public_state_text
from matches.services.clock import clock_ticked
from matches.services.submissions import submission_by_bot
from matches.workers import BrokenProcessPool, Worker

log = logging.getLogger(__name__)

TICK = 0.2  # how soon a clock with seated players looks again
LOOK_SECONDS = 30.0  # the seated matches are read again this often all the same
SWEEP_SECONDS = 60.0


class Seats:
    """This process's view of the seated players: the matches that have them, the steps
    already answered or being worked out."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.matches: set[int] = set()
        self.read_at: datetime | None = None
        self.swept_at: datetime | None = None
        self.busy: set[tuple[int, int, int]] = set()  # (match, team index, turn) under way
        self.answered: dict[tuple[int, int], int] = {}  # (match, team index) -> its turn
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="seats")
        # the process the levels think in (spawned: it imports only the bots and rules)
        self.thinker = Worker("thinker", warm_up)


seats = Seats()
# the games whose levels answer here (a game played over its own protocol seats programs
# that connect to its server, as its practice server does: not these)
SEATED_GAMES = [game for game in GAMES if bots_for(game)]


def seats_tick(now: datetime, woken: bool = False) -> bool:
    """Start the answers that are due; True while seated players have matches."""
    if woken or seats.read_at is None or now - seats.read_at > timedelta(seconds=LOOK_SECONDS):
        seats.read_at = now
        seats.matches = set(Match.objects.unfinished().filter(
            teams__seat__startswith="level-", game__in=SEATED_GAMES).values_list("pk", flat=True))
    if seats.swept_at is None or now - seats.swept_at > timedelta(seconds=SWEEP_SECONDS):
        seats.swept_at = now
        from matches.services.practice import practice_sweep

        if practice_sweep(now):
            seats.read_at = None
    if not seats.matches:
        return False
    seated = Prefetch("teams", queryset=Team.objects.filter(seat__startswith="level-"),
                      to_attr="seated")  # two queries a tick, however many matches
    for match in Match.objects.running(now).filter(pk__in=seats.matches).prefetch_related(seated):
        turn = match.strategy_turn(now)
        if turn is None or match.resolved_turns != turn - 1:
            continue
        mover = rules_for(match.game).mover(turn) if match.alternating else None
        for team in match.seated:
            key = (match.pk, team.index, turn)
            with seats.lock:
                if mover not in (None, team.index) or seats.answered.get(key[:2]) == turn \
                        or key in seats.busy:
                    continue
                seats.busy.add(key)
            seats.executor.submit(_answer, key, team.pk)
    return True


def _answer(key: tuple[int, int, int], team_id: int) -> None:
    """One seated player's answer for one step (on the seats' thread): `key` is (match,
    team index, turn)."""
    match_id, index, turn = key
    close_old_connections()
    try:
        team = Team.objects.select_related("match").get(pk=team_id)
        match, now = team.match, timezone.now()
        bot = level_bot(match.game, team.seat)
        if bot is None or match.strategy_turn(now) != turn or match.resolved_turns != turn - 1:
            return
        with seats.lock:
            waiting = len(seats.busy)
        budget = think_budget(match, now, waiting)
        state = public_state_text(match, index, now).decode()
        actions = seats.thinker.submit(seat_answer, match.game, team.seat, state, index,
                                       f"{match_id}-{index}-{turn}", budget
                                       ).result(THINK_LIMIT)
        submission_by_bot(team, {"actions": actions, "turn": turn}, timezone.now(), team.seat)
        with seats.lock:
            seats.answered[(match_id, index)] = turn
            if len(seats.answered) > 4096:
                seats.answered.clear()
    except Team.DoesNotExist:
        return  # taken down meanwhile
    except BrokenProcessPool:  # its process died (killed, or out of memory): a new one
        seats.thinker.forget()
        log.warning("the seated players' process had gone; a new one starts")
    except Exception:  # one player's trouble must stop neither the others nor the thread
        log.exception("seated player of team %s could not answer turn %s", team_id, turn)
    finally:
        with seats.lock:
            seats.busy.discard(key)
        connections.close_all()


THINK_LIMIT = 10.0  # seconds a level may take before its answer is given up
BUDGET_CAP = 3.0  # seconds a level thinks at most, however long its step
CLOCK_SHARE = 10  # an alternating game's level spends 1/CLOCK_SHARE of its clock a move
MIN_BUDGET = 0.05


def think_budget(match: Match, now: datetime, waiting: int = 1) -> float | None:
    """The seconds a seated level of `match` may think on the step open at `now`, with
    `waiting` answers (this one included) to be worked out one after the other (see the
    module's docstring); None where the step has no deadline (its quick default)."""
    deadline = next_deadline(match, now)
    if deadline is None:
        return None
    left = (deadline - now).total_seconds()
    if match.alternating:
        left /= CLOCK_SHARE
    return share_of(left, waiting)


def share_of(left: float, waiting: int = 1) -> float:
    """What one answer of `waiting` may think in `left` seconds: less the margin,
    shared, capped (MIN_BUDGET at least: a level always answers)."""
    usable = left - 0.25 - 0.1 * left
    return max(MIN_BUDGET, min(BUDGET_CAP, usable / max(1, waiting)))


@receiver(clock_ticked)
def _clock_ticked(sender, now: datetime, woken: bool, **kwargs) -> float | None:
    return TICK if seats_tick(now, woken) else None
