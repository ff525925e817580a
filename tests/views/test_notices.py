"""Announcements and questions (README, "The contest day"; docs/api.md, "Announcements
and questions"): the judges post from the control room, to everyone or to one team, and
answer the teams' questions privately or to everyone; the teams read and ask through
the API or /questions/; the audit keeps it all."""

import json

import pytest
from django.utils import timezone

from matches.models import Announcement, Question
from matches.services.notices import (
    QUESTIONS_WAITING,
    NoticeError,
    announcement_post,
    question_answer,
    question_ask,
)
from matches.tournaments.services import EntrantSpec, Plan, tournament_create
from tests.factories import make_match

pytestmark = pytest.mark.django_db


def bearer(token: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def texts(answer) -> list[str]:
    return [notice["text"] for notice in answer.json()["announcements"]]


def test_an_announcement_to_everyone_reaches_every_team_and_one_to_a_team_that_team_alone(
        judge_client, client):
    match, tokens = make_match(teams=("Nara", "Hanoi"))
    answer = judge_client.post("/control/announce", {"text": "Lunch at 12:30", "to": ""},
                               follow=True)
    assert "Announced to everyone" in answer.content.decode()
    nara = match.teams.get(index=0)
    judge_client.post("/control/announce", {"text": "Nara: your router drops packets",
                                            "to": f"team:{nara.pk}"})
    assert texts(client.get("/api/announcements", **bearer(tokens[0]))) == [
        "Nara: your router drops packets", "Lunch at 12:30"]
    assert texts(client.get("/api/announcements", **bearer(tokens[1]))) == ["Lunch at 12:30"]
    room = judge_client.get("/control/?part=live").content.decode()
    assert "to Nara alone" in room and "to everyone" in room
    assert "announced to Nara" in judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    assert texts(client.get("/api/announcements")) == ["Lunch at 12:30"]
    state = client.get(f"/api/matches/{match.pk}", **bearer(tokens[0])).json()
    assert [(n["text"], n["to"]) for n in state["announcements"]] == [
        ("Nara: your router drops packets", "you"), ("Lunch at 12:30", "everyone")]
    assert [n["text"] for n in client.get(
        f"/api/matches/{match.pk}", **bearer(tokens[1])).json()["announcements"]] == [
        "Lunch at 12:30"]


def test_taking_an_announcement_down_removes_it_everywhere_and_keeps_it_for_the_audit(
        judge_client, client, django_capture_on_commit_callbacks):
    match, tokens = make_match()
    with django_capture_on_commit_callbacks(execute=True):
        judge_client.post("/control/announce", {"text": "Round 2 starts late", "to": ""})
    notice = Announcement.objects.get()
    assert "Round 2 starts late" in judge_client.get("/control/?part=live").content.decode()
    assert texts(client.get("/api/announcements", **bearer(tokens[0]))) == [
        "Round 2 starts late"]  # read, and kept on the cache
    with django_capture_on_commit_callbacks(execute=True):
        judge_client.post(f"/control/announcements/{notice.pk}/down")
    assert texts(client.get("/api/announcements", **bearer(tokens[0]))) == []
    notice.refresh_from_db()
    assert notice.taken_down_by == "judy" and notice.taken_down_at is not None
    audit = judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    assert "Round 2 starts late" in audit and "taken down" in audit
    again = judge_client.post(f"/control/announcements/{notice.pk}/down", follow=True)
    assert "is down already" in again.content.decode()


def test_a_question_is_stored_answered_privately_then_to_everyone(judge_client, client):
    match, tokens = make_match(teams=("Nara", "Hanoi"))
    asked = client.post("/api/questions", json.dumps({"question": "May agents stay?"}),
                        content_type="application/json", **bearer(tokens[0]))
    assert asked.status_code == 201
    question = Question.objects.get()
    assert (question.asker, question.team_id, question.text) == (
        "Nara", match.teams.get(index=0).pk, "May agents stay?")
    room = judge_client.get("/control/?part=live").content.decode()
    assert "1 question waiting" in room and "May agents stay?" in room
    mine = client.get("/api/questions", **bearer(tokens[0])).json()["questions"]
    assert [(q["question"], q["answer"], q.get("yours")) for q in mine] == [
        ("May agents stay?", None, True)]
    assert client.get("/api/questions", **bearer(tokens[1])).json()["questions"] == []

    judge_client.post(f"/control/questions/{question.pk}/answer",
                      {"answer": "Yes: send stay.", "to": "team"})
    assert client.get("/api/questions", **bearer(tokens[0])).json()["questions"][0][
        "answer"] == "Yes: send stay."
    assert client.get("/api/questions", **bearer(tokens[1])).json()["questions"] == []
    assert client.get("/api/questions").json()["questions"] == []

    judge_client.post(f"/control/questions/{question.pk}/answer",
                      {"answer": "Yes, for every team.", "to": "everyone"})
    public = client.get("/api/questions", **bearer(tokens[1])).json()["questions"]
    assert [(q["question"], q["answer"], "yours" in q) for q in public] == [
        ("May agents stay?", "Yes, for every team.", False)]
    assert "Nara" not in json.dumps(public)  # who asked stays with the judges
    assert "0 questions waiting" in judge_client.get("/control/?part=live").content.decode()
    audit = judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    assert "May agents stay?" in audit and "Yes, for every team." in audit


def test_questions_refused_clearly(client):
    match, tokens = make_match()
    post = lambda body, **headers: client.post(  # noqa: E731
        "/api/questions", body, content_type="application/json", **headers)
    assert post(json.dumps({"question": "x"})).status_code == 401
    assert post("{not json", **bearer(tokens[0])).json()["error"] == "malformed_json"
    assert post(json.dumps({"question": 3}), **bearer(tokens[0])).status_code == 400
    assert post(json.dumps({"question": "  "}), **bearer(tokens[0])).json()["detail"] == \
        "the question is empty"
    assert post(json.dumps({"question": "x" * 1001}), **bearer(tokens[0])).status_code == 400
    assert post(json.dumps({"question": "x" * 20000}), **bearer(tokens[0])).status_code == 413
    for number in range(QUESTIONS_WAITING):
        assert post(json.dumps({"question": f"q{number}"}), **bearer(tokens[0])).status_code == 201
    flooded = post(json.dumps({"question": "one more"}), **bearer(tokens[0]))
    assert flooded.status_code == 429 and flooded.json()["error"] == "too_many_questions"
    assert Question.objects.count() == QUESTIONS_WAITING


@pytest.mark.django_db(transaction=True)
def test_questions_sent_at_once_never_pass_the_limit():
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import Client

    match, tokens = make_match()

    def ask(number):
        try:
            return Client().post("/api/questions", json.dumps({"question": f"q{number}"}),
                                 content_type="application/json",
                                 **bearer(tokens[0])).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(ask, range(20)))
    assert answers.count(201) == QUESTIONS_WAITING and set(answers) == {201, 429}
    assert Question.objects.count() == QUESTIONS_WAITING


def test_a_tournament_team_asks_and_is_told_across_all_its_matches(client):
    created = tournament_create(Plan(
        name="Cup", game="kakomimasu", format="round-robin",
        teams=[EntrantSpec(name) for name in ("Nara", "Hanoi", "Kushiro")],
        start_at=timezone.now(), boards=["A-1"], turns=5))
    nara = created.tournament.entrants.get(index=0)
    announcement_post(text="Nara, call the desk", judge="judy", to=nara)
    question = question_ask(holder=nara, text="Which board in round 2?")
    assert question.entrant_id == nara.pk and question.team_id is None
    assert texts(client.get("/api/announcements", **bearer(created.tokens[0]))) == [
        "Nara, call the desk"]
    assert texts(client.get("/api/announcements", **bearer(created.tokens[1]))) == []
    question_answer(question_id=question.pk, text="A-2", judge="judy", public=False)
    assert client.get("/api/questions", **bearer(created.tokens[0])).json()["questions"][0][
        "answer"] == "A-2"


def test_the_teams_page_shows_the_public_and_a_token_shows_and_asks(client):
    match, tokens = make_match(teams=("Nara", "Hanoi"))
    announcement_post(text="Welcome to the hall", judge="judy")
    page = client.get("/questions/").content.decode()
    assert "Welcome to the hall" in page and "No answer has been given" in page
    answer = client.post("/questions/", {"token": tokens[0], "question": "Is stay allowed?"})
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "Your question is with the judges" in page and "Is stay allowed?" in page
    assert tokens[0] not in page  # the token is never written back
    refused = client.post("/questions/", {"token": "wrong", "question": "?"})
    assert refused.status_code == 400 and "no team" in refused.content.decode()
    assert Question.objects.count() == 1


def test_empty_and_overlong_announcements_are_refused_storing_nothing(judge_client):
    with pytest.raises(NoticeError):
        announcement_post(text="   ", judge="judy")
    answer = judge_client.post("/control/announce", {"text": "x" * 1001, "to": ""}, follow=True)
    assert "Not posted" in answer.content.decode()
    answer = judge_client.post("/control/announce", {"text": "hi", "to": "team:999999"},
                               follow=True)
    assert "no such team" in answer.content.decode()
    assert not Announcement.objects.exists()


def test_the_team_pages_and_actions_are_judges_only_where_they_should_be(client):
    make_match()
    assert client.post("/control/announce", {"text": "hi"}).status_code == 302
    assert not Announcement.objects.exists()


def test_the_audit_shows_the_judges_hand_and_words_in_time_order(judge_client):
    match, tokens = make_match(turns=5)
    judge_client.post(f"/control/matches/{match.pk}/pause", {"reason": "Nara's router"})
    announcement_post(text="The match is held for a minute", judge="judy")
    judge_client.post(f"/control/matches/{match.pk}/resume")
    judge_client.post(f"/control/matches/{match.pk}/extend", {"seconds": "30"})
    audit = judge_client.get(f"/matches/{match.pk}/audit").content.decode()
    journal = audit[audit.index('id="judges-words"'):audit.index("</section>",
                                                                 audit.index('id="judges-words"'))]
    order = [journal.index(words) for words in (
        "judy: paused", "Nara&#x27;s router", "announced to everyone", "judy: resumed",
        "judy: extended", "(30 s)")]
    assert order == sorted(order)
