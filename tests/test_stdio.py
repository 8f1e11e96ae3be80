"""forge.stdio: stdin and stdout as event-loop streams under the SDK's stdio transport."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from forge.stdio import LineReader

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

# Runs in a child whose stdin and stdout are pipes: echoes each line it reads, upper-cased,
# after stray output to fd 1 (print and os.write) that must land on stderr, not the wire.
ECHO = """
import asyncio, os, sys
from forge.stdio import event_loop_stdio

async def main():
    async with event_loop_stdio() as pipes:
        if pipes is None:
            print("no pipes", file=sys.stderr)
            return
        reader, writer = pipes
        async for line in reader:
            print("stray print", flush=True)
            os.write(1, b"stray write\\n")
            await writer.write(line.upper())
            await writer.flush()
    print("after", flush=True)  # fd 1 is the wire again

asyncio.run(main())
"""


def _echo(stdin: bytes | Path) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-c", ECHO]
    if isinstance(stdin, Path):
        with stdin.open("rb") as file:
            return subprocess.run(command, stdin=file, capture_output=True, timeout=60)
    return subprocess.run(command, input=stdin, capture_output=True, timeout=60)


def test_lines_round_trip_and_stray_output_goes_to_stderr_not_the_wire() -> None:
    run = _echo(b'{"a": "\xc3\xa9"}\nsecond\nno newline at the end')
    assert run.returncode == 0, run.stderr
    assert run.stdout == '{"A": "É"}\nSECOND\nNO NEWLINE AT THE ENDafter\n'.encode()
    assert run.stderr.count(b"stray print") == 3 and run.stderr.count(b"stray write") == 3


def test_a_stdin_that_is_not_a_pipe_leaves_the_sdk_its_own_streams(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(b"line\n")
    run = _echo(requests)
    assert run.returncode == 0, run.stderr
    assert b"no pipes" in run.stderr


@pytest.mark.parametrize("chunk", [1000, 7], ids=["whole", "in-pieces"])
def test_a_line_over_the_limit_is_dropped_and_the_next_one_still_arrives(chunk: int) -> None:
    data = b"x" * 100 + b"\n" + b'{"ok": 1}\n' + b"y" * 40

    async def read_all() -> list[str]:
        stream = asyncio.StreamReader(limit=16)

        async def feed() -> None:
            for start in range(0, len(data), chunk):
                stream.feed_data(data[start : start + chunk])
                await asyncio.sleep(0)
            stream.feed_eof()

        feeding = asyncio.create_task(feed())
        lines = [line async for line in LineReader(stream)]
        await feeding
        return lines

    # The dropped line arrives as an empty (invalid) message; so does the unterminated
    # over-long tail, which ends the input.
    assert asyncio.run(read_all()) == ["\n", '{"ok": 1}\n', "\n"]
