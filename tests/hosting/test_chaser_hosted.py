"""A CHaser scrimmage between two handed-in programs, served and played by a Celery
worker: each game's programs start in sandboxes and connect over TCP to the contest's
port inside (2009 or 2010, both leading to their own seat), as a team's program does at
a venue; every line is stored, the games follow one another with the sides swapped, and
the runs end with the match (docs/programs.md, "CHaser programs")."""

import pytest

from matches.hosting import sandbox
from matches.models import HostedRun, Match, Submission
from tests.hosting.test_scrimmage import scrimmaged, uploaded, wait_for, worker  # noqa: F401

pytestmark = [pytest.mark.one_backend,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

# A CHaser program as teams write them with the public client libraries' calls: connect
# to the server's port, send a name, then for each `@`: `gr`, read what is around,
# one command, read its answer, `#`. It walks to a free cell next to it, else looks up.
PROGRAM = """
    import os, socket, sys

    # as a public client library without arguments asks: the port, a name, local? (y)
    port, name, local = int(input("port? ")), input("name? "), input("local? (y/n)")
    assert sys.argv[-4:] == ["--host", "127.0.0.1", "--port", str(port)]  # (Maizuru's)
    assert local == "y" and port == int(os.environ["CHASER_PORT"]) in (2009, 2010)
    connection = socket.create_connection(("127.0.0.1", port))
    stream = connection.makefile("rwb")

    def send(text):
        stream.write(text.encode() + b"\\r\\n")
        stream.flush()

    def heard():
        line = stream.readline()
        return line.decode().strip() if line else ""

    send("walker")
    moves = {"2": "wu", "4": "wl", "6": "wr", "8": "wd"}
    steps = 0
    while heard() == "@":
        send("gr")
        ready = heard()
        if not ready or ready[0] == "0":
            break
        around = ready[1:]
        free = [moves[str(place)] for place in (2, 4, 6, 8) if around[place - 1] in "03"]
        send(free[steps % len(free)] if free else "lu")
        answer = heard()
        if not answer or answer[0] == "0":
            break
        send("#")
        steps += 1
    print("played", steps, "steps on port", port, file=sys.stderr, flush=True)
"""


def test_a_chaser_program_handed_in_plays_a_hosted_match_over_tcp(worker, tmp_path,  # noqa: F811
                                                                  capsys):
    ids = uploaded(tmp_path, capsys, PROGRAM, ("Asahikawa", "Maizuru"), "chaser")
    match = scrimmaged(capsys, ids, "--board", "akisato_m01", "--turns", "20")
    assert match.game == "chaser" and match.match_games == 3
    assert list(match.teams.order_by("index").values_list("name", flat=True)) == \
        ["Asahikawa", "Maizuru"]

    def games():
        return list(Match.objects.filter(pk=match.pk)) + list(
            Match.objects.filter(first_game_id=match.pk).order_by("pk"))

    def played_out() -> bool:
        return set(HostedRun.objects.filter(match=match).values_list(
            "status", flat=True)) == {HostedRun.DONE}

    assert wait_for(played_out, 120), worker.read_text()[-3000:]
    played = games()
    assert 2 <= len(played) <= 3 and all(game.over for game in played), \
        worker.read_text()[-3000:]
    first = played[0]
    assert first.result.get("decided_by") != "void", first.result
    # The sides swap: the first team is Cool (named first) in game 1, Hot in game 2.
    assert [team.name for team in played[1].teams.order_by("index")] == \
        [team.name for team in first.teams.order_by("index")][::-1]
    for game in played:
        lines = [bytes(body).rstrip() for body in Submission.objects.filter(
            match=game, content_type__startswith="text/plain").values_list("body", flat=True)]
        assert lines.count(b"walker") == 2  # each program's name line
        assert lines.count(b"gr") >= 2 and lines.count(b"#") >= 2
    runs = HostedRun.objects.filter(match=match)
    assert {run.ended_by for run in runs} <= {"match over"}, [r.ended_by for r in runs]
    output = Submission.objects.filter(match=first, detail__startswith="program output")
    assert output.exists() and b"played" in bytes(output.first().body)
    from matches.selectors import match_verify
    assert all(match_verify(game).verified for game in played)
    assert "match" in played[-1].result  # the deciding game says who won the match


def test_a_program_that_never_comes_to_its_seat_voids_the_match_and_says_so(
        worker, tmp_path, capsys):  # noqa: F811
    ids = uploaded(tmp_path, capsys, "import sys; sys.exit(3)\n", ("Kure", "Toba"), "chaser")
    match = scrimmaged(capsys, ids)
    assert wait_for(lambda: set(HostedRun.objects.filter(match=match).values_list(
        "status", flat=True)) == {HostedRun.DONE}, 60), worker.read_text()[-3000:]
    ended = Match.objects.get(pk=match.pk)
    assert ended.over and ended.result["decided_by"] == "void"
    assert "never came to its seat" in ended.result["reason"]
    assert set(HostedRun.objects.filter(match=match).values_list("ended_by", flat=True)) == \
        {"no show (exit 3)"}


def test_a_tournament_of_chaser_programs_is_served_and_played_to_its_end(
        worker, tmp_path, capsys):  # noqa: F811
    from django.core.management import call_command

    from matches.models import Fixture, Tournament

    ids = uploaded(tmp_path, capsys, PROGRAM, ("Asahikawa", "Maizuru"), "chaser")
    call_command("createtournament", "Hosted CHaser", "--game", "chaser", "--format",
                 "knockout", "--programs", *map(str, ids), "--turns", "15", "--boards",
                 "akisato_m01", "--start-in", "0", "--gap", "0", "--public")
    assert "chaserserver" not in capsys.readouterr().out  # (nobody need run a server)
    tournament = Tournament.objects.get(name="Hosted CHaser")
    assert wait_for(lambda: Tournament.objects.get(pk=tournament.pk).finished_at is not None,
                    150), worker.read_text()[-3000:]
    fixture = Fixture.objects.get(tournament=tournament)
    games = Match.objects.filter(fixture=fixture).order_by("pk")
    assert 2 <= games.count() <= 3 and all(game.over for game in games)
    assert all(team.entrant_id for game in games for team in game.teams.all())
    assert fixture.finished and fixture.winner in (0, 1) and fixture.decided_by == "games"
