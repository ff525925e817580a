"""The judges' login: failures are throttled per account at an address and per address,
without telling which accounts exist, and never lock a judge out from elsewhere; a
judge lands on the list of matches."""

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"
THROTTLED = "Too many failed logins"
RIGHT = "right-horse-battery"
A, B = "10.0.0.1", "10.0.0.2"


@pytest.fixture
def judge():
    user = User.objects.create_user("ada", password=RIGHT)
    user.user_permissions.add(Permission.objects.get(codename="judge"))
    return user


def attempt(username, password, address=A, **extra):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username,
                                                    "password": password, **extra})


def logged_in(answer):
    return answer.status_code == 302 and "_auth_user_id" in answer.client.session


def statuses(answers):
    return [a.status_code for a in answers]


def test_five_failures_from_one_address_lock_the_account_there_only(judge):
    answers = [attempt("ada", f"guess-{n}") for n in range(5)]
    assert statuses(answers) == [200, 200, 200, 200, 429]
    assert "did not match" in answers[0].content.decode()
    assert THROTTLED in answers[4].content.decode()
    assert "Wait 15 minutes" in answers[4].content.decode()
    assert logged_in(attempt("ada", RIGHT, address=B))  # the judge is not locked out
    locked = attempt("ada", RIGHT)
    assert locked.status_code == 429 and "_auth_user_id" not in locked.client.session
    judge.is_staff = True
    judge.save()
    fields = {"username": "ada", "password": RIGHT}
    admin = Client(REMOTE_ADDR=A).post("/admin/login/", fields)
    assert admin.status_code == 200 and "_auth_user_id" not in admin.client.session
    assert logged_in(Client(REMOTE_ADDR=B).post("/admin/login/", fields))


def test_a_name_in_any_letter_case_from_one_address_does_not_lock_the_judge_elsewhere(judge):
    answers = [attempt(name, "guess") for name in ("ADA", "Ada", "aDA", "adA", "ada", "AdA")]
    assert statuses(answers) == [200, 200, 200, 200, 429, 429]  # one name, any case
    assert attempt("ada", RIGHT).status_code == 429
    assert logged_in(attempt("ada", RIGHT, address=B))


def test_an_account_that_does_not_exist_is_answered_the_same(judge):
    answers = [attempt("nobody", f"guess-{n}") for n in range(5)]
    assert statuses(answers) == [200, 200, 200, 200, 429]
    assert THROTTLED in answers[4].content.decode()
    assert logged_in(attempt("ada", RIGHT))  # not ada's failures


def test_twenty_failures_over_many_names_lock_the_address_but_no_other(judge):
    names = ["Ada" if n % 4 == 3 else f"name-{n}" for n in range(20)]  # ada five times
    answers = [attempt(name, "guess") for name in names]
    assert statuses(answers) == [200] * 19 + [429]
    assert THROTTLED in answers[19].content.decode()
    assert attempt("someone-new", "guess").status_code == 429
    assert attempt("ada", RIGHT).status_code == 429
    assert logged_in(attempt("ada", RIGHT, address=B))
    assert attempt("someone-new", "guess", address=B).status_code == 200


def test_a_success_clears_its_own_pair_only(judge):
    for n in range(4):
        attempt("ada", f"guess-{n}", address=A)
        attempt("ada", f"guess-{n}", address=B)
    assert logged_in(attempt("ada", RIGHT, address=A))
    again = [attempt("ada", f"again-{n}", address=A) for n in range(5)]
    assert statuses(again) == [200, 200, 200, 200, 429]  # A's count started afresh
    assert attempt("ada", "again", address=B).status_code == 429  # B's four still count
    # The address keeps its count through the success: 9 so far, 11 more reach 20.
    others = [attempt(f"name-{n}", "guess", address=A) for n in range(11)]
    assert statuses(others) == [200] * 10 + [429]


def test_a_judge_without_next_lands_on_the_matches_and_with_next_on_that_page(judge):
    assert attempt("ada", RIGHT).url == "/"
    assert attempt("ada", RIGHT, next="/matches/").url == "/matches/"
    assert Client().get("/").status_code == 200
