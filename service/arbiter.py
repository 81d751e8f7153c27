"""The arbiter's desk: annotations (notes and rulings, chained beside a game's own events) and
the links from a game to its forks.

A game's events never change, so what an arbiter adds is kept in an aggregate of its own (like
the token hashes and the bot seats), created with the first annotation. Each annotation names
the step it is about (`version`, 0 for the setup) and the hash of that step's event, and is
linked into a chain of its own: `hash` = SHA-256 of `prev_hash` + the canonical JSON of the
annotation without `hash`, the first `prev_hash` being the game's seed commitment. The export
carries them, signed with the rest of the document, and verification checks every link.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.core import BadCommand, record_hash

KINDS = ("note", "ruling")
MAX_TEXT = 4000  # characters of one annotation
MAX_ANNOTATIONS = 1000  # per game: an arbiter's desk, not a chat
AUTHOR = "host"  # only the host (the arbiter) annotates


class Annotations(Aggregate):
    """Every annotation of one game, in the order they were made, and the chain's last link."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:annotations:{game_id}")

    @event("Opened")
    def __init__(self, game_id: UUID, seed_commitment: str) -> None:
        self.game_id = game_id
        self.records: list[dict[str, Any]] = []
        self.head = seed_commitment

    def annotate(self, version: int, event_hash: str, text: Any, kind: Any = "note") -> dict:
        """Add one annotation about the step `version` (whose event hash is `event_hash`)."""
        text, kind = check_text(text), "note" if kind is None else kind
        if kind not in KINDS:
            raise BadCommand(f"kind is one of {', '.join(KINDS)}, not {kind!r}")
        if len(self.records) >= MAX_ANNOTATIONS:
            raise BadCommand(f"a game takes at most {MAX_ANNOTATIONS} annotations")
        record = {"id": secrets.token_hex(8), "version": version, "kind": kind, "text": text,
                  "author": AUTHOR, "timestamp": datetime.now(UTC).isoformat(),
                  "event_hash": event_hash, "prev_hash": self.head}
        record["hash"] = record_hash(self.head, record)
        self._annotated(record=record)
        return dict(record)

    @classmethod
    def restored(cls, game_id: UUID, seed_commitment: str, records: list[dict[str, Any]]
                 ) -> Annotations | None:
        """The annotations of an imported document, as verified (None when it has none)."""
        if not records:
            return None
        desk = cls(game_id=game_id, seed_commitment=seed_commitment)
        for record in records:
            desk._annotated(record=dict(record))
        return desk

    @event("Annotated")
    def _annotated(self, record: dict[str, Any]) -> None:
        self.records.append(dict(record))
        self.head = record["hash"]


def check_text(text: Any) -> str:
    """An annotation's text: non-empty, bounded, printable."""
    if not isinstance(text, str) or not text.strip():
        raise BadCommand("an annotation needs a text")
    if len(text) > MAX_TEXT:
        raise BadCommand(f"an annotation has at most {MAX_TEXT} characters")
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise BadCommand("an annotation's text has no control characters but new lines and tabs")
    return text


def shown(record: dict[str, Any]) -> dict[str, Any]:
    """An annotation as the API answers it (the chain links are the export's)."""
    return {k: record[k] for k in ("id", "version", "kind", "text", "author", "timestamp")}


class Forks(Aggregate):
    """The games forked from one game: the parent's side of the link (the fork's own creation
    records its parent), since the parent's events never change."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:forks:{game_id}")

    @event("Opened")
    def __init__(self, game_id: UUID) -> None:
        self.game_id = game_id
        self.forks: list[dict[str, Any]] = []

    def add(self, fork_id: UUID, at: int) -> None:
        """Link a new fork, made from the state after event `at`."""
        self._linked(fork={"game_id": str(fork_id), "at": at})

    @event("Linked")
    def _linked(self, fork: dict[str, Any]) -> None:
        self.forks.append(dict(fork))
