"""A step of a game played step by step carries what the game's rules say of the
position after it (who leads, each card's words), so the screens draw a step's number,
▲ and words from one moment (docs/live-protocol.md, `step`)."""

from matches.live import messages
from matches.rules import rules_for


def chaser_state(cool: int, hot: int) -> dict:
    return {"turn": 6, "cells": ["..."], "agents": [[[3, 4]], [[9, 4]]],
            "scores": [{"items": cool}, {"items": hot}]}


def test_a_step_says_who_leads_and_the_cards_words_of_its_own_position():
    step = messages.step(7, 0, "wr", "ok", chaser_state(14, 13), rules=rules_for("chaser"))
    assert step["lead"] == rules_for("chaser").lead([{"items": 14}, {"items": 13}])
    assert step["lead"]["team"] == 0
    assert "14" in step["panel"]["words"][0] and "13" in step["panel"]["words"][1]
    assert set(step["panels"]) == {"ja", "vi", "en"}
    assert step["panels"]["en"] == step["panel"]


def test_a_step_without_rules_is_the_bare_step():
    step = messages.step(7, 1, None, "fault", chaser_state(1, 2), reason="timed out")
    assert "lead" not in step and "panel" not in step
