"""Every page works on a venue network with no internet: nothing is asked of any host
but the server (scripts, styles, fonts, images, sockets, the API docs' Swagger UI)."""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import Permission, User

from matches.rules.records import parse_record
from matches.services.archive import match_import
from tests.factories import make_match

pytestmark = pytest.mark.e2e
RECORD = Path(__file__).resolve().parents[1] / "conformance/kakomimasu/random_s7_00.record.json"


@pytest.fixture
def matches_and_judge(transactional_db):
    live = make_match(start_in=-1, strategy=2.0, transition=0.2, turns=100)[0].pk
    published = match_import(parse_record(RECORD.read_bytes()), published=True).pk
    judge = User.objects.create_user("ada", password="pw")
    judge.user_permissions.add(Permission.objects.get(codename="judge"))
    return live, published


def test_no_page_asks_anything_of_another_host(live_server_process, matches_and_judge, browser):
    live, published = matches_and_judge
    server = urlsplit(live_server_process).netloc
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    asked = []
    context.on("request", lambda request: asked.append(request.url))
    page = context.new_page()
    page.on("websocket", lambda socket: asked.append(socket.url))
    public = ["/", "/matches/", f"/matches/{live}/", f"/matches/{published}/",
              f"/matches/{published}/replay", f"/matches/{live}/replay",
              f"/screens/?matches={live},{published}", "/tv/", f"/matches/{live}/embed",
              f"/matches/{published}/embed?turn=3", "/api/docs", "/accounts/login/"]
    for path in public:
        answer = page.goto(f"{live_server_process}{path}")
        assert answer.status == 200, path
        page.wait_for_load_state("networkidle")
    page.goto(f"{live_server_process}/api/docs")
    page.wait_for_selector("#swagger-ui .opblock", timeout=15000)  # it works, offline
    page.goto(f"{live_server_process}/accounts/login/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", "pw")
    # Wait for the page the login lands on (the list, with its socket) to settle: a
    # navigation started before it had would leave its socket's request in flight, and
    # the next page would never be idle.
    with page.expect_navigation():
        page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
    # The audit pages in a tab of their own (the judge's session is the context's): a
    # socket the list opens after it looked idle (a busy machine runs its script late)
    # would stay "in flight" for the page that navigated away from it, never idle again.
    # They are static pages (audit.js only marks wide bodies): every request they make is
    # made before their "load" (module scripts and their imports included), so that is
    # what is awaited; "networkidle" on a loaded machine once waited 30 s for nothing.
    audit = context.new_page()
    for path in (f"/matches/{published}/audit", f"/matches/{live}/audit"):
        answer = audit.goto(f"{live_server_process}{path}", wait_until="load")
        assert answer.status == 200, path
    elsewhere = [url for url in asked
                 if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != server]
    assert elsewhere == []
    assert any(url.startswith("ws://") for url in asked)  # the sockets were watched too
