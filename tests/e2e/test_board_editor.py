"""A judge makes a Procon 2020 field in the editor in a real Chromium: an empty field,
a start cell clicked for team A gets its mirror for team B, the rules' notes follow each
change, and Save keeps it as a field file that a match is then made on."""

import json

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import expect

from tests.conftest import demo_server
from tests.e2e.conftest import judge_signed_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server_process(django_db_setup, tmp_path_factory):
    """The demo server with a var folder of its own: the boards it saves go there."""
    var = tmp_path_factory.mktemp("var")
    with demo_server(tmp_path_factory, SPECTATOR_VAR_DIR=str(var)) as base:
        yield base, var


@pytest.fixture
def judge(transactional_db):
    user = User.objects.create_user("judy", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="judge"))


def test_a_field_made_in_the_editor_mirrors_its_start_cells_and_is_saved(
        judge, live_server_process, browser):
    base, var = live_server_process
    page = judge_signed_in(browser, base)
    page.goto(f"{base}/control/boards/procon2020/edit")
    page.locator("[data-notes] li").first.wait_for()
    page.fill("[data-width]", "10")
    page.fill("[data-height]", "12")
    page.click("[data-blank]")
    page.wait_for_function("() => document.querySelectorAll('.board .cell').length === 120")
    assert page.locator("[data-mirror]").input_value() == "point"
    page.check("input[value=start-a]")
    for x, y in ((1, 1), (3, 2)):
        page.locator(f".board .cell[data-x='{x}'][data-y='{y}']").click()
    page.check("input[value=points]")
    page.fill("[data-value]", "7")
    # the rules' answer to the last change (checked once the changes stop coming), drawn
    with page.expect_response(lambda answer: answer.url.endswith("/check")) as checked:
        page.locator(".board .cell[data-x='0'][data-y='0']").click()
    assert checked.value.ok
    page.wait_for_function("() => [...document.querySelectorAll('[data-notes] li')]"
                           ".some((li) => li.textContent.includes('2 agents a team, 0 "
                           "obstacles'))")  # the blank field's, not the random one's
    assert "Symmetric: turned half round its centre." in page.inner_text("[data-notes]")
    # the mirrors: team B's agents on (8, 10) and (6, 9); 7 points at the far corner. (A
    # change draws the board at once and its agents with the rules' answer, which the
    # response above may precede: an answer to an earlier change, dropped, can be it.)
    expect(page.locator(".board .cell[data-x='8'][data-y='10'] .agent.team-b")).to_have_count(1)
    expect(page.locator(".board .cell[data-x='6'][data-y='9'] .agent.team-b")).to_have_count(1)
    page.fill("[data-name]", "e2e-field")
    page.click("[data-save] button")
    page.locator("[data-saved]").wait_for()
    assert "Saved as e2e-field" in page.inner_text("[data-saved]")
    field = json.loads((var / "boards" / "procon2020" / "e2e-field.json").read_text())
    assert field["start"] == [[[1, 1], [3, 2]], [[8, 10], [6, 9]]]
    assert field["points"][0][0] == field["points"][11][9] == 7
