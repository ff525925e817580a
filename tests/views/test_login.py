"""The judges' login: failures are throttled per account and per address, without
telling which accounts exist; a judge lands on the list of matches."""

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"
THROTTLED = "Too many failed logins"


@pytest.fixture
def judge():
    user = User.objects.create_user("judy", password="right-horse-battery")
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    return user


def attempt(username, password, address="10.0.0.1", **extra):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username,
                                                    "password": password, **extra})


def test_five_failures_lock_the_account_even_against_the_right_password(judge):
    answers = [attempt("judy", f"guess-{n}") for n in range(5)]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]
    assert "did not match" in answers[0].content.decode()
    assert THROTTLED in answers[4].content.decode()
    locked = attempt("judy", "right-horse-battery", address="10.0.0.2")
    assert locked.status_code == 429 and "_auth_user_id" not in locked.client.session
    admin = Client().post("/admin/login/", {"username": "judy", "password": "right-horse-battery"})
    assert admin.status_code == 200 and "_auth_user_id" not in admin.client.session


def test_an_account_that_does_not_exist_is_answered_the_same(judge):
    answers = [attempt("nobody", f"guess-{n}") for n in range(5)]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]
    assert THROTTLED in answers[4].content.decode()
    assert attempt("judy", "right-horse-battery").status_code == 302  # not judy's failures


def test_twenty_failures_lock_the_address_for_every_account(judge):
    answers = [attempt(f"name-{n}", "guess") for n in range(20)]
    assert answers[18].status_code == 200 and answers[19].status_code == 429
    assert attempt("judy", "right-horse-battery").status_code == 429
    assert attempt("judy", "right-horse-battery", address="10.0.0.9").status_code == 302


def test_a_success_clears_the_accounts_count(judge):
    for n in range(4):
        attempt("judy", f"guess-{n}", address=f"10.0.1.{n}")
    assert attempt("judy", "right-horse-battery").status_code == 302
    answers = [attempt("judy", f"again-{n}", address=f"10.0.2.{n}") for n in range(4)]
    assert [a.status_code for a in answers] == [200] * 4


def test_a_judge_without_next_lands_on_the_matches_and_with_next_on_that_page(judge):
    assert attempt("judy", "right-horse-battery").url == "/"
    assert attempt("judy", "right-horse-battery", next="/matches/").url == "/matches/"
    assert Client().get("/").status_code == 200
