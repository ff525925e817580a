"""creatematch --short: the organiser's short code of each team, stored on the team,
checked as names are, and sent to the screens with the match."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from matches.models import Match, Team
from matches.selectors import match_meta

NAMES = ["Đội Hà Nội Phương Đông", "Nara 奈良高専 プロコン部"]


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_short_codes_are_stored_and_sent_with_the_match():
    printed = json.loads(run("creatematch", "--board", "random:1", "--json",
                             "--teams", *NAMES, "--short", "HN,奈良"))
    match = Match.objects.get(pk=printed["id"])
    assert list(match.teams.values_list("name", "short")) == [
        (NAMES[0], "HN"), (NAMES[1], "奈良")]
    assert match_meta(match)["teams"] == [
        {"index": 0, "name": NAMES[0], "short": "HN"},
        {"index": 1, "name": NAMES[1], "short": "奈良"}]


@pytest.mark.django_db
def test_without_short_codes_the_teams_have_none():
    run("creatematch", "--board", "random:1", "--teams", *NAMES)
    assert list(Team.objects.values_list("short", flat=True)) == ["", ""]


@pytest.mark.django_db
@pytest.mark.parametrize(("shorts", "message"), [
    ("HN", "--short: teams: expected 2 teams, got 1"),
    ("HN,NARA,X", "--short: teams: expected 2 teams, got 3"),
    ("HANOI,NARA", "--short: teams[0].short: longer than 4 characters"),  # as a tournament
    ("HN,", "--short: teams[1].short: empty"),
    ("NA,NA", "--short: teams[1].short: the same as teams[0].short"),
    ("H\tN,NARA", "--short: teams[0].short: holds a control character (U+0009)"),
])
def test_creatematch_refuses_short_codes_as_it_refuses_names(shorts, message):
    with pytest.raises(CommandError) as caught:
        run("creatematch", "--board", "random:1", "--teams", *NAMES, "--short", shorts)
    assert caught.value.returncode == 2
    assert str(caught.value) == message
    assert not Match.objects.exists()
