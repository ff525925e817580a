"""A crowd's work done once: live/batches.py's runs, and live/frames.py's frames."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from matches.live import frames
from matches.live.batches import Batched


async def test_who_asks_at_a_time_shares_one_run_and_who_asks_during_it_the_next():
    runs: list[list] = []
    release = asyncio.Event()

    async def work(key, items):
        runs.append(list(items))
        await release.wait()
        return (key, len(runs))

    batched = Batched("test", work)
    first = [asyncio.create_task(batched.ask("m", index)) for index in range(3)]
    await asyncio.sleep(0)  # the run starts with the three items
    await asyncio.sleep(0)
    later = [asyncio.create_task(batched.ask("m", index)) for index in (3, 4)]
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.gather(*first) == [("m", 1)] * 3
    assert await asyncio.gather(*later) == [("m", 2)] * 2  # a run that began after they asked
    assert runs == [[0, 1, 2], [3, 4]] and batched.runs == 2


async def test_a_caller_that_goes_away_does_not_cancel_the_others_run():
    release = asyncio.Event()

    async def work(key, items):
        await release.wait()
        return sum(items)

    batched = Batched("test", work)
    leaving = asyncio.create_task(batched.ask("m", 1))
    staying = asyncio.create_task(batched.ask("m", 2))
    await asyncio.sleep(0)
    leaving.cancel()
    release.set()
    assert await staying == 3


async def test_a_failed_run_fails_its_callers_and_the_next_run_starts_afresh():
    calls = []

    async def work(key, items):
        calls.append(items)
        if len(calls) == 1:
            raise ValueError("the database went away")
        return "ok"

    batched = Batched("test", work)
    try:
        await batched.ask("m")
    except ValueError:
        pass
    else:
        raise AssertionError("the run's error was not raised")
    assert await batched.ask("m") == "ok"


def test_a_frame_is_a_final_text_frame_of_the_utf8_text_unmasked():
    for text in ("é" * 10, "x" * 300, "y" * 70000):
        data, payload = frames.frame(text), text.encode()
        assert data[0] == 0x81 and not data[1] & 0x80
        length, start = data[1], 2
        if length == 126:
            length, start = int.from_bytes(data[2:4], "big"), 4
        elif length == 127:
            length, start = int.from_bytes(data[2:10], "big"), 10
        assert length == len(payload) and data[start:] == payload
    message = {"text": "turn"}
    assert frames.framed(message) is frames.framed(message)  # built once


def test_only_an_open_plain_connection_is_written_to_directly():
    written = []

    def connection(**changed):
        fields = {"state": 3, "STATE_OPEN": 3, "_perMessageCompress": None,
                  "send_state": 0, "SEND_STATE_GROUND": 0, "autoFragmentSize": 0,
                  "maxMessagePayloadSize": 0, "send_queue": [], "transport": None,
                  "sendData": written.append}
        return SimpleNamespace(**{**fields, **changed})

    assert frames.write(connection(), b"frame") and written == [b"frame"]
    for closed in ({"state": 4}, {"_perMessageCompress": object()}, {"send_state": 1},
                   {"autoFragmentSize": 2}, {"maxMessagePayloadSize": 2}):
        assert not frames.write(connection(**closed), b"frame")
    assert written == [b"frame"]
    assert frames.connection(lambda message: None) is None  # not daphne's send
