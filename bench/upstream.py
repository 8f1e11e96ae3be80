"""A minimal HTTP/1.1 upstream for benchmarks: raw asyncio, keep-alive, one small JSON body.

    python bench/upstream.py PORT      # prints "ready" once listening on 127.0.0.1:PORT

Every request (any method, any path) gets 200 and a Pet. Request bodies are read by
Content-Length and discarded.
"""

from __future__ import annotations

import asyncio
import signal
import sys

BODY = b'{"id":1,"name":"doggie","status":"available","tags":["bench"]}'
RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
    + str(len(BODY)).encode()
    + b"\r\n\r\n"
    + BODY
)


class Upstream(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            length = 0
            marker = head.find(b"content-length:")
            if marker >= 0:
                length = int(head[marker + 15 :].split(b"\r\n", 1)[0])
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            self.transport.write(RESPONSE)


async def main(port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Upstream, "127.0.0.1", port, backlog=1024)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    print("ready", flush=True)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
