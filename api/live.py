"""Live play over HTTP: the Server-Sent Events stream of a game, and the host's abort.

A stream's messages are built by the service (service/delivery.py: `current`, `update_of`),
through the same redaction as the event log and the same views as `/view`, so a stream never shows a
viewer more than those do. Each stream holds one thread of its gthread worker (api/cli.py). Under
gunicorn that thread writes the first message and then sleeps while the worker's one writer
thread (api/stream_writer.py) writes the rest of every stream; elsewhere (the test client, a
plain WSGI server) it waits on its game's watch (service/live.py) and writes them itself.
The streams of a game that wake together share the game, its newest events and, per viewer,
the message text. Browsers cannot set headers on an EventSource, so the stream takes `?token=` too; the
request log writes only the path (api/request_log.py), never the query string.
"""

from __future__ import annotations

import json
import logging
import signal
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import orjson
from flask import Flask, Response, request
from flask.views import MethodView

from api import gcpause, schemas
from api.auth import request_token
from api.errors import GruftBlueprint
from api.games import documented, games, viewer
from api.holds import HOLDS as SLOTS
from api.holds import STREAM, client_address, holds_max, per_address
from api.settings import settings
from api.stream_writer import (
    KEEPALIVE,
    REMATCH_LOOK_SECONDS,
    RESYNC_SECONDS,
    StreamWriter,
    presence_message,
    rematch_message,
    usable,
)
from domain.core import Game
from service import Games
from service.live import Watch
from service.readmodels.lifecycle import PerApplication
from service.repository import parse_game_id

blp = GruftBlueprint("live", __name__, description="Live play: the event stream and the abort")
log = logging.getLogger("gruft.api")

PRESENCE_LOOK_SECONDS = 1.0  # a stream written by its own thread looks at presence this often
SHARED_MESSAGES = 4096  # messages a worker keeps for other streams of the same game and viewer
STREAM_HEADERS = {
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # a buffering proxy in front (nginx) passes each message on
    "Referrer-Policy": "no-referrer",
}
SSE_DOC = {"description": "Server-Sent Events: messages `id: <version>`, `event: update`, "
           "`data: {\"events\": [...], \"view\": {...}}`; `: keepalive` comments, each with an "
           "`event: ping` (`data: {}`)",
           "content": {"text/event-stream": {"schema": {"type": "string"}}}}


def init_app(app: Flask) -> None:
    """In a served worker, end the streams as soon as the worker is told to stop.

    gunicorn lets a stopping worker finish its requests for up to its graceful timeout (30 s),
    and a stream would run all that time: its client is better off reconnecting at once, with
    its Last-Event-ID, to a worker that stays. The worker's own signal handlers still run.
    """
    if app.testing or threading.current_thread() is not threading.main_thread():
        return
    store: Games = app.extensions["gruft"]
    pause_collections(app)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        previous = signal.getsignal(signum)
        if not callable(previous):
            continue  # the default action or ignored: not a server that stops gracefully

        def stop(sig: int, frame: Any, previous: Any = previous) -> None:
            store.live.stop_watches()
            previous(sig, frame)

        signal.signal(signum, stop)


def pause_collections(app: Flask) -> bool:
    """Shorten a served worker's full collections (api/gcpause.py) unless GRUFT_GC_FREEZE=0."""
    if settings(app).gc_freeze:
        gcpause.install(settings(app).gc_unfreeze)
    return settings(app).gc_freeze


def keepalive_seconds() -> float:
    """How often an idle stream gets a comment line (GRUFT_STREAM_KEEPALIVE; tests shorten it)."""
    return settings().stream_keepalive


def message(version: int, events: list[dict[str, Any]], view: dict[str, Any],
            legal_moves: list[dict[str, Any]] | None = None,
            receipt: dict[str, Any] | None = None) -> bytes:
    """One SSE message: the version as its id, the events and the view as one line of JSON
    (and, to a seat, that seat's `legal_moves`: a stream client needs one call per move; and
    the receipt of that seat's last accepted move, docs/api.md "Receipts").

    Encoded by orjson: a change is encoded once per viewer in every worker that streams its
    game, and orjson takes a fraction of json's time on it (docs/performance.md). A number orjson cannot hold (a numeric seed wider than 64 bits, shown
    once the game is over) falls back to json. Neither writes a raw line break inside the JSON.
    """
    body: dict[str, Any] = {"events": events, "view": view}
    if legal_moves is not None:
        body["legal_moves"] = legal_moves
    if receipt is not None:
        body["receipt"] = receipt
    try:
        data = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return b"id: %d\nevent: update\ndata: %b\n\n" % (version, data)


class SharedMessages:
    """Messages already written by this worker, for other streams that need the very same.

    A message depends only on the game, its version, the resume point and who is watching
    (the token's seat or host, the seat a host names): every spectator of a game, or a player
    on two devices, gets one text built once. Bounded; safe across threads.
    """

    def __init__(self, size: int = SHARED_MESSAGES) -> None:
        self._size = size
        self._texts: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, store: Games, game: Game, args: dict[str, Any], after: int | None,
            parts: dict[Any, Any] | None = None) -> bytes:
        """The message; `parts` as Delivery.update_of takes them (for one version of `game`)."""
        viewer = args["viewer"]
        # Who is present and the clocks change without a new version: part of the key (the
        # clocks to the second), so no message shows an older table than it says.
        key = (game.id, game.version, after, viewer.host, viewer.player, args["player"],
               tuple(store.presence.present(game.id, game.players)),
               int(time.monotonic()) if game.clock is not None else None,
               store.reads.rematch_of(game.id) if game.finished else None)
        with self._lock:
            text = self._texts.get(key)
            if text is not None:
                self._texts.move_to_end(key)
                return text
        events, view = store.delivery.update_of(game, viewer, after, args["player"], parts)
        seat = view.get("you")
        receipts = store.receipts if seat is not None else None
        text = message(game.version, events, view,
                       game.legal_moves(seat) if seat is not None else None,
                       receipts.of_seat(game, seat) if receipts is not None else None)
        with self._lock:
            self._texts[key] = text
            while len(self._texts) > self._size:
                self._texts.popitem(last=False)
        return text


# One of each per worker's Application, made on first use.
shared_messages: PerApplication[SharedMessages] = PerApplication(lambda store: SharedMessages())
stream_writer: PerApplication[StreamWriter] = PerApplication(
    lambda store: StreamWriter(store, shared_messages(store)))


def stream_writer_socket(environ: dict[str, Any]) -> socket.socket | None:
    """The socket the writer takes over, unless GRUFT_STREAM_WRITER=0 or it cannot."""
    return usable(environ) if settings().stream_writer else None


def streams_max() -> int | None:
    """The most streams and long polls a worker holds (GRUFT_STREAMS_MAX); None: no cap."""
    return holds_max()


class EventStream:
    """The body of a stream response; closing it (the client left) ends the watch at once."""

    def __init__(self, store: Games, watch: Watch, first: tuple[Game, bytes],
                 args: dict[str, Any], keepalive: float, path: str,
                 sock: socket.socket | None = None, address: str = "",
                 leave: Any = None) -> None:
        self._watch = watch
        self._leave = leave  # presence: this stream's seat leaves the table when it ends
        self._held = address  # one of SLOTS, given back once
        self._sock = sock  # the client's socket, when the worker's writer may take it over
        self._messages = self._run(store, first, args, keepalive, path)

    def __iter__(self) -> Iterator[bytes]:
        return self._messages

    def close(self) -> None:
        self._messages.close()
        self._end()

    def _end(self) -> None:
        self._watch.close()
        leave, self._leave = self._leave, None
        if leave is not None:
            leave()
        if self._held is not None:
            SLOTS.give(STREAM, self._held)
            self._held = None

    def _run(self, store: Games, first: tuple[Game, bytes], args: dict[str, Any],
             keepalive: float, path: str) -> Iterator[bytes]:
        game, text = first
        shared = shared_messages(store)
        present = tuple(store.presence.present(game.id, game.players))
        try:
            yield text
            if self._sock is not None and (not game.finished or args.get("rematch")):
                # gunicorn wrote the first message; the worker's writer writes the rest, and
                # this thread sleeps until the stream ends (api/stream_writer.py).
                outlet = stream_writer(store).add(self._sock, self._watch, args, game.version,
                                                  keepalive, path, present, game.finished)
                outlet.done.wait()
                return
            version, synced = game.version, time.monotonic()
            wrote = synced
            while not game.finished:  # the message that finishes or aborts the game is the last
                woken = self._watch.wait(version, min(keepalive, PRESENCE_LOOK_SECONDS))
                if self._watch.stopping:
                    return  # the worker stops: the client reconnects to another (Last-Event-ID)
                now_present = tuple(store.presence.present(game.id, game.players))
                if now_present != present:
                    present, wrote = now_present, time.monotonic()
                    yield presence_message(list(present))
                if not woken:
                    if time.monotonic() - wrote < keepalive:
                        continue
                    # Writing is also how a stream learns that its client has gone.
                    wrote = time.monotonic()
                    yield KEEPALIVE
                    if time.monotonic() - synced < RESYNC_SECONDS:
                        continue
                # The game at the version announced, read once for all the streams of this
                # worker (Delivery.current), and the message built once per viewer.
                game = store.delivery.current(args["game_id"], self._watch.latest)
                synced = time.monotonic()
                if game.version > version:
                    wrote = time.monotonic()
                    yield shared.get(store, game, args, version)
                    version = game.version
            if args.get("rematch"):  # the game is over: its last message names the rematch
                yield from self._await_rematch(store, game.id, keepalive)
        except Exception:  # the store failed mid-stream: end it; the client reconnects
            # The path only: a query string may carry a token.
            log.exception("stream %s ended by an error", path)
        finally:
            self._end()


    def _await_rematch(self, store: Games, game_id: Any, keepalive: float) -> Iterator[bytes]:
        """Keep the stream open until the game's rematch is made, then name it (?rematch=)."""
        wrote = time.monotonic()
        while not self._watch.stopping:
            rematch = store.reads.rematch_of(game_id)
            if rematch is not None:
                yield rematch_message(rematch)
                return
            self._watch.wait(1 << 62, REMATCH_LOOK_SECONDS)  # nothing wakes it: a pause
            if time.monotonic() - wrote >= keepalive:
                wrote = time.monotonic()
                yield KEEPALIVE


@blp.route("/games/<game_id>/stream")
class Stream(MethodView):
    @blp.arguments(schemas.StreamQuery(), location="query")
    @blp.arguments(schemas.StreamHeaders(), location="headers")
    @blp.doc(responses={200: SSE_DOC})
    @documented(400, 401, 403, 404, 429, 503)
    def get(self, query, headers, game_id):
        """Server-Sent Events: every change of the game as this viewer may see it, live."""
        store = games()
        who = store.access.authenticate(game_id, request_token())
        # Where a reconnecting client resumes: Last-Event-ID (the browser's own), else ?after=.
        after = headers.get("last_event_id", query.get("after"))
        args = {"game_id": parse_game_id(game_id), "viewer": who, "player": query.get("player"),
                "rematch": query["rematch"]}
        address = client_address()  # 429 past its share, 503 past the worker's (api/holds.py)
        SLOTS.take(STREAM, address, streams_max(), per_address(STREAM))
        watch = store.live.watch(args["game_id"])
        # The seat this stream is for is present while it is open (the host naming a seat to
        # view is not that seat's player; a spectator is no seat).
        leave = store.presence.open(args["game_id"], who.player)
        try:  # registered first, then read: a change stored after this read reaches the stream
            game = store.delivery.current(args["game_id"])
            first = (game, shared_messages(store).get(store, game, args, after))
        except BaseException:
            watch.close()
            leave()
            SLOTS.give(STREAM, address)
            raise
        body = EventStream(store, watch, first, args, keepalive_seconds(), request.path,
                           stream_writer_socket(request.environ), address, leave)
        return Response(body, status=200, mimetype="text/event-stream", headers=STREAM_HEADERS)


@blp.route("/games/<game_id>/abort")
class Abort(MethodView):
    @blp.arguments(schemas.AbortBody())
    @blp.response(200, schemas.View)
    @documented(400, 401, 403, 404, 409, 503)
    def post(self, body, game_id):
        """The host aborts a game in progress: status aborted, no winners, nothing further
        accepted (409), left out of the statistics."""
        return games().abort(game_id, viewer(game_id), body["reason"])
