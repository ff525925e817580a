import pytest


@pytest.fixture(autouse=True)
def _test_hosts(settings):
    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]


@pytest.fixture(autouse=True)
def _fresh_rules_cache():
    """Each test starts without states remembered from another test's matches."""
    from matches.services import turns

    turns._STATES.clear()
    yield
    turns._STATES.clear()
