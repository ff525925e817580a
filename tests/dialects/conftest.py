import pytest
from django.utils import timezone

from tests.api.conftest import Clock


@pytest.fixture
def clock(monkeypatch):
    """Every part of the server reads this time; the test moves it."""
    held = Clock(timezone.now())
    monkeypatch.setattr("django.utils.timezone.now", held.now)
    return held
