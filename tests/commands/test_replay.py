"""python manage.py replay: a record in, its timeline out; bad records exit 2 with one line."""

import json
import subprocess
import sys
from pathlib import Path

from tests.factories import record_json

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "conformance" / "kakomimasu"


def replay(*args, stdin=None):
    return subprocess.run([sys.executable, "manage.py", "replay", *args], cwd=ROOT,
                          capture_output=True, text=True, input=stdin)


def test_replay_writes_the_timeline_to_stdout():
    done = replay(str(VECTORS / "enclosure_ring.record.json"))
    assert done.returncode == 0, done.stderr
    expected = json.loads((VECTORS / "enclosure_ring.timeline.json").read_text())
    computed = json.loads(done.stdout)
    assert [s["cells"] for s in computed["states"]] == [s["cells"] for s in expected["states"]]
    assert computed["result"] == expected["result"]


def test_replay_writes_to_a_file_with_o(tmp_path):
    target = tmp_path / "timeline.json"
    done = replay(str(VECTORS / "tiebreak_wall.record.json"), "-o", str(target))
    assert done.returncode == 0 and done.stdout == ""
    assert json.loads(target.read_text())["format"] == "timeline/1"


def test_replay_reads_stdin():
    done = replay("-", stdin=json.dumps(record_json()))
    assert done.returncode == 0
    assert json.loads(done.stdout)["states"][1]["cells"] == ["A...", "....", "..BB"]


def test_a_bad_record_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record_json(turns=2)))
    done = replay(str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"CommandError: {bad}: actions: 3 turns of actions, but turns is 2"
    ]


def test_a_missing_file_exits_2():
    done = replay("no-such-record.json")
    assert done.returncode == 2
    assert "no-such-record.json: No such file or directory" in done.stderr


def test_show_prints_each_turn_and_the_result():
    done = replay(str(VECTORS / "tiebreak_wall.record.json"), "--show")
    assert done.returncode == 0
    record = json.loads((VECTORS / "tiebreak_wall.record.json").read_text())
    assert done.stdout.count("Turn ") == len(record["actions"]) + 1
    assert "Result: " in done.stdout
