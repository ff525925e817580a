"""Which Origin a browser's handshake may carry: the server's own host and port, or one
that CSRF_TRUSTED_ORIGINS names (docs/live-protocol.md, "Origin")."""

import pytest

from spectator.sessions import origin_allowed


@pytest.mark.parametrize(("origin", "host", "allowed"), [
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
    ("http://127.0.0.1:9999", "127.0.0.1:8000", False),  # another server on the machine
    ("http://127.0.0.1", "127.0.0.1:8000", False),
    ("http://127.0.0.1", "127.0.0.1", True),  # both on port 80
    ("http://127.0.0.1:80", "127.0.0.1", True),
    ("https://venue.example", "venue.example", True),  # behind a TLS proxy: port 443
    ("https://venue.example:8443", "venue.example", False),
    ("http://VENUE.example:8000", "venue.example:8000", True),
    ("http://evil.example:8000", "127.0.0.1:8000", False),
    ("http://evil.example", "evil.example", False),  # a host we do not serve
    ("http://[::1]:8000", "[::1]:8000", True),
    ("null", "127.0.0.1:8000", False),
    ("http://127.0.0.1:99999", "127.0.0.1:8000", False),
    ("ftp://127.0.0.1:8000", "127.0.0.1:8000", False),
    ("http://127.0.0.1:8000", "", False),
])
def test_an_origin_is_the_servers_own_host_and_port(settings, origin, host, allowed):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "venue.example", "[::1]"]
    assert origin_allowed(origin, host) is allowed


def test_a_trusted_origin_may_differ_from_the_host(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://screens.example", "https://*.venue.example"]
    assert origin_allowed("https://screens.example", "127.0.0.1:8001")
    assert origin_allowed("https://hall-2.venue.example", "127.0.0.1:8001")
    assert not origin_allowed("http://screens.example", "127.0.0.1:8001")  # another scheme
    assert not origin_allowed("https://screens.example:8443", "127.0.0.1:8001")
    assert not origin_allowed("https://evilvenue.example", "127.0.0.1:8001")
