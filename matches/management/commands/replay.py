"""python manage.py replay RECORD [-o TIMELINE.json] [--show [--delay S]]

Recompute a match record into its timeline (timeline/1) by the rules alone; no
database rows are read or written. RECORD is a match-record/1 of any game, or a
Blokus Duo game record (棋譜: one 4-character code a line). A record that is not
well formed is refused with one line naming the field (or the game record's line),
and exit status 2.
"""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand

from matches.management.helpers import read_record, write_output
from matches.rules import rules_for
from matches.rules.records import MatchRecord
from matches.rules.timeline import compute_timeline


class Command(BaseCommand):
    help = ("Write the timeline/1 of a match record, or of a Blokus Duo game record "
            "(stdout by default).")
    requires_system_checks: list = []  # pure computation: no database, no settings to check

    def add_arguments(self, parser):
        parser.add_argument("record", help="a match-record/1 JSON file or a Blokus Duo game "
                                           "record, or - for stdin")
        parser.add_argument("-o", "--output", help="write the timeline to this file")
        parser.add_argument("--show", action="store_true",
                            help="print the board and scores after every turn instead")
        parser.add_argument("--delay", type=float, default=0.0,
                            help="with --show, seconds to wait between turns")

    def handle(self, *args, record: str, output: str | None, show: bool, delay: float, **options):
        match = read_record(record)
        timeline = compute_timeline(match)
        if show:
            states = timeline["states"]
            for index, state in enumerate(states):
                last = index == len(states) - 1
                self.stdout.write(render_state(match, state, timeline.get("result") if last
                                               else None))
                time.sleep(0 if last else delay)
            return
        text = json.dumps(timeline, ensure_ascii=False)
        write_output(self, output, text + "\n")


def render_state(match: MatchRecord, state: dict, result: dict | None) -> str:
    """The board as text, any game: agents as team letter + number over the cells; each
    team's score and what failed in the words of its game's rules (as the audit has them)."""
    rules = rules_for(match.game)
    marks = {}
    for team, letter in enumerate("AB"):
        for agent, cell in enumerate(state["agents"][team]):
            if cell:
                marks[tuple(cell)] = f"{letter}{agent}"
    lines = [f"Turn {state['turn']} / {match.turns}"]
    numbers = rules.headline(state["scores"])
    for team, (score, number) in enumerate(zip(state["scores"], numbers, strict=True)):
        name = match.teams[team]["name"]
        lines.append(f"  {'AB'[team]} {name:<20} {number:>5}  ({rules.score_words(score)})")
    for y, row in enumerate(state["cells"]):
        lines.append(" ".join(marks.get((x, y), char).rjust(3) for x, char in enumerate(row)))
    lines.extend(
        f"  {'AB'[team]} {rules.said(outcome)}: {outcome['result']}, {outcome.get('reason', '')}"
        for team, outcomes in enumerate(state.get("outcomes", []))
        for outcome in outcomes if outcome["result"] != "ok"
    )
    if result:
        winner = "draw" if result["winner"] is None else match.teams[result["winner"]]["name"]
        lines.append(f"Result: {winner} (decided by {result['decided_by']})")
    return "\n".join(lines) + "\n"
