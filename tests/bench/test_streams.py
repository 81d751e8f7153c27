"""The stream benchmark's client reads Server-Sent Events over raw HTTP/1.1 as a browser would:
chunked or not, split anywhere by the network, comments skipped, the end of the stream seen."""

from __future__ import annotations

import json
import random

import pytest

from bench.streams import Stream


def sse(version: int, payload: dict) -> bytes:
    """One message as the contract's stream sends it."""
    return f"id: {version}\nevent: update\ndata: {json.dumps(payload)}\n\n".encode()


def chunked(parts: list[bytes]) -> bytes:
    """The parts as HTTP/1.1 chunks, then the last chunk."""
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n")
# A data line that mentions ids inside its JSON must not be read as a message's id.
MESSAGES = [sse(3, {"view": {"id: 99": "\nid: 98"}}), b": keepalive\n\n",
            sse(4, {"events": [1]}), sse(7, {"events": [2, 3, 4]})]


def feed_in_pieces(stream: Stream, data: bytes, rng: random.Random) -> None:
    at, clock = 0, 0.0
    while at < len(data):
        size = rng.randint(1, 40)
        clock += 1.0
        stream.feed(memoryview(data[at:at + size]), clock)
        at += size


@pytest.mark.parametrize("seed", range(20))
def test_ids_are_read_however_the_bytes_are_split(seed):
    rng = random.Random(seed)
    stream = Stream("g", None)
    # Chunks that do not follow message boundaries, as a server's writes may not.
    body = b"".join(MESSAGES)
    cuts = sorted(rng.sample(range(1, len(body)), 5))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    feed_in_pieces(stream, HEAD + chunked(pieces), rng)
    assert stream.status == 200 and not stream.failed
    assert stream.ids == [3, 4, 7]
    assert stream.times == sorted(stream.times)
    assert stream.ended  # the last chunk: the game is over


def test_a_stream_without_chunks_and_with_crlf_lines():
    stream = Stream("g", "tok")
    body = b"".join(MESSAGES).replace(b"\n", b"\r\n")
    stream.feed(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + body, 5.0)
    assert stream.ids == [3, 4, 7] and not stream.ended
    assert b"Authorization: Bearer tok\r\n" in stream.request(8000)


def test_an_update_arrives_with_the_first_message_of_its_version_or_later():
    stream = Stream("g", None)
    stream.ids, stream.times = [3, 4, 7], [1.0, 2.0, 3.0]
    # A command answered with version 5 or 6 reached this viewer in the message of version 7.
    assert [stream.arrival(v) for v in (3, 4, 5, 6, 7, 8)] == [1.0, 2.0, 3.0, 3.0, 3.0, None]


def test_a_refused_stream_fails_and_ends():
    stream = Stream("g", "bad")
    stream.feed(b'HTTP/1.1 401 UNAUTHORIZED\r\nContent-Length: 2\r\n\r\n{}', 1.0)
    assert stream.failed == "status 401" and stream.ended and stream.ids == []
