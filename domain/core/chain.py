"""Canonical JSON and the event hash chain of the replay document (API.md, "The replay document").

``hash`` = SHA-256 hex of ``prev_hash`` + the canonical JSON of the event without ``hash``; the
first ``prev_hash`` is the seed commitment. Pure functions: the aggregate uses them when it
triggers an event (so the chain is fixed when the event is stored), the verifier when it checks.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

# Attributes every stored event has that are bookkeeping, not the event's `data`.
META_FIELDS = frozenset(
    {"originator_id", "originator_version", "originator_topic", "timestamp", "prev_hash", "hash"}
)


# One prepared encoder: json.dumps would build a new one for every event and every move.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> str:
    """The canonical JSON text: sorted keys, no spaces, UTF-8 characters kept."""
    return _CANONICAL.encode(value)


def timestamp_text(timestamp: datetime | str) -> str:
    """An event timestamp as it appears in documents (ISO 8601 with offset)."""
    return timestamp if isinstance(timestamp, str) else timestamp.isoformat()


def event_hash(prev_hash: str, version: int, type_: str, timestamp: str, data: dict) -> str:
    """The chain link of one event."""
    body = {"version": version, "type": type_, "timestamp": timestamp, "data": data,
            "prev_hash": prev_hash}
    return hashlib.sha256((prev_hash + canonical(body)).encode("utf-8")).hexdigest()


def event_data(event: Any) -> dict:
    """The domain payload of a stored event: its attributes without the bookkeeping."""
    return {k: v for k, v in event.__dict__.items() if k not in META_FIELDS}


def event_record(event: Any) -> dict:
    """One event as the log and the replay document show it (unredacted)."""
    return {
        "version": event.originator_version,
        "type": type(event).__name__,
        "timestamp": timestamp_text(event.timestamp),
        "data": event_data(event),
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }
