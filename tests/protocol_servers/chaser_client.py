"""A CHaser client written from docs/rules/chaser.md, for the tests: it connects, sends
its name, and answers each `@` with `gr`, a command and `#`, as contest programs do."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

Chooser = Callable[[str], str | None]  # the ready digits -> the command (None: stop)


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.heard: list[str] = []  # every line the server sent, in order
        self.replies: list[tuple[str, str]] = []  # (ready, reply) of each step

    @classmethod
    async def connect(cls, port: int, name: bytes = b"test", end: bytes = b"\r\n") -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = cls(reader, writer)
        client.end = end
        writer.write(name + end)
        await writer.drain()
        return client

    async def line(self, timeout: float = 10) -> str | None:
        """The server's next line without its CRLF; None once the server has closed."""
        raw = await asyncio.wait_for(self.reader.readline(), timeout)
        if not raw:
            return None
        assert raw.endswith(b"\r\n"), raw  # the protocol's line end
        text = raw[:-2].decode()
        self.heard.append(text)
        return text

    async def send(self, text: str | bytes) -> None:
        self.writer.write((text.encode() if isinstance(text, str) else text) + self.end)
        await self.writer.drain()

    async def play(self, choose: Chooser) -> None:
        """Steps until the game is over (a reply or ready digits starting with 0) or the
        server closes; then the connection is closed, as a program that exits does."""
        try:
            await self._steps(choose)
        finally:
            self.writer.close()

    async def _steps(self, choose: Chooser) -> None:
        while True:
            line = await self.line()
            if line is None:
                return
            assert line == "@", line
            await self.send("gr")
            ready = await self.line()
            if ready is None:
                return
            if ready.startswith("0"):
                return
            command = choose(ready)
            if command is None:
                return
            await self.send(command)
            reply = await self.line()
            if reply is None:
                return
            self.replies.append((ready, reply))
            await self.send("#")
            if reply.startswith("0"):
                return



def scripted(commands: list[str]) -> Chooser:
    """Send these commands one a step; None when they run out."""
    left: Iterator[str] = iter(commands)
    return lambda ready: next(left, None)
