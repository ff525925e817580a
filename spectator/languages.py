"""The language of every page: Japanese, Vietnamese or English.

`?lang=ja|vi|en` in an address chooses it (a venue screen's address carries it) and is
remembered in a cookie; else the cookie (the visible switch sets it the same way); else
the browser's languages; else English.
"""

from __future__ import annotations

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

CODES = {code for code, _ in settings.LANGUAGES}
COOKIE_SECONDS = 365 * 24 * 3600


class LanguageMiddleware(LocaleMiddleware):
    def process_request(self, request):
        asked = request.GET.get("lang", "")
        if asked in CODES:
            translation.activate(asked)
            request.LANGUAGE_CODE = asked
            request.language_asked = asked
            return
        super().process_request(request)

    def process_response(self, request, response):
        response = super().process_response(request, response)
        asked = getattr(request, "language_asked", None)
        if asked:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, asked, max_age=COOKIE_SECONDS,
                                samesite="Lax", secure=settings.SESSION_COOKIE_SECURE)
        return response
