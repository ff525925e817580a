"""/programs/ and /control/programs/ (docs/programs.md, "The pages"): a team signs in with
its token and sees its own programs only, hands in versions (built later by a worker:
none runs here) and asks for scrimmages, each refusal said in the page's language; the
judges see every team's programs and start scrimmages between any two of a game."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from matches.models import HostedRun, Match, Program, ProgramVersion
from matches.services import programs, scrimmages
from matches.views import programs as views
from tests.factories import make_match
from tests.i18n.test_pages import data_words, english_words, left_in_english

pytestmark = pytest.mark.django_db


@pytest.fixture
def teams():
    """Two teams with a token each, and a record of the builds handed to the workers."""
    _, tokens = make_match(teams=("Kosen Nara", "Hà Nội"))
    return tokens


@pytest.fixture(autouse=True)
def builds(monkeypatch):
    queued = []
    monkeypatch.setattr(views, "build_soon", queued.append)
    return queued


def signed_in(token: str, **headers) -> Client:
    client = Client(**headers)
    answer = client.post("/programs/", {"token": token})
    assert answer.status_code == 302 and answer.headers["Location"] == "/programs/"
    return client


def built(name: str, game: str = "kakomimasu", log: str = "build: ok") -> Program:
    """A program of team `name` with one version a worker built (its log `log`)."""
    version = programs.program_hand_in(game=game, name=name, language="python",
                                       filename="main.py", data=b"print(1)\n", by="judge:t")
    ProgramVersion.objects.filter(pk=version.pk).update(status=ProgramVersion.READY,
                                                       build_log=log, built=b"x")
    return version.program


def hand_in(client: Client, data: bytes = b"print(1)\n", name: str = "main.py", **fields):
    form = {"game": "kakomimasu", "language": "python",
            "file": SimpleUploadedFile(name, data), **fields}
    return client.post("/programs/hand-in", form)


def test_a_team_signs_in_with_its_token_and_sees_only_its_own_programs(teams):
    built("Kosen Nara", log="nara secret build log")
    built("Hà Nội", log="hanoi secret build log")
    anonymous = Client().get("/programs/").content.decode()
    assert 'name="token"' in anonymous and "secret build log" not in anonymous
    refused = Client().post("/programs/", {"token": "not-a-token"}, HTTP_ACCEPT_LANGUAGE="ja")
    assert refused.status_code == 403 and "チームのトークン" in refused.content.decode()
    client = signed_in(teams[0])
    page = client.get("/programs/").content.decode()
    assert "Kosen Nara" in page and "nara secret build log" in page
    assert "hanoi secret build log" not in page
    assert teams[0] not in page and teams[0] not in str(dict(client.session))
    client.post("/programs/sign-out")
    assert "nara secret build log" not in client.get("/programs/").content.decode()


def test_the_forms_need_the_pages_csrf_token(teams, builds):
    client = signed_in(teams[0])
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = client.cookies
    assert hand_in(strict).status_code == 403
    assert strict.post("/programs/scrimmage", {"program": 1, "opponent": "level-1"}) \
        .status_code == 403
    assert not ProgramVersion.objects.exists() and builds == []
    assert 'href="/programs/"' in Client().get("/").content.decode()  # the front page's link


def test_a_replaced_token_signs_its_browsers_out(teams):
    from matches.models import Team
    from matches.services.tokens import token_reissue

    built("Kosen Nara", log="nara secret build log")
    client = signed_in(teams[0])
    token_reissue(Team.objects.get(name="Kosen Nara"))
    assert "secret build log" not in client.get("/programs/").content.decode()


def test_a_version_handed_in_on_the_page_is_stored_and_queued_for_a_worker(teams, builds):
    client = signed_in(teams[0])
    answer = hand_in(client, b"print('hello')\n", name="bot.py")
    assert answer.status_code == 302
    version = ProgramVersion.objects.get()
    assert (version.program.name, version.number, version.status, version.filename) == \
        ("Kosen Nara", 1, "building", "bot.py")
    assert builds == [version.pk]
    page = client.get(answer.headers["Location"]).content.decode()
    assert "Version 1" in page and "building" in page and "Queued for a worker" in page


def test_a_refusal_is_said_in_the_pages_language(teams, monkeypatch, builds):
    client = signed_in(teams[0], HTTP_ACCEPT_LANGUAGE="ja")
    answer = hand_in(client, language="cobol")
    assert answer.status_code == 400 and "言語" in answer.content.decode()
    empty = hand_in(client, b"")
    assert empty.status_code == 400
    monkeypatch.setattr(programs, "HAND_INS_AN_HOUR", 1)
    assert hand_in(client).status_code == 302
    again = Client(HTTP_ACCEPT_LANGUAGE="vi")
    again.cookies = client.cookies
    refused = hand_in(again)
    assert refused.status_code == 429 and "giờ" in refused.content.decode()
    assert ProgramVersion.objects.count() == 1 and len(builds) == 1


def raw_hand_in(client: Client, filename: bytes, data: bytes = b"print(1)\n"):
    """A hand-in as a browser (or anyone) may send it: the file's name as bytes, unchecked."""
    parts = [b'name="game"\r\n\r\nkakomimasu', b'name="language"\r\n\r\npython',
             b'name="file"; filename="' + filename + b'"\r\n'
             b"Content-Type: application/octet-stream\r\n\r\n" + data]
    body = b"".join(b"--BOUNDARY\r\nContent-Disposition: form-data; " + part + b"\r\n"
                    for part in parts) + b"--BOUNDARY--\r\n"
    return client.generic("POST", "/programs/hand-in", body,
                          content_type="multipart/form-data; boundary=BOUNDARY")


def test_a_hostile_file_name_or_a_huge_file_gets_a_clear_refusal(teams, builds):
    client = signed_in(teams[0])
    for nameless in (b"..", b".", b"/", b"\xff\xfe.py"):
        answer = raw_hand_in(client, nameless)
        assert answer.status_code == 400 and "Choose the file" in answer.content.decode()
    for hostile, kept in ((b"../../etc/passwd", "passwd"), (b"C:\\x\\main.py", "main.py"),
                          (b"bad\nname\x00.py", "badname.py"), (b"a\x1b[2Jb.py", "a[2Jb.py"),
                          (b"x" * 300 + b".py", "x" * 252 + ".py")):
        assert raw_hand_in(client, hostile).status_code == 302
        assert ProgramVersion.objects.order_by("-pk").first().filename == kept  # a name only
    count = ProgramVersion.objects.count()
    huge = hand_in(client, b"x" * (programs.SOURCE_LIMIT + 1))
    assert huge.status_code == 413 and "8 MiB" in huge.content.decode()
    larger = hand_in(client, b"x" * (programs.SOURCE_LIMIT + (1 << 20)))
    assert larger.status_code == 413 and "8 MiB" in larger.content.decode()
    assert ProgramVersion.objects.count() == count == len(builds)


def test_a_team_starts_a_scrimmage_against_another_teams_program_or_a_level(teams, monkeypatch):
    mine, theirs = built("Kosen Nara"), built("Hà Nội")
    client = signed_in(teams[0])
    page = client.get("/programs/").content.decode()
    assert f'value="program:{theirs.pk}"' in page and 'value="level-2"' in page
    assert f'value="program:{mine.pk}"' not in page
    answer = client.post("/programs/scrimmage", {"program": mine.pk,
                                                 "opponent": f"program:{theirs.pk}"})
    assert answer.status_code == 302
    match = Match.objects.get(title__startswith="Scrimmage")
    assert match.public_live and [run.version.program.name for run in
                                  HostedRun.objects.order_by("team_index")] == \
        ["Kosen Nara", "Hà Nội"]
    listed = client.get("/programs/").content.decode()
    assert f'href="/matches/{match.pk}/"' in listed and "starting soon" in listed
    client.post("/programs/scrimmage", {"program": mine.pk, "opponent": "level-2"})
    against_level = Match.objects.filter(title__startswith="Scrimmage").order_by("-pk").first()
    assert list(against_level.teams.order_by("index").values_list("seat", flat=True)) == \
        [f"program:{mine.versions.get().pk}", "level-2"]
    assert "Built-in level 2" in client.get("/programs/?lang=en").content.decode()
    monkeypatch.setattr(scrimmages, "SCRIMMAGES_AN_HOUR", 2)
    refused = client.post("/programs/scrimmage?lang=ja",
                          {"program": mine.pk, "opponent": "level-1"})
    assert refused.status_code == 429 and "練習試合" in refused.content.decode()
    # its ladder's and tournaments' matches are not scrimmages it asked for
    Match.objects.filter(pk=match.pk).update(title="Ladder: Kosen Nara vs Hà Nội")
    assert client.post("/programs/scrimmage", {"program": mine.pk, "opponent": "level-1"}) \
        .status_code == 302


def test_a_team_cannot_use_or_see_another_teams_program(teams):
    mine, theirs = built("Kosen Nara"), built("Hà Nội", log="hanoi secret build log")
    client = signed_in(teams[0])
    answer = client.post("/programs/scrimmage", {"program": theirs.pk, "opponent": "level-1"})
    assert answer.status_code == 404 and "secret build log" not in answer.content.decode()
    assert client.post("/programs/scrimmage", {"program": mine.pk,
                                               "opponent": f"program:{mine.pk}"}).status_code == 400
    assert not Match.objects.filter(title__startswith="Scrimmage").exists()
    assert Client().post("/programs/scrimmage", {"program": mine.pk,
                                                 "opponent": "level-1"}).status_code == 302
    assert not HostedRun.objects.exists()


def test_the_judges_page_is_for_judges_only(client, django_user_model, teams):
    built("Hà Nội", log="hanoi secret build log")
    assert client.get("/control/programs/").status_code == 302  # to the login page
    django_user_model.objects.create_user("visitor", password="pw")
    client.login(username="visitor", password="pw")
    assert client.get("/control/programs/").status_code == 403
    assert client.post("/control/programs/scrimmage", {"first": 1, "second": 2}).status_code \
        == 403
    signed_in(teams[1])  # a team's own sign-in opens no judges' page either
    assert not Match.objects.filter(title__startswith="Scrimmage").exists()


def test_a_judge_sees_every_program_and_starts_a_scrimmage(judge_client, teams):
    nara = built("Kosen Nara", log="nara build log")
    hanoi = built("Hà Nội", log="hanoi build log")
    room = judge_client.get("/control/").content.decode()
    assert 'href="/control/programs/"' in room
    page = judge_client.get("/control/programs/").content.decode()
    assert "nara build log" in page and "hanoi build log" in page
    # the form offers two programs of one game, not one program against itself
    assert f'<option value="{nara.pk}" selected>' in page
    assert f'<option value="{hanoi.pk}" selected>' in page
    answer = judge_client.post("/control/programs/scrimmage",
                               {"first": hanoi.pk, "second": nara.pk}, follow=True)
    match = Match.objects.get(title__startswith="Scrimmage")
    assert f"Scrimmage {match.pk} is made" in answer.content.decode()
    other = built("Kosen Nara", game="blokus-duo")
    refused = judge_client.post("/control/programs/scrimmage?lang=vi",
                                {"first": hanoi.pk, "second": other.pk}, follow=True)
    assert "trò chơi" in refused.content.decode()
    assert Match.objects.filter(title__startswith="Scrimmage").count() == 1


def test_a_runs_end_is_said_in_the_pages_language(judge_client, teams):
    nara, hanoi = built("Kosen Nara"), built("Hà Nội")
    judge_client.post("/control/programs/scrimmage", {"first": nara.pk, "second": hanoi.pk})
    HostedRun.objects.filter(team_index=0).update(status="done", ended_by="exited (SIGKILL)")
    HostedRun.objects.filter(team_index=1).update(status="done", ended_by="exited (exit 1)")
    page = judge_client.get("/control/programs/?lang=en").content.decode()
    assert "SIGKILL: it reached a limit of its sandbox" in page and "exit code 1" in page
    HostedRun.objects.filter(team_index=1).update(ended_by="the worker failed: OSError")
    page = judge_client.get("/control/programs/?lang=ja").content.decode()
    assert "担当のワーカーでエラーが起きた（OSError）" in page


@pytest.mark.parametrize("language", ["ja", "vi"])
def test_the_pages_leave_no_word_in_english(judge_client, teams, language):
    nara, hanoi = built("Kosen Nara"), built("Hà Nội")
    judge_client.post(f"/control/programs/scrimmage?lang={language}",
                      {"first": nara.pk, "second": hanoi.pk})
    HostedRun.objects.filter(team_index=0).update(status="done", ended_by="out of time")
    programs.program_hand_in(game="kakomimasu", name="Kosen Nara", language="python",
                             filename="main.py", data=b"x", by="judge:t")
    team = signed_in(teams[0])
    vocabulary, names = english_words(), data_words() | {"main.py", "program"}
    for client, path in ((team, "/programs/"), (Client(), "/programs/"),
                         (judge_client, "/control/programs/")):
        answer = client.get(f"{path}?lang={language}")
        assert answer.status_code == 200 and answer.headers["Content-Language"] == language
        assert left_in_english(answer.content.decode(), names, vocabulary) == []


def test_the_judges_page_asks_the_same_few_queries_however_many_programs(judge_client, teams):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as done:
            assert judge_client.get("/control/programs/").status_code == 200
        return len(done)

    nara, hanoi = built("Kosen Nara"), built("Hà Nội")
    judge_client.post("/control/programs/scrimmage", {"first": nara.pk, "second": hanoi.pk})
    few = queries()
    for name in ("Sendai", "Hakodate", "Huế"):
        other = built(name)
        judge_client.post("/control/programs/scrimmage", {"first": other.pk, "second": nara.pk})
    assert queries() == few


def test_the_judges_list_shows_each_programs_latest_versions_and_links_all(judge_client):
    program = built("Kosen Nara", log="the first build")
    for _ in range(3):
        programs.program_hand_in(game="kakomimasu", name="Kosen Nara", language="python",
                                 filename="main.py", data=b"x", by="judge:t")
    listed = judge_client.get("/control/programs/?lang=en").content.decode()
    assert "Version 4" in listed and "Version 2" in listed and "Version 1" not in listed
    assert f'href="?program={program.pk}"' in listed and "the first build" not in listed
    one = judge_client.get(f"/control/programs/?program={program.pk}&lang=en").content.decode()
    assert "Version 1" in one and "the first build" in one
