"""`gruft serve`'s gunicorn worker: a request is read whole before a thread is given to it
(issue 32, item 1).

gunicorn's gthread worker keeps idle kept-alive connections in its selector, but hands a new
connection, or a kept-alive one that became readable, to a thread of its pool, which then reads
the request's headers and body blocking, with no deadline. The probe: 2,400 connections from one
address each sending half a request (`GET /games HTTP/1.1\\r\\nHost: x\\r\\nX-a: ` and no more)
held every thread, and nobody else was answered; 2,500 idle connections reopened as fast as they
were dropped made a bystander wait ~4 s. The per-address caps (api/holds.py) count requests once
parsed, too late to help.

`ReadingWorker` reads in the worker's main loop instead, without blocking, as nginx does in front
of an application:
- a connection is counted against its peer address as it is accepted: one address holds at most
  GRUFT_CONNECTIONS_PER_ADDRESS in a worker (idle, being read or being answered); past it a new
  one is closed at once, before anything is read from it or any thread given to it;
- its request's line and headers must arrive within GRUFT_HEADER_TIMEOUT of the connection (or,
  kept alive, of the next request's first byte), its body within GRUFT_BODY_TIMEOUT after them,
  or the connection is closed unanswered;
- only a whole request goes to a thread: its bytes are handed to gunicorn's own parser (which
  reads them from its buffer, not the socket), so requests are parsed, answered, logged and kept
  alive exactly as gthread does, and a stream's thread still owns the request's socket
  (service/live/stream_writer.py writes on it).
A body over 1 MiB (api.inputs.MAX_BODY_BYTES: only a replay document, verified or imported, may
be larger) goes to a thread once its headers are in: the app refuses it unread (413 past
GRUFT_MAX_DOCUMENT_BYTES; 429 past GRUFT_VERIFY_PER_ADDRESS documents of one address under way),
and the thread reading it closes it after GRUFT_BODY_TIMEOUT of silence (400). What one address
has being read in a worker is held to about BUFFERED_BODIES bodies of 1 MiB: past it, its
connections are read no further until some of it is dispatched (their deadlines still run).
Headers past HEAD_MAX are a 400 of the API's error shape. TLS (gunicorn's --certfile) and HTTP/2
by prior knowledge are served as gthread serves them (the handshake is a thread's; gruft serve
offers neither: a proxy in front does TLS).
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import struct
import time
from collections import Counter
from functools import partial
from typing import Any

from gunicorn import http
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import TConn, ThreadWorker

from api.inputs import MAX_BODY_BYTES
from service.settings import Settings

HEAD_MAX = 64 << 10  # bytes of request line and headers; past them 400 (gunicorn's limits: less)
BODY_SLACK = 64 << 10  # beyond the largest body the app takes: chunk framing
RECV_BYTES = 256 << 10  # read at a time from one connection
ACCEPT_BATCH = 1024  # connections taken from the listening socket each time it is ready
LOOK_EVERY = 0.05  # seconds between looks for connections past their deadline (at most)


def answer(status: bytes, code: str, message: str, *headers: bytes) -> bytes:
    """A whole answer of the API's error shape (docs/api.md, Errors), closing the connection."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    return (b"HTTP/1.1 %b\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"%bConnection: close\r\n\r\n%b" % (status, len(body), b"".join(headers), body))


HEAD_TOO_LARGE = answer(b"400 Bad Request", "bad_request",
                        "the request's line and headers are over 64 KiB")
# One address's requests being read in a worker hold about this many times the largest body
# read here; past it its connections are read no further (TCP holds their senders back) until
# what was read is dispatched or dropped: memory is not a free-for-all.
BUFFERED_BODIES = 8
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close with a reset, keeping no state

# What the bytes read so far make: MORE to come, a WHOLE request, one a thread answers NOW
# (gunicorn or the app refuses it), or headers TOO_LARGE.
MORE, WHOLE, NOW, TOO_LARGE = "more", "whole", "now", "too large"


class ReadConn(TConn):
    """A connection, counted against its peer address until it is closed, and what has been
    read of its next request."""

    def __init__(self, cfg: Any, sock: socket.socket, client: Any, server: Any, address: str,
                 counts: Counter[str]) -> None:
        super().__init__(cfg, sock, client, server)
        self.address, self._counts = address, counts
        self.counted = True
        self.buffer = bytearray()
        self.deadline = 0.0
        self.head_end = -1  # where the body starts once the headers are in
        self.body_end: int | None = None  # where the request ends (a known length)
        self.chunked = False
        self.whole = False  # read whole: the next enqueue gives it a thread

    def close(self, graceful: bool = False) -> None:
        if self.counted:
            self.counted = False
            self._counts[self.address] -= 1
            if self._counts[self.address] <= 0:
                del self._counts[self.address]
        super().close(graceful)


def peer(client: Any) -> str:
    """The address connections are counted under (a Unix socket's peers all share one)."""
    return str(client[0]) if isinstance(client, tuple) and client else ""


def chunked_end(buf: bytearray, pos: int) -> int | None:
    """Where a chunked body starting at `pos` ends, None while it has not all arrived; -1 for
    framing gunicorn will refuse (a thread then answers it at once)."""
    while True:
        line_end = buf.find(b"\r\n", pos)
        if line_end < 0:
            return None if len(buf) - pos <= 4096 else -1
        size_text = bytes(buf[pos:line_end]).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            return -1
        if size < 0:
            return -1
        if size == 0:  # trailers, then an empty line
            start = line_end + 2
            while True:
                end = buf.find(b"\r\n", start)
                if end < 0:
                    return None
                if end == start:
                    return end + 2
                start = end + 2
        pos = line_end + 2 + size + 2
        if pos > len(buf):
            return None


def framing(head: bytes) -> tuple[int | None, bool, bool]:
    """(Content-Length, chunked, expects 100-continue) as a request's head says them; a length
    of -1 for one gunicorn will refuse."""
    length: int | None = None
    chunked = expect = False
    lines = head.split(b"\r\n")
    version_11 = lines[0].rstrip().endswith(b"HTTP/1.1")
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length":
            if not value.isdigit() or (length is not None and length != int(value)):
                return -1, False, False
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = chunked or b"chunked" in value
        elif name == b"expect":
            expect = value == b"100-continue" and version_11
    return length, chunked, expect


class ReadingWorker(ThreadWorker):
    """gthread, with requests read whole in the main loop before a thread serves them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = Settings.read()
        self.header_timeout = settings.header_timeout
        self.body_timeout = settings.body_timeout
        self.per_address = settings.connections_per_address or None
        self.body_max = MAX_BODY_BYTES + BODY_SLACK
        self.body_silence = struct.pack("ll", int(self.body_timeout),
                                        int(self.body_timeout % 1 * 1_000_000))
        self.buffered_max = BUFFERED_BODIES * self.body_max
        self.counts: Counter[str] = Counter()
        self.buffered: Counter[str] = Counter()  # bytes read and not yet dispatched, by address
        self.reading: dict[ReadConn, None] = {}  # connections whose request is being read
        self.paused: dict[str, list[ReadConn]] = {}  # by address: read no further for now
        self.looked = 0.0

    # -- connections in ----------------------------------------------------------------------

    def accept(self, listener: socket.socket) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                sock, client = listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            if self.cfg.is_ssl or negotiation.prior_knowledge_allowed(self.cfg, client):
                # gthread's way: the handshake or preface is a thread's (the module's doc)
                self.nr_conns += 1
                super().enqueue_req(TConn(self.cfg, sock, client, listener.getsockname()))
                continue
            address = peer(client)
            if self.per_address is not None and self.counts[address] >= self.per_address:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
                sock.close()  # before anything is read from it
                continue
            self.counts[address] += 1
            self.nr_conns += 1
            conn = ReadConn(self.cfg, sock, client, listener.getsockname(), address,
                            self.counts)
            self.enqueue_req(conn)
            if self.nr_conns >= self.worker_connections:
                return

    def enqueue_req(self, conn: Any) -> None:
        """A thread for a request read whole; any other connection is read first."""
        if not isinstance(conn, ReadConn) or conn.whole:
            if isinstance(conn, ReadConn):
                conn.whole = False
            return super().enqueue_req(conn)
        # New, kept alive and readable, or holding bytes its last request left (pipelined).
        left = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        conn.sock.setblocking(False)
        conn.buffer = bytearray(left)
        conn.head_end, conn.body_end, conn.chunked = -1, None, False
        conn.deadline = time.monotonic() + self.header_timeout
        try:
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.readable, conn))
        except (OSError, ValueError, KeyError):  # closed meanwhile
            self.nr_conns -= 1
            conn.close()
            return
        self.reading[conn] = None
        self.buffered[conn.address] += len(left)
        if left:
            self.advance(conn)
        else:
            self.readable(conn, conn.sock)  # a kept-alive one is readable; a new one may be

    def readable(self, conn: ReadConn, _sock: Any) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self.drop(conn)
            return
        conn.buffer += data
        self.buffered[conn.address] += len(data)
        self.advance(conn)
        if conn in self.reading and self.buffered[conn.address] > self.buffered_max:
            self.poller.unregister(conn.sock)  # its deadline still runs (look_over)
            self.paused.setdefault(conn.address, []).append(conn)

    def advance(self, conn: ReadConn) -> None:
        """Dispatch the request once it is whole, or answer what can never be."""
        state = self.state(conn)
        if state == MORE:
            return
        if state == TOO_LARGE:
            self.drop(conn, HEAD_TOO_LARGE)
            return
        self.dispatch(conn)

    def state(self, conn: ReadConn) -> str:
        """What the bytes read so far make (MORE, WHOLE, NOW or TOO_LARGE)."""
        buf = conn.buffer
        if conn.head_end < 0:
            start = 0
            while buf.startswith(b"\r\n", start):  # empty lines before a request are allowed
                start += 2
            end = buf.find(b"\r\n\r\n", start)
            if end < 0:
                return TOO_LARGE if len(buf) > HEAD_MAX else MORE
            conn.head_end = end + 4
            length, conn.chunked, expect = framing(bytes(buf[start:end]))
            if length is not None and (length < 0 or length > self.body_max):
                return NOW
            if not conn.chunked:
                conn.body_end = conn.head_end + (length or 0)
            if len(buf) < (conn.body_end or len(buf) + 1):
                conn.deadline = time.monotonic() + self.body_timeout
                if expect:  # the client waits for this before it sends the body
                    with contextlib.suppress(OSError):
                        conn.sock.send(CONTINUE, socket.MSG_DONTWAIT)
        if conn.chunked:
            end = chunked_end(buf, conn.head_end)
            if end is None:
                return NOW if len(buf) - conn.head_end > self.body_max else MORE
            return NOW if end < 0 else WHOLE
        return WHOLE if len(buf) >= (conn.body_end or 0) else MORE

    def dispatch(self, conn: ReadConn) -> None:
        """Hand what was read to gunicorn's parser and the connection to a thread."""
        self.poller.unregister(conn.sock)
        self.forget(conn)
        if conn.parser is None:
            # What a thread reads from the socket itself (a document's body; bytes gunicorn
            # wants past where this loop saw a request end): no silence past the body's deadline.
            with contextlib.suppress(OSError):
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, self.body_silence)
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
        conn.parser.unreader.unread(bytes(conn.buffer))
        conn.buffer = bytearray()
        conn.data_ready = conn.whole = True
        self.enqueue_req(conn)

    def forget(self, conn: ReadConn) -> None:
        """No longer reading `conn`: its bytes no longer count against its address, whose
        paused connections are read again once it is back under its share."""
        del self.reading[conn]
        address = conn.address
        self.buffered[address] -= len(conn.buffer)
        if self.buffered[address] <= 0:
            del self.buffered[address]
        paused = self.paused.get(address)
        if paused is None:
            return
        if conn in paused:
            paused.remove(conn)
        if not paused or self.buffered[address] <= self.buffered_max:
            for waiting in self.paused.pop(address):
                self.poller.register(waiting.sock, selectors.EVENT_READ,
                                     partial(self.readable, waiting))

    def drop(self, conn: ReadConn, answer: bytes = b"") -> None:
        """Close a connection being read (gone, too slow, or refused with `answer`)."""
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(conn.sock)
        if conn not in self.reading:
            return  # closed already
        self.forget(conn)
        if answer:
            with contextlib.suppress(OSError):
                # What the client sent on is read first: a socket closed with bytes unread
                # is reset, and the reset may reach the client before the answer does.
                while conn.sock.recv(RECV_BYTES, socket.MSG_DONTWAIT):
                    pass
            with contextlib.suppress(OSError):
                conn.sock.send(answer, socket.MSG_DONTWAIT)
                conn.sock.shutdown(socket.SHUT_WR)
        self.nr_conns -= 1
        conn.close()

    # -- deadlines ---------------------------------------------------------------------------

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if self.reading:
            timeout = min(timeout, LOOK_EVERY * 2)
        super().wait_for_and_dispatch_events(timeout)
        now = time.monotonic()
        if now - self.looked >= LOOK_EVERY:
            self.looked = now
            self.look_over(now)

    def look_over(self, now: float) -> None:
        """Close the connections past their deadline; a stopping worker closes those that sent
        nothing yet."""
        late = [c for c in self.reading if c.deadline <= now or (not self.alive and not c.buffer)]
        for conn in late:
            self.drop(conn)
