"""The teams' side of announcements and questions (docs/api.md, "Announcements and
questions"): GET /api/announcements, GET and POST /api/questions. A team's token shows
its own announcements and questions besides everyone's; without one, everyone's."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status

from matches.access import bearer_holder
from matches.admission import PAGE, WRITE, cost
from matches.models.notices import TEXT_LIMIT
from matches.request_bodies import BodyRefused, json_object
from matches.selectors.notices import for_holder, questions_for
from matches.services.notices import NoticeError, TooManyQuestions, question_ask

router = Router(tags=["announcements and questions"])
BODY_LIMIT = 16 * 1024
BEARER = {"in": "header", "name": "Authorization", "required": False,
          "schema": {"type": "string"}, "description": "`Bearer <team token>`"}


class Error(Schema):
    error: str
    detail: str


class Announcements(Schema):
    announcements: list[dict[str, Any]]


class Questions(Schema):
    questions: list[dict[str, Any]]


def _holder(request: HttpRequest):
    return bearer_holder(request.headers.get("Authorization", ""))


@router.get("/announcements", response={200: Announcements, 401: Error},
            summary="The judges' announcements up now",
            description="Newest first, each `{id, text, at, to}`: `to` is `everyone`, or "
                        "`you` for one to the token's team alone.",
            openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_announcements(request: HttpRequest):
    return Status(200, {"announcements": for_holder(_holder(request))})


@router.get("/questions", response={200: Questions, 401: Error},
            summary="Your questions and the answers given to everyone",
            description="Newest first. With a team's token, its own questions too, answered "
                        "or not (`yours`: true); `answer` null while the judges have not "
                        "answered.",
            openapi_extra={"parameters": [BEARER]})
@cost(PAGE)
def get_questions(request: HttpRequest):
    return Status(200, {"questions": questions_for(_holder(request))})


@router.post("/questions", response={201: dict[str, Any], **dict.fromkeys(
                 (400, 401, 413, 429), Error)},
             summary="Ask the judges a question",
             description=f'`{{"question": "..."}}` (at most {TEXT_LIMIT} characters) with '
                         "the team's token. It is stored at once; the answer comes in "
                         "GET /api/questions, to the team alone or to everyone.",
             openapi_extra={"parameters": [BEARER], "requestBody": {
                 "required": True, "content": {"application/json": {"schema": {
                     "type": "object", "required": ["question"],
                     "properties": {"question": {"type": "string"}}}}}}})
@cost(WRITE)
def post_question(request: HttpRequest):
    holder = _holder(request)
    if holder is None:
        return Status(401, {"error": "unauthorized",
                            "detail": "send the team token as 'Authorization: Bearer <token>'"})
    try:
        body = json_object(request, BODY_LIMIT, "a question")
    except BodyRefused as refused:
        return Status(*refused.answer())
    if not isinstance(body.get("question"), str):
        return Status(400, {"error": "bad_request",
                            "detail": 'expected {"question": "<your question>"}'})
    try:
        row = question_ask(holder=holder, text=body["question"],
                           remote_addr=request.META.get("REMOTE_ADDR"))
    except TooManyQuestions as error:
        return Status(429, {"error": "too_many_questions", "detail": str(error)})
    except NoticeError as error:
        return Status(400, {"error": "bad_request", "detail": str(error)})
    return Status(201, {"id": row.pk, "question": row.text, "answer": None})
