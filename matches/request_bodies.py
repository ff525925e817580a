"""A JSON object sent to one of the API's routes besides the answer path (a what-if, a
question): read within its limit, or refused in the API's error shape."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest


class BodyRefused(Exception):
    """A body the route cannot read: its answer's status, error code and words."""

    def __init__(self, status: int, error: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail

    def answer(self) -> tuple[int, dict[str, str]]:
        return self.status, {"error": self.error, "detail": self.detail}


def json_object(request: HttpRequest, limit: int, what: str) -> dict[str, Any]:
    """The request's body as a JSON object of at most `limit` bytes (`what` names it in
    the refusal: "a what-if"); BodyRefused 413, 400 `malformed_json` or 400."""
    raw = request.read(limit + 1)
    if len(raw) > limit:
        raise BodyRefused(413, "too_large", f"{what} is at most {limit // 1024} KiB")
    try:
        body = json.loads(raw or b"null")
    except (ValueError, RecursionError):
        raise BodyRefused(400, "malformed_json", "the body is not JSON") from None
    if not isinstance(body, dict):
        raise BodyRefused(400, "bad_request", "expected a JSON object")
    return body
