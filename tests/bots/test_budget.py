"""A bot's thinking time (`budget`): given only to bots that take it (matches.bots.ask,
seat_answer), by the arena to each team, and by the seats as the step's time left less a
margin, shared among the answers waiting (matches/services/seats.py)."""

import json
import random
from concurrent.futures import Future
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from matches import bots
from matches.boards.specs import board_spec_public
from matches.bots import arena, ask, seat_answer, takes_budget
from matches.services import seats as seats_module


def old_bot(public, team, rng):
    return [{"agent": 0, "type": "stay"}]


def test_a_budget_goes_only_to_bots_that_take_it():
    seen = []

    def new_bot(public, team, rng, budget=None):
        seen.append(budget)
        return []

    assert not takes_budget(old_bot) and takes_budget(new_bot)
    assert ask(old_bot, {}, 0, random.Random(1), 2.0) == [{"agent": 0, "type": "stay"}]
    ask(new_bot, {}, 0, random.Random(1), 2.0)
    ask(new_bot, {}, 0, random.Random(1))
    assert seen == [2.0, None]


def test_every_grid_level_takes_a_budget():
    for game in ("kakomimasu", "procon2020"):
        assert all(takes_budget(bot) for bot in bots.bots_for(game).values())


def test_seat_answer_gives_the_level_its_budget(monkeypatch):
    seen = []

    def level(public, team, rng, budget=None):
        seen.append((public["turn"], team, budget))
        return []

    monkeypatch.setattr(bots, "level_bot", lambda game, seat: level)
    seat_answer("kakomimasu", "level-4", json.dumps({"turn": 3}), 1, "s", 1.5)
    monkeypatch.setattr(bots, "level_bot", lambda game, seat: old_bot)
    assert seat_answer("kakomimasu", "level-1", json.dumps({"turn": 3}), 1, "s", 1.5)
    assert seen == [(3, 1, 1.5)]


def test_the_arena_gives_each_team_its_budget():
    seen = {0: set(), 1: set()}

    def player(public, team, rng, budget=None):
        seen[team].add(budget)
        return []

    board, _ = board_spec_public("kakomimasu", "A-1")
    arena.play_match("kakomimasu", board, 2, 3, (player, player), budgets=(0.2, None))
    assert seen == {0: {0.2}, 1: {None}}


def test_a_share_keeps_a_margin_is_shared_by_the_queue_and_capped():
    assert seats_module.share_of(2.0) == pytest.approx(2.0 - 0.25 - 0.2)
    assert seats_module.share_of(2.0, 3) == pytest.approx((2.0 - 0.25 - 0.2) / 3)
    assert seats_module.share_of(60.0) == seats_module.BUDGET_CAP
    assert seats_module.share_of(0.1) == seats_module.MIN_BUDGET  # late: answer at once


def test_think_budget_reads_the_step_and_the_chess_clock(monkeypatch):
    now = timezone.now()
    monkeypatch.setattr(seats_module, "next_deadline", lambda match, at: now + timedelta(seconds=3))
    timed, clocked = SimpleNamespace(alternating=False), SimpleNamespace(alternating=True)
    assert seats_module.think_budget(timed, now) == pytest.approx(3 - 0.25 - 0.3)
    assert seats_module.think_budget(timed, now, 2) == pytest.approx((3 - 0.25 - 0.3) / 2)
    assert seats_module.think_budget(clocked, now) == seats_module.MIN_BUDGET  # 0.3 s of 3
    monkeypatch.setattr(seats_module, "next_deadline", lambda match, at: None)
    assert seats_module.think_budget(timed, now) is None


@pytest.mark.django_db(transaction=True)
def test_a_seated_level_is_given_its_steps_time_left(monkeypatch):
    from tests.factories import make_match

    match, _ = make_match(strategy=2.0, start_in=-0.2, agents=2, turns=3)
    match.teams.filter(index=1).update(seat="level-4", name="Level 4")
    asked = []

    def thinker(function, *arguments):
        asked.append(arguments)
        done = Future()
        done.set_result(function(*arguments))
        return done

    monkeypatch.setattr(seats_module.seats.thinker, "submit", thinker)
    assert seats_module.seats_tick(timezone.now(), woken=True) is True
    seats_module.seats.executor.submit(lambda: None).result(30)
    assert len(asked) == 1
    game, seat, _, index, _, budget = asked[0]
    assert (game, seat, index) == ("kakomimasu", "level-4", 1)
    assert 0.5 < budget < 2.0 - 0.2 - 0.25  # the step's time left, less the margin
