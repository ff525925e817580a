"""python manage.py replay RECORD.json [-o TIMELINE.json] [--show [--delay S]]

Recompute a match record (match-record/1) into its timeline (timeline/1) by the
rules alone; no database rows are read or written. A record that is not well
formed is refused with one line naming the field, and exit status 2.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.rules.records import RecordError, parse_record
from matches.rules.timeline import compute_timeline


def read_record(path: str):
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}", returncode=2) from None
    try:
        return parse_record(raw)
    except RecordError as error:
        raise CommandError(f"{path}: {error}", returncode=2) from None


class Command(BaseCommand):
    help = "Write the timeline/1 of a match record (stdout by default)."
    requires_system_checks: list = []  # pure computation: no database, no settings to check

    def add_arguments(self, parser):
        parser.add_argument("record", help="a match-record/1 JSON file, or - for stdin")
        parser.add_argument("-o", "--output", help="write the timeline to this file")
        parser.add_argument("--show", action="store_true",
                            help="print the board and scores after every turn instead")
        parser.add_argument("--delay", type=float, default=0.0,
                            help="with --show, seconds to wait between turns")

    def handle(self, *args, record: str, output: str | None, show: bool, delay: float, **options):
        match = read_record(record)
        timeline = compute_timeline(match)
        if show:
            for state in timeline["states"]:
                self.stdout.write(render_state(match, state, timeline.get("result")))
                time.sleep(delay if state["turn"] < len(timeline["states"]) - 1 else 0)
            return
        text = json.dumps(timeline, ensure_ascii=False)
        if output:
            Path(output).write_text(text + "\n", encoding="utf-8")
        else:
            self.stdout.write(text)


def render_state(match, state: dict, result: dict | None) -> str:
    """The board as text: agents as team letter + number, walls A/B, territory a/b."""
    marks = {}
    for team, letter in enumerate("AB"):
        for agent, cell in enumerate(state["agents"][team]):
            if cell:
                marks[tuple(cell)] = f"{letter}{agent}"
    lines = [f"Turn {state['turn']} / {match.turns}"]
    for team, score in enumerate(state["scores"]):
        name = match.teams[team]["name"]
        details = ", ".join(f"{key} {value}" for key, value in score.items() if key != "total")
        lines.append(f"  {'AB'[team]} {name:<20} {score.get('total', '')!s:>5}  ({details})")
    for y, row in enumerate(state["cells"]):
        lines.append(" ".join(marks.get((x, y), char).rjust(3) for x, char in enumerate(row)))
    failed = [
        f"  {'AB'[team]} agent {o.get('agent')}: {o['result']}, {o.get('reason', '')}"
        for team, outcomes in enumerate(state.get("outcomes", []))
        for o in outcomes if o["result"] != "ok"
    ]
    lines.extend(failed)
    if result and state is not None and state["turn"] == match.turns:
        winner = "draw" if result["winner"] is None else match.teams[result["winner"]]["name"]
        lines.append(f"Result: {winner} (decided by {result['decided_by']})")
    return "\n".join(lines) + "\n"
