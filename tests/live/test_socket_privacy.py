"""Sockets follow the one visibility rule: a private match is the judges' and its own
teams' until it is published; nobody else hears of it on /ws/matches/<id>/ or in the
live list /ws/matches/."""

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import Permission, User
from django.test import Client

from matches.services.transition import turn_resolve
from tests.factories import make_match
from tests.live.clients import browser_socket, first_answer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio,
              pytest.mark.usefixtures("worker_connections_closed")]

resolve = sync_to_async(turn_resolve)



@sync_to_async
def session_cookie(judge: bool) -> bytes:
    """The session cookie of a logged-in user, with or without the judge permission."""
    user = User.objects.create_user("judy" if judge else "jo", password="pw")
    if judge:
        user.user_permissions.add(Permission.objects.get(codename="judge"))
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


socket = browser_socket


async def opens(path, **who) -> bool:
    answer, detail = await first_answer(socket(path, **who))
    if answer == "closed":
        assert detail == 4404  # answered as a match that does not exist
        return False
    assert answer == "message" and detail["type"] in {"snapshot", "matches"}
    return True


async def test_a_private_match_socket_opens_for_judges_and_its_own_teams_only():
    private, tokens = await sync_to_async(make_match)(teams=("Hidden", "Secret"), public=False)
    _, other_tokens = await sync_to_async(make_match)(teams=("Else", "Where"), public=False)
    path = f"/ws/matches/{private.pk}/"
    assert not await opens(path)
    assert not await opens(path, cookie=await session_cookie(judge=False))
    assert not await opens(path, token=other_tokens[0])  # a team of another match
    assert not await opens(path, token="made-up")
    assert await opens(path, token=tokens[1])
    assert await opens(path, cookie=await session_cookie(judge=True))


async def test_a_public_live_match_socket_opens_for_anyone():
    match, _ = await sync_to_async(make_match)(public=True)
    assert await opens(f"/ws/matches/{match.pk}/")


async def test_the_live_list_tells_only_judges_of_private_matches():
    public, _ = await sync_to_async(make_match)(teams=("Open", "Air"), public=True)
    private, _ = await sync_to_async(make_match)(teams=("Hidden", "Secret"), public=False)
    anyone = socket("/ws/matches/")
    judge = socket("/ws/matches/", cookie=await session_cookie(judge=True))
    for communicator in (anyone, judge):
        assert (await communicator.connect())[0]
    seen = {}
    for name, communicator in (("anyone", anyone), ("judge", judge)):
        listing = await communicator.receive_json_from(timeout=3)
        seen[name] = {line["id"] for line in listing["matches"]}
    assert seen == {"anyone": {public.pk}, "judge": {public.pk, private.pk}}

    await resolve(match_id=private.pk, number=1)
    await resolve(match_id=public.pk, number=1)
    # The judge hears both, in order; anyone hears only the public one's summary.
    heard_by_judge = [(await judge.receive_json_from(timeout=3))["match"]["id"]
                      for _ in range(2)]
    assert heard_by_judge == [private.pk, public.pk]
    summary = await anyone.receive_json_from(timeout=3)
    assert summary["match"]["id"] == public.pk
    assert await anyone.receive_nothing(timeout=0.3)
    for communicator in (anyone, judge):
        await communicator.disconnect()


async def test_the_last_summary_of_a_public_live_match_reaches_everyone():
    match, _ = await sync_to_async(make_match)(public=True, turns=1)
    anyone = socket("/ws/matches/")
    assert (await anyone.connect())[0]
    await anyone.receive_json_from(timeout=3)
    await resolve(match_id=match.pk, number=1)
    summary = await anyone.receive_json_from(timeout=3)
    assert (summary["match"]["id"], summary["match"]["status"]) == (match.pk, "finished")
    await anyone.disconnect()


async def test_a_match_taken_back_leaves_the_lists_and_closes_the_public_sockets():
    from matches.services.publication import match_publish

    match, tokens = await sync_to_async(make_match)(public=True)
    path = f"/ws/matches/{match.pk}/"
    listing, watcher = socket("/ws/matches/"), socket(path)
    team, judge = socket(path, token=tokens[0]), socket(path, cookie=await session_cookie(True))
    for communicator in (listing, watcher, team, judge):
        assert (await communicator.connect())[0]
        await communicator.receive_json_from(timeout=3)  # the list, or the snapshot
    for communicator in (watcher, team, judge):
        assert (await communicator.receive_json_from(timeout=3))["type"] == "viewers"

    await sync_to_async(match_publish)(match_id=match.pk, published=False)
    assert await listing.receive_json_from(timeout=3) == {"type": "withdrawn",
                                                          "match": match.pk}
    assert await watcher.receive_json_from(timeout=3) == {"type": "withdrawn",
                                                          "match": match.pk}
    assert (await watcher.receive_output(timeout=3)) == {"type": "websocket.close",
                                                         "code": 4404}
    # Its own teams and the judges watch on; the turns still reach them.
    await resolve(match_id=match.pk, number=1)
    for communicator in (team, judge):
        assert (await communicator.receive_json_from(timeout=3))["type"] == "turn"
    assert not await opens(path)
    for communicator in (listing, team, judge):
        await communicator.disconnect()
