"""A GPCC-style Swiss of eight handed-in Blokus Duo programs runs to its end with nobody
at a keyboard (issue 48's "done when"; docs/programs.md, "Tournaments of programs"):
programs in Python, C, JavaScript and one handed in as a compiled executable, each
playing as GPCC asked (4-character codes on its standard streams), every match played
by a Celery worker in sandboxes."""

import subprocess
import textwrap

import pytest
from django.core.management import call_command

from matches.hosting import sandbox
from matches.models import Fixture, HostedRun, Match, Submission, Tournament
from tests.hosting.test_scrimmage import LINES, start_worker, stop_worker, wait_for

# (one pass: the queue on Redis is the scrimmages' to show, in test_scrimmage.py)
pytestmark = [pytest.mark.one_backend,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

# Each plays its opening move (covering its start point), then nothing more: the first
# to move then runs out of time, and the second wins.
C = """
    #include <stdio.h>
    #include <stdlib.h>
    int main(void) {
        const char *side = getenv("SPECTATOR_FIRST");
        int first = side && side[0] == '1', played = 0;
        const char *mine = first ? "56u0" : "AAt0";
        char line[64];
        setvbuf(stdout, NULL, _IONBF, 0);
        if (first) { printf("%s\\n", mine); played = 1; }
        while (fgets(line, sizeof line, stdin)) {
            fprintf(stderr, "heard %s", line);
            if (!played) { printf("%s\\n", mine); played = 1; }
        }
        return 0;
    }
"""
JAVASCRIPT = """
    const first = process.env.SPECTATOR_FIRST === "1";
    const mine = first ? "56u0" : "AAt0";
    let played = false;
    if (first) { console.log(mine); played = true; }
    require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
        console.error("heard " + line);
        if (!played) { console.log(mine); played = true; }
    });
"""


def handed_in(tmp_path, capsys) -> list[int]:
    sources = {"python": ("main.py", LINES), "c": ("main.c", C),
               "javascript": ("main.js", JAVASCRIPT)}
    (tmp_path / "exe.c").write_text(textwrap.dedent(C))
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "program"), str(tmp_path / "exe.c")],
                   check=True)
    ids = []
    for number, language in enumerate(["python", "c", "javascript", "executable"] * 2):
        if language == "executable":
            path = tmp_path / "program"
        else:
            filename, text = sources[language]
            path = tmp_path / f"{number}-{filename}"
            path.write_text(textwrap.dedent(text))
        call_command("uploadprogram", str(path), "--team", f"Team {number + 1} ({language})",
                     "--game", "blokus-duo", "--language", language)
        ids.append(int(capsys.readouterr().out.strip()))
    return ids


def test_a_swiss_of_eight_handed_in_programs_runs_to_its_end_unattended(
        live_server_process, tmp_path, capsys):
    ids = handed_in(tmp_path, capsys)
    # a round's four matches at once: eight programs playing
    worker = start_worker(live_server_process, tmp_path / "worker.log", concurrency=8)
    try:
        call_command("createtournament", "Hosted Swiss", "--game", "blokus-duo", "--format",
                     "swiss", "--programs", *map(str, ids), "--clock", "2", "--start-in",
                     "0", "--gap", "0", "--public")
        tournament = Tournament.objects.get(name="Hosted Swiss")
        # its end, and every run's (a run is done once its worker has seen its match end)
        wait_for(lambda: Tournament.objects.get(pk=tournament.pk).finished_at is not None
                 and not HostedRun.objects.filter(match__fixture__tournament=tournament)
                 .exclude(status=HostedRun.DONE).exists(), 150)
    finally:
        stop_worker(worker)
    log = (tmp_path / "worker.log").read_text()[-3000:]
    assert Tournament.objects.get(pk=tournament.pk).finished_at is not None, log
    fixtures = Fixture.objects.filter(tournament=tournament)
    assert fixtures.count() == 12 and all(fixture.finished for fixture in fixtures)  # 3 x 4
    matches = Match.objects.filter(fixture__tournament=tournament)
    assert matches.count() == 12 and all(match.over for match in matches)
    runs = HostedRun.objects.filter(match__in=matches)
    assert runs.count() == 24 and {run.status for run in runs} == {HostedRun.DONE}, log
    # (a busy machine may start a run after its match has ended: its team then lost on
    # time, as any team that never moves; the runs that did start played their moves)
    assert {run.ended_by for run in runs} <= {"match over", "exited",
                                              "match over before it started"}, log
    assert {match.result["decided_by"] for match in matches} == {"time"}
    played = [match for match in matches if Submission.objects.filter(
        match=match, status_code=202, dialect="").exclude(actions=None)
        .values("team__index").distinct().count() == 2]
    assert played, log  # both programs' openings were relayed in one match at least
    for match in played:  # where both played, the second to move won on time
        assert match.result["winner"] == 1
