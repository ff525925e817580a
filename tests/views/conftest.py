import pytest
from django.contrib.auth.models import Permission, User


@pytest.fixture
def judge_client(client):
    """The test client, logged in as a user with the judge permission."""
    user = User.objects.create_user("judy", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    client.login(username="judy", password="pw")
    return client
