"""Live play over HTTP: the Server-Sent Events stream of a game, and the host's abort.

A stream's messages are built by the service (service/live/delivery.py: `current`, `update_of`),
through the same redaction as the event log and the same views as `/view`, so a stream never shows a
viewer more than those do. Each stream holds one thread of its gthread worker (serving/serve_cli.py). That
thread writes the stream's catch-up — the events after `?after=` or Last-Event-ID, in pages of
service.live.delivery.CATCH_UP_PAGE, then the view — and hands the stream to the worker's one writer
thread (service/live/stream_writer.py), which decides every later message, keepalive, resync and cut-off
of every stream, under gunicorn and under the test client alike; only how the bytes leave
differs (the socket itself, or this thread's response). The streams of a game that wake together
share the game, its newest events and, per viewer, the message text. Browsers cannot set
headers on an EventSource, so the stream takes `?token=` too; the request log writes only the
path (api/request_log.py), never the query string.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, request
from flask.views import MethodView

from api import schemas
from api.auth import request_token
from api.errors import GruftBlueprint
from api.games import documented, games, viewer
from api.holds import HOLDS as SLOTS
from api.holds import STREAM, client_address, holds_max, per_address
from api.settings import settings
from api.worker import worker
from domain.core import Game
from service import Games
from service.live.delivery import catch_up
from service.live.stream_writer import Outlet, QueueOutlet, usable
from service.live.watches import Watch
from service.store.repository import parse_game_id

blp = GruftBlueprint("live", __name__, description="Live play: the event stream and the abort")
log = logging.getLogger("gruft.api")

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
    store = worker(app).games
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        previous = signal.getsignal(signum)
        if not callable(previous):
            continue  # the default action or ignored: not a server that stops gracefully

        def stop(sig: int, frame: Any, previous: Any = previous) -> None:
            store.live.stop_watches()
            previous(sig, frame)

        signal.signal(signum, stop)


def keepalive_seconds() -> float:
    """How often an idle stream gets a comment line (GRUFT_STREAM_KEEPALIVE; tests shorten it)."""
    return settings().stream_keepalive


def stream_writer_socket(environ: dict[str, Any]) -> socket.socket | None:
    """The socket the writer takes over, unless GRUFT_STREAM_WRITER=0 or it cannot."""
    return usable(environ) if settings().stream_writer else None


def streams_max() -> int | None:
    """The most streams and long polls a worker holds (GRUFT_STREAMS_MAX); None: no cap."""
    return holds_max()


class EventStream:
    """The body of a stream response: its catch-up, then what the worker's writer sends on;
    closing it (the client left) ends the watch at once."""

    def __init__(self, store: Games, watch: Watch, game: Game, first: bytes,
                 pages: list[tuple[int | None, int]], args: dict[str, Any], keepalive: float,
                 path: str, sock: socket.socket | None = None, address: str = "",
                 leave: Any = None, present: tuple[str, ...] = ()) -> None:
        self._store, self._watch = store, watch
        self._leave = leave  # presence: this stream's seat leaves the table when it ends
        self._present = present  # who was present before the first message was built
        owner = worker()  # in the request: the body is written outside its app context
        self._writer = owner.stream_writer()  # the worker's writer thread (made with its first)
        self._shared = owner.messages
        self._held = address  # one of SLOTS, given back once
        self._sock = sock  # the client's socket, when the writer may send on it itself
        self._outlet: Outlet | None = None
        self._messages = self._run(game, first, pages, args, keepalive, path)

    def __iter__(self) -> Iterator[bytes]:
        return self._messages

    def close(self) -> None:
        self._messages.close()
        self._end()

    def _end(self) -> None:
        outlet, self._outlet = self._outlet, None
        if outlet is not None and not outlet.done.is_set():
            self._writer.remove(outlet)
        leave, self._leave = self._leave, None
        if leave is not None:
            leave()
        self._watch.close()
        if self._held is not None:
            SLOTS.give(STREAM, self._held)
            self._held = None

    def _run(self, game: Game, first: bytes, pages: list[tuple[int | None, int]],
             args: dict[str, Any], keepalive: float, path: str) -> Iterator[bytes]:
        store = self._store
        try:
            yield first
            for after, upto in pages:  # the rest of the catch-up: one page's text at a time
                yield self._shared.get(store, game, args, after, upto)
            if game.finished and not args.get("rematch"):  # the game's last message ends it
                return
            # (?rematch=true: the writer keeps it open past the end and names the rematch)
            self._outlet = outlet = self._writer.add(self._watch, args, game.version, keepalive,
                                                     path, self._sock, self._present,
                                                     game.finished)
            if isinstance(outlet, QueueOutlet):
                yield from outlet.messages()
            else:  # the writer sends on the socket itself; gunicorn ends the response after
                outlet.done.wait()
        except Exception:  # the store failed mid-stream: end it; the client reconnects
            # The path only: a query string may carry a token.
            log.exception("stream %s ended by an error", path)
        finally:
            self._end()


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
            # Read before the first message is built: should it change meanwhile, the writer
            # finds it changed and tells the client.
            present = tuple(store.presence.present(game.id, game.players))
            pages = catch_up(after, game.version)
            first = worker().messages.get(store, game, args, *pages[0])
        except BaseException:
            watch.close()
            leave()
            SLOTS.give(STREAM, address)
            raise
        body = EventStream(store, watch, game, first, pages[1:], args, keepalive_seconds(),
                           request.path, stream_writer_socket(request.environ), address, leave,
                           present)
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
