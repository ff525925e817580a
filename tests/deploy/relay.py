"""A byte relay between two network namespaces of one machine, for tests/deploy/hosts.py.

    python relay.py LISTEN TARGET        each tcp:ADDRESS:PORT or unix:PATH

It accepts connections at LISTEN and joins each to a new connection to TARGET, both
ways, until either side closes. A Unix socket is a file, seen from every network
namespace, so two relays (a TCP port to a Unix socket on one side, that Unix socket to
a TCP port on the other) carry a port of one namespace into another. It prints "ready"
once it listens, and ends when its standard input closes (the test that started it has
ended, whatever way): nothing of a killed run is left listening.

Only the standard library: it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys


def place(text: str) -> tuple[str, str, int]:
    kind, _, rest = text.partition(":")
    if kind == "unix":
        return kind, rest, 0
    if kind == "tcp":
        address, _, port = rest.rpartition(":")
        return kind, address, int(port)
    raise SystemExit(f"not tcp:ADDRESS:PORT or unix:PATH: {text!r}")


async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        # the other side learns of the end (a half close when the transport can)
        with contextlib.suppress(OSError, RuntimeError):
            if sink.can_write_eof():
                sink.write_eof()
            else:
                sink.close()


async def main(listen: str, target: str) -> None:
    kind, address, port = place(target)

    async def joined(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if kind == "unix":
                far_reader, far_writer = await asyncio.open_unix_connection(address)
            else:
                far_reader, far_writer = await asyncio.open_connection(address, port)
        except OSError:  # nothing listens there (yet, or any more): say so by closing
            writer.close()
            return
        await asyncio.gather(pump(reader, far_writer), pump(far_reader, writer))
        for side in (writer, far_writer):
            side.close()

    listen_kind, listen_address, listen_port = place(listen)
    if listen_kind == "unix":
        server = await asyncio.start_unix_server(joined, listen_address)
    else:
        server = await asyncio.start_server(joined, listen_address, listen_port,
                                            reuse_address=True)
    print("ready", flush=True)
    # until the standard input closes
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    while await stdin.read(4096):
        pass
    server.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
