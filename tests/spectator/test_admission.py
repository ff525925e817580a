"""The gates of what visitors open and fetch (matches/admission.py): counts per address
and in all, trusted networks, the byte budget and the tarpit, refused in a few bytes."""

from __future__ import annotations

import asyncio
import json

import pytest

from matches import admission
from matches.admission import GATES, Admission, ByteBudget, Caps, Gate, gates_reset


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv("SPECTATOR_TRUSTED_NETWORKS", raising=False)
    gates_reset()
    yield
    gates_reset()


def test_a_gate_counts_per_address_and_in_all_and_gives_places_back():
    gate = Gate("heavy", Caps(per_address=2, trusted=5, in_all=3))
    first, second = gate.enter("192.0.2.1"), gate.enter("192.0.2.1")
    assert first and second and gate.enter("192.0.2.1") is None  # the address's two
    third = gate.enter("192.0.2.2")
    assert third and gate.enter("192.0.2.3") is None  # three in all
    first.release()
    first.release()  # once only
    assert gate.total == 2 and gate.enter("192.0.2.3")


def test_a_trusted_network_has_the_trusted_caps(monkeypatch):
    monkeypatch.setenv("SPECTATOR_TRUSTED_NETWORKS", "10.0.0.0/8, 192.168.1.0/24")
    gates_reset()
    gate = Gate("sockets", Caps(per_address=1, trusted=3, in_all=10, rate=0.001))
    assert [bool(gate.enter("10.1.2.3")) for _ in range(4)] == [True, True, True, False]
    assert [bool(gate.enter("192.0.2.9")) for _ in range(2)] == [True, False]


def test_opening_too_fast_is_refused_past_the_burst(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(admission.time, "monotonic", lambda: now[0])
    gate = Gate("sockets", Caps(per_address=3, trusted=3, in_all=100, rate=2.0))
    for _ in range(3):  # a burst of three, each closed at once
        gate.enter("192.0.2.1").release()
    assert gate.enter("192.0.2.1") is None  # the fourth at once: too fast
    now[0] += 0.5  # one opening a second half... two a second: one more
    ticket = gate.enter("192.0.2.1")
    assert ticket is not None and gate.enter("192.0.2.1") is None


def test_the_byte_budget_refuses_heavy_reads_until_it_fills_again(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(admission.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(admission, "BYTES", ByteBudget(burst=1000, rate=100))
    gate = Gate("heavy", Caps(per_address=1, trusted=1, in_all=10))
    admission.BYTES.charge("192.0.2.1", 1500)  # a large answer
    assert gate.enter("192.0.2.1") is None and gate.enter("192.0.2.2")  # its own budget
    now[0] += 6  # 600 bytes back: 100 left
    assert gate.enter("192.0.2.1") is not None


async def application(scope, receive, send):
    """Answers 200 with a body of 500 bytes, after `held` is set."""
    await scope["held"].wait()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"x" * 500})


async def call(app, path: str, address: str, held: asyncio.Event, **extra) -> tuple[int, dict]:
    sent = []

    async def send(message):
        sent.append(message)

    requests = [{"type": "http.request", "body": b""}]

    async def receive():  # the request, then no disconnect
        if requests:
            return requests.pop()
        await asyncio.Event().wait()

    scope = {"type": "http", "method": "GET", "path": path, "headers": [],
             "client": (address, 4000), "held": held, "query_string": b"", **extra}
    await app(scope, receive, send)
    headers = dict(sent[0]["headers"])
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return sent[0]["status"], {"headers": headers, "body": body}


async def test_a_second_heavy_read_from_one_address_is_429_in_json(monkeypatch):
    monkeypatch.setitem(GATES, "heavy", Gate("heavy", Caps(1, 4, 3)))
    app, held = Admission(application), asyncio.Event()
    first = asyncio.create_task(call(app, "/api/matches/7/record", "192.0.2.1", held))
    await asyncio.sleep(0.01)
    status, answer = await call(app, "/api/matches/7/record", "192.0.2.1", held)
    assert status == 429 and answer["headers"][b"retry-after"] == b"1"
    assert json.loads(answer["body"])["error"] == "too_busy"
    other = asyncio.create_task(call(app, "/matches/7/board.png", "192.0.2.2", held))
    held.set()
    assert (await first)[0] == 200 and (await other)[0] == 200
    status, answer = await call(app, "/matches/7/replay", "192.0.2.1", held)  # its turn again
    assert status == 200
    assert GATES["heavy"].total == 0


async def test_a_match_state_is_a_small_read_for_the_middleware(monkeypatch):
    """Programs poll a match's state (the community library every 100 ms without a
    token): the middleware gives it no place at the heavy gate, whoever asks; its view
    counts it (`visitor_read`)."""
    monkeypatch.setitem(GATES, "heavy", Gate("heavy", Caps(0, 0, 0)))  # every one refused
    app, held = Admission(application), asyncio.Event()
    held.set()
    assert (await call(app, "/api/matches/7", "192.0.2.1", held))[0] == 200
    assert (await call(app, "/v1/matches/7", "192.0.2.1", held))[0] == 200
    assert (await call(app, "/api/matches/7/record", "192.0.2.1", held))[0] == 429


async def test_programs_behind_one_address_each_have_its_places_with_their_tokens(
        monkeypatch):
    """Six teams' programs behind one router, each with two reads in flight: with its
    token each counts as an address of its own at the pages gate; the address as a whole
    has TOKENS_AN_ADDRESS times the places, and no token has more than an address."""
    monkeypatch.setitem(GATES, "pages", Gate("pages", Caps(2, 2, 100)))
    monkeypatch.setattr(admission, "TOKENS_AN_ADDRESS", 6)
    app, held = Admission(application), asyncio.Event()

    def read(token: str | None, address: str = "192.0.2.1"):
        headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
        return asyncio.create_task(call(app, "/api/matches", address, held, headers=headers))

    in_flight = [read(f"team-{team}") for team in range(6) for _ in range(2)]
    await asyncio.sleep(0.01)
    assert GATES["pages"].total == 12  # all twelve admitted
    assert (await read("team-0"))[0] == 429  # a third from one program: over its two
    assert (await read("team-6"))[0] == 429  # the address's twelve in all
    held.set()
    assert [(await task)[0] for task in in_flight] == [200] * 12
    assert GATES["pages"].total == 0


def test_a_visitors_small_reads_are_counted_by_rate_and_a_large_one_is_heavy(monkeypatch):
    """`visitor_read`: a client polling ten times a second never meets the rate; a
    flood does, at once, and is told so; a read whose match is large holds the address's
    place at the heavy gate; a team or judge (exempt) passes freely."""
    from types import SimpleNamespace

    now = [1000.0]
    monkeypatch.setattr(admission.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(admission, "SMALL_READS", admission.RequestRate(50.0, 100.0))
    request = SimpleNamespace(META={"REMOTE_ADDR": "192.0.2.1"})

    def read(estimate: int = 3000) -> None:
        with admission.visitor_read(request) as charge:
            charge.expect(estimate)
            charge.size = 3000

    for _ in range(600):  # two programs polling ten times a second for 30 s
        read()
        read()
        now[0] += 0.1
    for _ in range(50):  # a burst of a flood: the bucket's rest
        read()
    with pytest.raises(admission.TooBusy) as refused:
        for _ in range(200):
            read()
    assert refused.value.gate == "small" and "a second" in str(refused.value)
    now[0] += 10
    monkeypatch.setitem(GATES, "heavy", Gate("heavy", Caps(1, 1, 10)))
    with admission.visitor_read(request) as charge:
        charge.expect(admission.LARGE_READ)  # large: the address's one heavy place
        assert GATES["heavy"].total == 1
        with pytest.raises(admission.TooBusy):
            read(admission.LARGE_READ)
        read()  # a small one meanwhile passes
    assert GATES["heavy"].total == 0
    with admission.visitor_read(request, exempt=True) as charge:
        charge.expect(admission.LARGE_READ)
        assert GATES["heavy"].total == 0


async def test_what_a_heavy_read_sends_is_charged_to_its_address(monkeypatch):
    monkeypatch.setattr(admission, "BYTES", ByteBudget(burst=700, rate=0))
    app, held = Admission(application), asyncio.Event()
    held.set()
    assert (await call(app, "/matches/7/board.png", "192.0.2.1", held))[0] == 200  # 500 B
    assert (await call(app, "/matches/7/board.png", "192.0.2.1", held))[0] == 200  # -300
    assert (await call(app, "/matches/7/board.png", "192.0.2.1", held))[0] == 429
    assert (await call(app, "/", "192.0.2.1", held))[0] == 200  # a page is not heavy


async def test_refusals_are_held_a_moment_but_never_more_than_so_many(monkeypatch):
    monkeypatch.setattr(admission, "TARPIT_SECONDS", 0.5)
    monkeypatch.setattr(admission, "TARPIT_HELD", 1)
    finished = []

    async def refused(name):
        await admission.tarpit()
        finished.append(name)

    await asyncio.gather(refused("held"), refused("past the cap"))
    assert finished == ["past the cap", "held"]  # the second was not held


def test_trusted_networks_that_cannot_be_read_are_said_at_start(monkeypatch):
    monkeypatch.setenv("SPECTATOR_TRUSTED_NETWORKS", "10.0.0.0/8,300.1.0.0/16")
    gates_reset()
    [problem] = admission.trusted_networks_check()
    assert problem.id == "spectator.E001" and "300.1.0.0/16" in problem.msg
    monkeypatch.setenv("SPECTATOR_TRUSTED_NETWORKS", "10.0.0.0/8")
    gates_reset()
    assert admission.trusted_networks_check() == []


@pytest.mark.django_db(transaction=True)  # (the views read the database in a thread)
async def test_a_visitors_read_of_a_match_state_takes_one_place_not_two(monkeypatch):
    """Found in the demo, where loopback is no trusted network: the middleware gave a
    visitor's read of a match's state the address's one place at the heavy gate, then
    the view asked for a second and refused it, every time."""
    from asgiref.sync import sync_to_async

    from matches.api_asgi import AnswerEndpoint
    from spectator.handler import OneHopASGIHandler
    from tests.factories import make_match

    monkeypatch.setattr(admission, "BYTES", ByteBudget(burst=10 ** 6, rate=0))
    match, _ = await sync_to_async(make_match)()
    app, held = Admission(AnswerEndpoint(OneHopASGIHandler())), asyncio.Event()
    headers = [(b"host", b"127.0.0.1")]
    for _ in range(2):
        status, answer = await call(app, f"/api/matches/{match.pk}", "192.0.2.1", held,
                                    headers=headers, server=("127.0.0.1", 80))
        assert status == 200, answer["body"]
        assert json.loads(answer["body"])["id"] == match.pk
    assert GATES["heavy"].total == 0
    left, _ = admission.BYTES.left["192.0.2.1"]  # what it was sent, charged once a read
    assert admission.BYTES.burst - left == 2 * len(answer["body"])


async def test_a_visitors_state_reads_over_the_rate_are_refused_here_and_views_refusals_held(
        monkeypatch):
    """A flood of a match's state reads is refused before any work is done for it (no
    thread, no query), and a refusal a view makes (a large state at the heavy gate) is
    held like the middleware's own: a client that asks again at once asks once a second."""
    monkeypatch.setattr(admission, "SMALL_READS", admission.RequestRate(0.0, 2.0))
    reached = []

    async def counting(scope, receive, send):
        reached.append(scope["path"])
        await application(scope, receive, send)

    app, held = Admission(counting), asyncio.Event()
    held.set()
    codes = [(await call(app, "/v1/matches/7", "192.0.2.1", held))[0] for _ in range(3)]
    assert codes == [200, 200, 429] and len(reached) == 2  # the third never reached a view
    with_token = {"headers": [(b"authorization", b"Bearer t")]}
    assert (await call(app, "/v1/matches/7", "192.0.2.1", held, **with_token))[0] == 200

    async def refusing(scope, receive, send):
        await send({"type": "http.response.start", "status": 429, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    holds = []

    async def tarpit():
        holds.append(True)

    monkeypatch.setattr(admission, "tarpit", tarpit)
    assert (await call(Admission(refusing), "/api/matches/8", "192.0.2.9", held))[0] == 429
    assert holds == [True]


@pytest.mark.django_db(transaction=True)
async def test_a_writes_refusal_is_held_for_a_stranger_whatever_it_adds_and_never_for_a_team(
        monkeypatch):
    """A 429 to a write (practice's rate limit, the questions' limit) is held as a read's
    is, with a cookie or a made-up token too, and with a team's token (practice); a
    team's answer is left to the answer service, which holds a stranger's alone."""
    from asgiref.sync import sync_to_async

    from matches.access import team_by_authorization
    from tests.factories import make_match

    holds = []

    async def tarpit():
        holds.append(True)

    async def refusing(scope, receive, send):
        await send({"type": "http.response.start", "status": 429, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    monkeypatch.setattr(admission, "tarpit", tarpit)
    _, tokens = await sync_to_async(make_match)()
    await sync_to_async(team_by_authorization)(f"Bearer {tokens[0]}")  # now known here
    app, held = Admission(refusing), asyncio.Event()
    known = [(b"authorization", f"Bearer {tokens[0]}".encode())]
    for path, headers in (("/api/practice", []), ("/api/practice", [(b"cookie", b"x=1")]),
                          ("/api/questions", [(b"authorization", b"Bearer made-up")]),
                          ("/api/practice", known),  # a team's token asking for practice
                          ("/api/matches/7/actions", known),  # a team's answers: the
                          ("/procon31/matches/7/action", known)):  # service's to hold
        assert (await call(app, path, "192.0.2.9", held, method="POST",
                           headers=headers))[0] == 429
    assert holds == [True] * 4  # the strangers' and the practice's, not the answers
