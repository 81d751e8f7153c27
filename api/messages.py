"""The live streams' messages: one Server-Sent Events message per change, and the texts a
worker already wrote, shared by the streams that need the very same (api/live.py writes a
stream's first messages with them; the worker's stream writer, service/live/stream_writer.py,
every later one). A worker's `SharedMessages` is its owner's (api/worker.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import orjson

from domain.core import Game
from service import Games
from service.caches import STREAM_MESSAGES, BytesLRU


def message(version: int, events: list[dict[str, Any]], view: dict[str, Any] | None,
            legal_moves: list[dict[str, Any]] | None = None,
            receipt: dict[str, Any] | None = None) -> bytes:
    """One SSE message: the version as its id, the events and the view as one line of JSON
    (and, to a seat, that seat's `legal_moves`: a stream client needs one call per move; and
    the receipt of that seat's last accepted move, docs/api.md "Receipts"). A page of a
    catch-up has no view: its events, and the version of the last as its id.

    Encoded by orjson: a change is encoded once per viewer in every worker that streams its
    game, and orjson takes a fraction of json's time on it (docs/performance.md). A number
    orjson cannot hold (a numeric seed wider than 64 bits, shown
    once the game is over) falls back to json. Neither writes a raw line break inside the JSON.
    """
    body: dict[str, Any] = {"events": events}
    if view is not None:
        body["view"] = view
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

    A message depends only on the game, its version, the events it carries and who is watching
    (the token's seat or host, the seat a host names): every spectator of a game, or a player
    on two devices, gets one text built once. Bounded by bytes (service.caches.STREAM_MESSAGES);
    safe across threads.
    """

    def __init__(self) -> None:
        self._texts: BytesLRU[tuple, bytes] = BytesLRU(STREAM_MESSAGES, len)

    def get(self, store: Games, game: Game, args: dict[str, Any], after: int | None,
            upto: int | None = None, parts: dict[Any, Any] | None = None) -> bytes:
        """The message of the events after `after` up to `upto` (the game's version unless a
        catch-up page); `parts` as Delivery.update_of takes them (for one version of `game`)."""
        viewer = args["viewer"]
        upto = game.version if upto is None else upto
        # Who is present and the clocks change without a new version: part of the key (the
        # clocks to the second), so no message shows an older table than it says.
        key = (game.id, game.version, after, upto, viewer.host, viewer.player, args["player"],
               tuple(store.presence.present(game.id, game.players)),
               int(time.monotonic()) if game.clock is not None else None,
               store.reads.rematch_of(game.id) if game.finished else None)
        try:
            return self._texts.get(key)
        except KeyError:
            pass
        events, view = store.delivery.update_of(game, viewer, after, args["player"], parts, upto)
        seat = view.get("you") if view is not None else None
        receipts = store.receipts if seat is not None else None
        text = message(upto, events, view, game.legal_moves(seat) if seat is not None else None,
                       receipts.of_seat(game, seat) if receipts is not None else None)
        self._texts.put(key, text)
        return text
