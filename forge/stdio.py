"""Standard input and output as event-loop streams, for the SDK's stdio transport.

The SDK's `stdio_server()` reads and writes the process's stdin and stdout through
`anyio.wrap_file`: every line read, every write and every flush is a hand-off to a worker
thread and back, about 12 per tool call. Measured on the development machine (2 vCPUs),
that is 1.4-1.8 ms of server CPU per no-op round trip, and it makes the server's own HTTP
request dearer too (docs/benchmarks.md, "Per call over stdio").

When both are pipes or sockets (how MCP clients start servers), `event_loop_stdio()` hands
`stdio_server()` readers and writers driven by the event loop instead; the SDK still does
all the framing (one JSON-RPC message per line). Like the SDK, it first moves the protocol
to private descriptors and points fd 0 at /dev/null and fd 1 at stderr, so a stray print
cannot corrupt the wire, and puts them back on exit. Anywhere else (a terminal, a regular
file, Windows) it yields None and the SDK's own streams are used.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import BinaryIO

__all__ = ["MAX_LINE", "event_loop_stdio"]

MAX_LINE = 64 * 1024 * 1024  # bytes in one message; a longer line is dropped (an invalid message)


class LineReader:
    """Lines of text from a pipe, read by the event loop: what the SDK iterates for messages."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:  # end of input: the last line, unterminated, or nothing
            line = exc.partial
        except asyncio.LimitOverrunError:
            await self._discard_line()
            return "\n"  # over MAX_LINE: the SDK gets an empty, invalid message and answers with an error
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")

    async def _discard_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:  # drop what is buffered so far of the long line
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return


class LineWriter:
    """Text written to a pipe by the event loop; `flush` waits until the pipe has taken it."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _divert(fd: int, replacement: int) -> int:
    """Move `fd`'s file to a private descriptor (returned) and point `fd` at `replacement`."""
    import fcntl

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(replacement, fd)
    return private


def _restore(fd: int, private: int) -> None:
    """Point `fd` back at its file (blocking again, as it was) and drop the private descriptor."""
    with suppress(OSError):
        os.set_blocking(private, True)
        os.dup2(private, fd)
    with suppress(OSError):
        os.close(private)


@asynccontextmanager
async def event_loop_stdio() -> AsyncIterator[tuple[LineReader, LineWriter] | None]:
    """(reader, writer) over the process's stdin and stdout, or None where they are not pipes."""
    if sys.platform == "win32" or not (_is_pipe(0) and _is_pipe(1)):
        yield None
        return
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        private_in = _divert(0, devnull)
    finally:
        os.close(devnull)
    private_out = _divert(1, 2)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    try:
        stdin: BinaryIO = os.fdopen(private_in, "rb", buffering=0, closefd=False)
        stdout: BinaryIO = os.fdopen(private_out, "wb", buffering=0, closefd=False)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        write_transport, write_protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
    except (OSError, ValueError):  # a descriptor the event loop cannot watch: the SDK's own streams
        _restore(0, private_in)
        _restore(1, private_out)
        yield None
        return
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    try:
        yield LineReader(reader), LineWriter(writer)
    finally:
        try:
            with suppress(OSError, RuntimeError, ConnectionError):
                await writer.drain()
        finally:
            read_transport.close()
            write_transport.close()
            _restore(0, private_in)
            _restore(1, private_out)
