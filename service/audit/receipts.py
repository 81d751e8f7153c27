"""Receipts: the server's signed word on what a command stored (docs/api.md, "Receipts").

A receipt is `{"game_id", "version", "hash", "key_id", "signature"}`: `version` and `hash` are
those of the last event the command stored, `signature` the server's Ed25519 signature (base64,
as a replay document's) over the canonical JSON of the receipt without `signature`. A player who
keeps theirs holds the server to that history: a document that disagrees with it, signed by the
same server, proves that the server signed two histories (`gruft verify --receipt`).

Ed25519 signatures are deterministic, so a receipt of one game's version is the same whoever
asks: a worker signs each once (the command's answer), and a seat's stream takes it from here.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Lock
from typing import Any
from uuid import UUID

from eventsourcing.application import LRUCache

from domain.core import Game, canonical
from service.caches import RECEIPTS

FIELDS = ("game_id", "version", "hash", "key_id", "signature")


def signed_part(receipt: dict[str, Any]) -> bytes:
    """What a receipt's signature covers: its canonical JSON without `signature`."""
    return canonical({k: v for k, v in receipt.items() if k != "signature"}).encode("utf-8")


class Receipts:
    """A worker's receipts, signed with the server's current key."""

    def __init__(self, sign: Callable[[bytes], str], key_id: str) -> None:
        self._sign = sign
        self._key_id = key_id
        self._signed: LRUCache[tuple[UUID, int], dict[str, Any]] = LRUCache(RECEIPTS.entries)
        self._lock = Lock()

    def issue(self, game_id: UUID, version: int, hash_: str) -> dict[str, Any]:
        """The receipt of a game's event `version` (whose chain hash is `hash_`)."""
        try:
            return dict(self._signed.get((game_id, version)))
        except KeyError:
            pass
        receipt: dict[str, Any] = {"game_id": str(game_id), "version": version, "hash": hash_,
                                   "key_id": self._key_id}
        receipt["signature"] = self._sign(signed_part(receipt))
        with self._lock:
            self._signed.put((game_id, version), receipt)
        return dict(receipt)

    def of_seat(self, game: Game, seat: str) -> dict[str, Any] | None:
        """The receipt of `seat`'s last accepted move in `game` (None before its first)."""
        last = game.receipted(seat)
        return None if last is None else self.issue(game.id, *last)
