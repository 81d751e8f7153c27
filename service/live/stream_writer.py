"""One writer thread per worker writes every live stream after its catch-up.

A stream's own thread (api/live.py) writes the stream's first messages — the catch-up, in
pages — then hands the stream to this writer as an outlet, and the writer decides everything
after: each new version's message (built once per game, version and viewer:
api.messages.SharedMessages), the keepalive, the resync, the end with the game or with the worker,
and the cut-off of a client that falls behind. A command so wakes one thread per worker instead
of one per stream (measured: the wake, the GIL hand-offs and the write through werkzeug and
gunicorn were most of a message's cost, docs/performance.md).

The outlet is how the bytes leave, and the only part that differs between servers:
- `SocketOutlet` (gunicorn, HTTP/1.1): the writer sends chunk frames on the client's socket
  itself, never blocking (MSG_DONTWAIT); what the socket does not take waits in the outlet and
  goes out when the socket is writable, so a slow client never stalls the others;
- `QueueOutlet` (the Flask test client, any other WSGI server): the stream's thread takes what
  the writer queued and yields it to its server, blocking as that server does.
Either way a client more than `max_pending` bytes behind is cut off (it reconnects with
Last-Event-ID), and the same code decides what is sent and when.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import orjson

from service import Games
from service.live.delivery import catch_up
from service.live.watches import Watch

log = logging.getLogger("gruft.api")

MAX_PENDING = 1 << 20  # bytes a stream may fall behind before its client is cut off
# What the kernel may hold for a stream's client beside that: without a bound, Linux grows a
# socket's send buffer to 4 MiB, and a client that stopped reading would go unnoticed that long.
SEND_BUFFER = 64 << 10
# The comment keeps proxies from closing an idle stream; the `ping` event, which a browser's
# EventSource does see, lets a page notice a stream that died silently (api/static/liveness.js).
KEEPALIVE = b": keepalive\nevent: ping\ndata: {}\n\n"


def rematch_message(game_id: Any) -> bytes:
    """A message telling where the table goes on (docs/api.md, rematch): the stream's last."""
    return b"event: rematch\ndata: %b\n\n" % orjson.dumps({"game_id": str(game_id)})


REMATCH_LOOK_SECONDS = 1.0  # how often a stream waiting for a rematch looks for one


def presence_message(present: list[str]) -> bytes:
    """A message telling who has the game open now (docs/api.md, `present`): no id, since it
    changes no version."""
    return b"event: presence\ndata: %b\n\n" % orjson.dumps({"present": present})


TICK_SECONDS = 0.5  # how often keepalives, resyncs and a stopping worker are looked at (at most)
# An idle stream also reads the store this often, whatever it was told: a lost announcement
# could only ever delay a message (the live feed loses none that we know of).
RESYNC_SECONDS = 60.0


class Outlet:
    """A stream handed to the writer: who watches, the version it has, the bytes its client has
    not taken yet. `done` is set once the writer is finished with it."""

    def __init__(self, game_id: UUID, args: dict[str, Any], version: int, keepalive: float,
                 path: str, present: tuple[str, ...] = ()) -> None:
        self.game_id, self.args, self.version = game_id, args, version
        self.present = present  # the present seats its client last heard of
        self.keepalive, self.path = keepalive, path
        self.pending = bytearray()
        self.last_write = self.synced = time.monotonic()
        self.ending = False  # no more messages: done once the pending bytes are sent
        self.awaiting_rematch = False  # the game is over: waits for its rematch (?rematch=true)
        self.gone = False  # the client went away (or fell too far behind)
        self.done = threading.Event()
        self.selected = False  # registered with the writer's selector until its bytes are out

    def write(self, data: bytes) -> bool:
        """Queue one message (or keepalive) and pass on what the client takes now; whether
        bytes are left waiting (False: all taken). OSError: the client has gone."""
        raise NotImplementedError

    def flush(self) -> bool:
        """Pass on what waits, as far as the client takes it; whether bytes are left."""
        raise NotImplementedError

    def finished(self) -> None:
        """The writer is done with this outlet (`gone`: cut off, no orderly end)."""
        self.done.set()


class SocketOutlet(Outlet):
    """An outlet on the client's socket: HTTP/1.1 chunk frames, sent without blocking."""

    def __init__(self, sock: socket.socket, send_buffer: int, *args: Any) -> None:
        super().__init__(*args)
        self.sock = sock
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)

    def write(self, data: bytes) -> bool:
        frame = b"%X\r\n%b\r\n" % (len(data), data)
        if self.pending:
            self.pending += frame
            return True
        try:
            sent = self.sock.send(frame, socket.MSG_DONTWAIT)
        except BlockingIOError:
            sent = 0
        self.pending += frame[sent:]
        return bool(self.pending)

    def flush(self) -> bool:
        try:
            sent = self.sock.send(self.pending, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True
        del self.pending[:sent]
        return bool(self.pending)

    def finished(self) -> None:
        if self.gone:
            # No last chunk after a frame cut short: gunicorn finds the socket shut and closes it.
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        super().finished()  # the stream's thread returns: gunicorn ends the response


class QueueOutlet(Outlet):
    """An outlet the stream's own thread empties (`messages`) into its server's response."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._ready = threading.Condition()

    def write(self, data: bytes) -> bool:
        with self._ready:
            self.pending += data
            self._ready.notify()
        return False  # nothing for the writer to flush: the stream's thread takes it

    def flush(self) -> bool:
        return False

    def finished(self) -> None:
        with self._ready:
            super().finished()
            self._ready.notify()

    def messages(self) -> Iterator[bytes]:
        """What the writer queues, as it comes, until it is done (what a cut-off client had
        not taken is dropped)."""
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self.pending or self.done.is_set())
                if self.gone:
                    return
                data, self.pending = bytes(self.pending), bytearray()
                if not data:
                    return
            yield data


def usable(environ: dict[str, Any]) -> socket.socket | None:
    """The client's plain socket when the writer can send on it itself (gunicorn, HTTP/1.1
    chunked GET); None otherwise (a QueueOutlet then)."""
    sock = environ.get("gunicorn.socket")
    if (type(sock) is not socket.socket or environ.get("REQUEST_METHOD") != "GET"
            or environ.get("SERVER_PROTOCOL") != "HTTP/1.1"):
        return None
    return sock


class StreamWriter:
    """The writer thread of one Application's streams."""

    def __init__(self, store: Games, shared: Any, resync: float = RESYNC_SECONDS,
                 max_pending: int = MAX_PENDING, send_buffer: int = SEND_BUFFER) -> None:
        self._store, self._shared = store, shared
        self._resync, self._max_pending, self._send_buffer = resync, max_pending, send_buffer
        self._tick = min(TICK_SECONDS, resync)
        self._lock = threading.Lock()
        self._games: dict[UUID, list[Outlet]] = {}
        self._due: dict[UUID, int] = {}  # games announced and not yet written: their version
        self._presence_due: set[UUID] = set()  # games whose present seats changed
        self._rematch_looked = 0.0
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        store.live.subscribe(self._announced)
        store.presence.subscribe(self._presence_changed)
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="gruft-streams")
        self._thread.start()

    def close(self) -> None:
        """End the thread (its streams end) before the store closes: a round reads games from
        the store, and a connection closed under a running statement crashes SQLite's library
        (seen in CI)."""
        self._closing.set()
        self._wake()
        if self._thread is not threading.current_thread():
            self._thread.join(30)

    # -- from other threads -----------------------------------------------------------------

    def add(self, watch: Watch, args: dict[str, Any], version: int, keepalive: float, path: str,
            sock: socket.socket | None = None, present: tuple[str, ...] = (),
            finished: bool = False) -> Outlet:
        """Take a stream over once its messages up to `version` (telling of `present`) were
        written: on `sock` (a SocketOutlet) or, without one, as a QueueOutlet its thread
        empties."""
        head = (watch.game_id, args, version, keepalive, path, present)
        outlet = (SocketOutlet(sock, self._send_buffer, *head) if sock is not None
                  else QueueOutlet(*head))
        outlet.awaiting_rematch = finished and bool(args.get("rematch"))
        with self._lock:
            self._games.setdefault(watch.game_id, []).append(outlet)
            self._presence_due.add(watch.game_id)  # it may have changed since that message
            self._tick = max(0.01, min(self._tick, keepalive))
            # A change announced between the stream's first read and now reached its watch only.
            if watch.latest > version:
                self._due[watch.game_id] = max(self._due.get(watch.game_id, 0), watch.latest)
        self._wake()
        return outlet

    def remove(self, outlet: Outlet) -> None:
        """The client left (its response was closed): forget the outlet at the next round."""
        outlet.gone = True
        self._wake()

    def _announced(self, game_id: UUID, version: int) -> None:
        with self._lock:
            if game_id not in self._games:
                return
            self._due[game_id] = max(self._due.get(game_id, 0), version)
        self._wake()

    def _presence_changed(self, game_id: UUID) -> None:
        with self._lock:
            if game_id not in self._games:
                return
            self._presence_due.add(game_id)
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # full of wakes already: it is awake
            self._wake_w.send(b"\0")

    # -- the writer thread ------------------------------------------------------------------

    def _run(self) -> None:
        ticked = time.monotonic()
        while not self._store.live.closed and not self._closing.is_set():
            try:
                for key, _ in self._selector.select(self._tick):
                    if key.data is None:
                        self._drain_wakes()
                    else:
                        self._flush(key.data)
                with self._lock:
                    due, self._due = self._due, {}
                    presence, self._presence_due = self._presence_due, set()
                for game_id, version in due.items():
                    self._write_game(game_id, version)
                for game_id in presence:
                    self._write_presence(game_id)
                now = time.monotonic()
                if now - ticked >= self._tick:
                    ticked = now
                    self._look_over(now)
            except Exception:  # one bad stream must not end every stream of the worker
                log.exception("stream writer: a round failed")
        for outlet in self._outlets():  # the Application closed: its streams end
            self._finish(outlet)

    def _drain_wakes(self) -> None:
        while True:
            try:
                if not self._wake_r.recv(4096):
                    return
            except BlockingIOError:
                return

    def _outlets(self, game_id: UUID | None = None) -> list[Outlet]:
        with self._lock:
            if game_id is not None:
                return list(self._games.get(game_id, ()))
            return [o for group in self._games.values() for o in group]

    def _write_game(self, game_id: UUID, version: int) -> None:
        outlets = [o for o in self._outlets(game_id) if not o.ending]
        if not outlets:
            return
        try:
            game = self._store.delivery.current(game_id, version)
        except Exception:  # the store failed: end these streams; their clients reconnect
            log.exception("stream writer: reading game %s failed", game_id)
            for outlet in outlets:
                self._end(outlet)
            return
        now = time.monotonic()
        parts: dict = {}  # what the messages of this version share (Delivery.update_of)
        for outlet in outlets:
            outlet.synced = now
            if game.version > outlet.version:
                # Far behind (a resync after lost announcements): in pages, as a catch-up.
                for after, upto in catch_up(outlet.version, game.version):
                    if outlet.ending:
                        break
                    self._send(outlet, self._shared.get(self._store, game, outlet.args, after,
                                                        upto, parts))
                outlet.version = game.version
            if game.finished and outlet.args.get("rematch"):
                outlet.awaiting_rematch = True  # its last message will name the rematch
            elif game.finished:  # the message that finishes or aborts the game is the last
                self._end(outlet)

    def _write_presence(self, game_id: UUID) -> None:
        """Tell the streams of a game who has it open now, where that changed."""
        outlets = [o for o in self._outlets(game_id) if not o.ending]
        if not outlets:
            return
        game = self._store.delivery.current(game_id)
        present = tuple(self._store.presence.present(game.id, game.players))
        for outlet in outlets:
            if outlet.present != present:
                outlet.present = present
                self._send(outlet, presence_message(list(present)))

    def _look_for_rematches(self, now: float) -> None:
        """Send each stream waiting for its game's rematch the rematch, once it is made."""
        waiting: dict[UUID, list[Outlet]] = {}
        for outlet in self._outlets():
            if outlet.awaiting_rematch and not outlet.ending:
                waiting.setdefault(outlet.game_id, []).append(outlet)
        for game_id, outlets in waiting.items():
            rematch = self._store.reads.rematch_of(game_id)
            if rematch is None:
                continue
            for outlet in outlets:
                self._send(outlet, rematch_message(rematch))
                self._end(outlet)

    def _look_over(self, now: float) -> None:
        """Keepalives, resyncs, rematches, and the streams whose client left or whose worker
        stops."""
        if now - self._rematch_looked >= REMATCH_LOOK_SECONDS:
            self._rematch_looked = now
            self._look_for_rematches(now)
        stopping = self._store.live.stopping
        resync: set[UUID] = set()
        for outlet in self._outlets():
            if outlet.gone:
                self._finish(outlet)
            elif outlet.ending:
                continue
            elif stopping:  # the worker stops: clients reconnect to another (Last-Event-ID)
                self._end(outlet)
            elif now - outlet.last_write >= outlet.keepalive:
                # Writing is also how a stream learns that its client has gone.
                self._send(outlet, KEEPALIVE)
                if now - outlet.synced >= self._resync:
                    resync.add(outlet.game_id)
        for game_id in resync:
            self._write_game(game_id, 0)  # 0: read the store, whatever was announced

    def _send(self, outlet: Outlet, data: bytes) -> None:
        """Queue one message and pass on what the client takes now."""
        outlet.last_write = time.monotonic()
        try:
            left = outlet.write(data)
        except OSError:
            self._finish(outlet, gone=True)
            return
        if len(outlet.pending) > self._max_pending:
            log.warning("stream %s cut off: its client fell %d bytes behind", outlet.path,
                        len(outlet.pending))
            self._finish(outlet, gone=True)
        elif left and not outlet.selected:
            self._select(outlet, True)

    def _select(self, outlet: Outlet, selected: bool) -> None:
        """Watch a socket outlet for room to write, or stop watching it."""
        sock = outlet.sock  # type: ignore[attr-defined]  # only a SocketOutlet has bytes left
        if selected:
            self._selector.register(sock, selectors.EVENT_WRITE, outlet)
        else:
            self._selector.unregister(sock)
        outlet.selected = selected

    def _flush(self, outlet: Outlet) -> None:
        try:
            left = outlet.flush()
        except OSError:
            self._finish(outlet, gone=True)
            return
        if not left:
            self._select(outlet, False)
            if outlet.ending:
                self._finish(outlet)

    def _end(self, outlet: Outlet) -> None:
        """No more messages for this stream; it ends once its pending bytes are sent."""
        outlet.ending = True
        if not outlet.pending or isinstance(outlet, QueueOutlet):
            self._finish(outlet)

    def _finish(self, outlet: Outlet, gone: bool = False) -> None:
        if outlet.done.is_set():
            return
        outlet.ending, outlet.gone = True, outlet.gone or gone
        if outlet.selected:
            self._select(outlet, False)
        if outlet.gone:
            outlet.pending.clear()  # never sent: a cut-off client reconnects (Last-Event-ID)
        with self._lock:
            group = self._games.get(outlet.game_id)
            if group is not None and outlet in group:
                group.remove(outlet)
                if not group:
                    del self._games[outlet.game_id]
        outlet.finished()
