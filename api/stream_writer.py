"""One writer thread per worker for the live streams of a served worker.

A stream's own thread (api/live.py) writes the stream's first message through gunicorn, then
hands its socket to this writer and sleeps until the stream ends: every later message of every
stream of the worker is written here, HTTP/1.1 chunk frames sent on the socket, so a command
wakes one thread per worker instead of one per stream (measured: the wake, the GIL hand-offs and
the write through werkzeug and gunicorn were most of a message's cost, docs/performance.md).
Each message is built once per game, version and viewer (api.live.SharedMessages).

Sends never block (MSG_DONTWAIT): what a socket does not take waits in its stream's buffer and
goes out when the socket is writable, so a slow client never stalls the others; a client that
falls behind by more than MAX_PENDING bytes is cut off (it reconnects with Last-Event-ID).
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from typing import Any
from uuid import UUID

import orjson

from service import Games
from service.live import Watch

log = logging.getLogger("gruft.api")

MAX_PENDING = 1 << 20  # bytes a stream may fall behind before its client is cut off
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


TICK_SECONDS = 0.5  # how often keepalives, resyncs and a stopping worker are looked at
# An idle stream (here or in api.live) also reads the store this often, whatever it was told: a
# lost announcement could only ever delay a message (the live feed loses none that we know of).
RESYNC_SECONDS = 60.0


class Outlet:
    """A stream handed to the writer: its socket, who watches, the version it has, and the
    bytes its socket has not taken yet. `done` is set once the writer is finished with it."""

    def __init__(self, sock: socket.socket, game_id: UUID, args: dict[str, Any], version: int,
                 keepalive: float, path: str, present: tuple[str, ...] = ()) -> None:
        self.sock, self.game_id, self.args, self.version = sock, game_id, args, version
        self.present = present  # the present seats its client last heard of
        self.keepalive, self.path = keepalive, path
        self.pending = bytearray()
        self.last_write = self.synced = time.monotonic()
        self.ending = False  # no more messages: done once the pending bytes are sent
        self.awaiting_rematch = False  # the game is over: waits for its rematch (?rematch=true)
        self.gone = False  # the client went away (or fell too far behind)
        self.done = threading.Event()


def usable(environ: dict[str, Any]) -> socket.socket | None:
    """The client's plain socket when the writer can take the stream over (gunicorn, HTTP/1.1
    chunked GET); None otherwise (the stream's thread then writes every message itself)."""
    sock = environ.get("gunicorn.socket")
    if (type(sock) is not socket.socket or environ.get("REQUEST_METHOD") != "GET"
            or environ.get("SERVER_PROTOCOL") != "HTTP/1.1"):
        return None
    return sock


class StreamWriter:
    """The writer thread of one Application's streams."""

    def __init__(self, store: Games, shared: Any) -> None:
        self._store, self._shared = store, shared
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
        self._thread = threading.Thread(target=self._run, daemon=True, name="gruft-streams")
        self._thread.start()

    # -- from other threads -----------------------------------------------------------------

    def add(self, sock: socket.socket, watch: Watch, args: dict[str, Any], version: int,
            keepalive: float, path: str, present: tuple[str, ...] = (),
            finished: bool = False) -> Outlet:
        """Take a stream over after its first message (of `version`, telling of `present`)
        was written."""
        outlet = Outlet(sock, watch.game_id, args, version, keepalive, path, present)
        outlet.awaiting_rematch = finished and bool(args.get("rematch"))
        with self._lock:
            self._games.setdefault(watch.game_id, []).append(outlet)
            self._presence_due.add(watch.game_id)  # it may have changed since that message
            # A change announced between the stream's first read and now reached its watch only.
            if watch.latest > version:
                self._due[watch.game_id] = max(self._due.get(watch.game_id, 0), watch.latest)
        self._wake()
        return outlet

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
        while True:
            try:
                for key, _ in self._selector.select(TICK_SECONDS):
                    if key.data is None:
                        while True:
                            try:
                                if not self._wake_r.recv(4096):
                                    break
                            except BlockingIOError:
                                break
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
                if now - ticked >= TICK_SECONDS:
                    ticked = now
                    self._tick(now)
            except Exception:  # one bad stream must not end every stream of the worker
                log.exception("stream writer: a round failed")

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
                text = self._shared.get(self._store, game, outlet.args, outlet.version, parts)
                outlet.version = game.version
                self._send(outlet, text)
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

    def _tick(self, now: float) -> None:
        if now - self._rematch_looked >= REMATCH_LOOK_SECONDS:
            self._rematch_looked = now
            self._look_for_rematches(now)
        stopping = self._store.live.stopping
        resync: set[UUID] = set()
        for outlet in self._outlets():
            if outlet.ending:
                continue
            if stopping:  # the worker stops: clients reconnect to another (Last-Event-ID)
                self._end(outlet)
            elif now - outlet.last_write >= outlet.keepalive:
                # Writing is also how a stream learns that its client has gone.
                self._send(outlet, KEEPALIVE)
                if now - outlet.synced >= RESYNC_SECONDS:
                    resync.add(outlet.game_id)
        for game_id in resync:
            self._write_game(game_id, 0)  # 0: read the store, whatever was announced

    def _send(self, outlet: Outlet, data: bytes) -> None:
        """Queue one chunk frame and send what the socket takes now."""
        outlet.last_write = time.monotonic()
        frame = b"%X\r\n%b\r\n" % (len(data), data)
        if outlet.pending:
            outlet.pending += frame
            if len(outlet.pending) > MAX_PENDING:
                log.warning("stream %s cut off: its client fell %d bytes behind", outlet.path,
                            len(outlet.pending))
                self._finish(outlet, gone=True)
            return
        try:
            sent = outlet.sock.send(frame, socket.MSG_DONTWAIT)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._finish(outlet, gone=True)
            return
        if sent < len(frame):
            outlet.pending += frame[sent:]
            self._selector.register(outlet.sock, selectors.EVENT_WRITE, outlet)

    def _flush(self, outlet: Outlet) -> None:
        try:
            sent = outlet.sock.send(outlet.pending, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            self._finish(outlet, gone=True)
            return
        del outlet.pending[:sent]
        if not outlet.pending:
            self._selector.unregister(outlet.sock)
            if outlet.ending:
                self._finish(outlet)

    def _end(self, outlet: Outlet) -> None:
        """No more messages for this stream; it ends once its pending bytes are sent."""
        outlet.ending = True
        if not outlet.pending:
            self._finish(outlet)

    def _finish(self, outlet: Outlet, gone: bool = False) -> None:
        if outlet.done.is_set():
            return
        outlet.ending, outlet.gone = True, outlet.gone or gone
        if outlet.pending:
            self._selector.unregister(outlet.sock)
            outlet.pending.clear()
        if outlet.gone:
            # No last chunk after a frame cut short: gunicorn finds the socket shut and closes it.
            with contextlib.suppress(OSError):
                outlet.sock.shutdown(socket.SHUT_RDWR)
        with self._lock:
            group = self._games.get(outlet.game_id)
            if group is not None and outlet in group:
                group.remove(outlet)
                if not group:
                    del self._games[outlet.game_id]
        outlet.done.set()  # the stream's thread returns: gunicorn ends the response

