"""What Django's own checks and security middleware decide about a request and its
answer, read from the same settings, for the ASGI paths that pass Django by: the answer
endpoint (matches/api_asgi.py) and the websockets' handshake (spectator/sessions.py).
So a host Django would refuse is refused there too, and an answer there carries the
headers Django's middleware would have put on it."""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from django.http.request import split_domain_port, validate_host

SECURITY = "django.middleware.security.SecurityMiddleware"
FRAMES = "django.middleware.clickjacking.XFrameOptionsMiddleware"


def allowed_hosts() -> list[str]:
    """ALLOWED_HOSTS as `HttpRequest.get_host` applies it: with DEBUG and none named,
    the local host's names."""
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return settings.ALLOWED_HOSTS


def host_allowed(host: str) -> bool:
    """Whether Django would take a request with this `Host` header (with or without its
    port); it answers any other with its own 400."""
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, allowed_hosts())


def is_secure(scheme: str, headers: Mapping[str, str]) -> bool:
    """Whether Django takes the request for https: its scheme, unless the proxy's header
    named by SECURE_PROXY_SSL_HEADER says otherwise (`headers` by lower-case names)."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        said = headers.get(meta_name.removeprefix("HTTP_").replace("_", "-").lower())
        if said is not None:
            return said.split(",", 1)[0].strip() == secure_value
    return scheme == "https"


def security_headers(secure: bool) -> list[tuple[str, str]]:
    """The headers Django's SecurityMiddleware and XFrameOptionsMiddleware (those of them
    in MIDDLEWARE) add to an answer that has none of them, from the settings they read."""
    headers = [*_security(secure)] if SECURITY in settings.MIDDLEWARE else []
    if FRAMES in settings.MIDDLEWARE:
        headers.append(("X-Frame-Options", getattr(settings, "X_FRAME_OPTIONS", "DENY").upper()))
    return headers


def _security(secure: bool) -> list[tuple[str, str]]:
    headers = []
    if settings.SECURE_HSTS_SECONDS and secure:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        hsts += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
        hsts += "; preload" if settings.SECURE_HSTS_PRELOAD else ""
        headers.append(("Strict-Transport-Security", hsts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:  # a comma-separated string or a list of fallbacks, as Django takes it
        values = [value.strip() for value in policy.split(",")] if isinstance(policy, str) \
            else policy
        headers.append(("Referrer-Policy", ",".join(values)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    return headers
