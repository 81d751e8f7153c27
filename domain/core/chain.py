"""Canonical JSON and the event hash chain of the replay document (docs/api.md, "The replay document").

``hash`` = SHA-256 hex of ``prev_hash`` + the canonical JSON of the event without ``hash``; the
first ``prev_hash`` is the seed commitment. Pure functions: the aggregate uses them when it
triggers an event (so the chain is fixed when the event is stored), the verifier when it checks.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime
from hashlib import sha256
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

from domain.core.words import N_, Said

# An event read in a newer shape than it was stored in (upcast: docs/format.md, "Event shapes")
# keeps here what was stored, {"shape": n, "data": {...}}: its chain link covers that, and an
# export or a re-import carries it unchanged.
STORED_AS = "stored_as"

# An event's commitment nonce (replay format 3, docs/format.md "Commitment nonces"): 32 random
# bytes as 64 hex digits, drawn when an event that holds a secret is made, stored with it, covered
# by its chain link and kept secret like the seed, so that no public hash (a receipt, a fork's
# `parent.hash`) can be matched against guesses of the secret it covers. Events of formats 1 and 2
# have none, and then none in their links.
NONCE = "nonce"

def new_nonce() -> str:
    """A new secret nonce, drawn when an event that holds a secret is made in a game of format 3
    (a replay or an import takes the recorded one instead: domain.core.replay.Replay.nonce)."""
    return secrets.token_hex(32)


def is_nonce(value: Any) -> bool:
    """A nonce is 64 lowercase hex digits (32 bytes)."""
    return type(value) is str and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


# Attributes every stored event has that are bookkeeping, not the event's `data` (`by`: who
# stored it, docs/api.md "Who did what"; events stored before it have none).
META_FIELDS = frozenset(
    {"originator_id", "originator_version", "originator_topic", "timestamp", "prev_hash", "hash",
     "by", STORED_AS, NONCE}
)

# Who stored an event: a seat with its own token, the host for a seat, the server's bot, the
# server when a clock ran out, or the server as what follows from a move or a creation.
SEAT, HOST_BY, BOT, CLOCK, SERVER = "seat", "host", "bot", "clock", "server"
AUTHORS = (SEAT, HOST_BY, BOT, CLOCK, SERVER)


# One prepared encoder: json.dumps would build a new one for every event and every move. Its
# C scanner is prepared once as well (JSONEncoder.encode makes a new one per call); both give
# the same text, the C one only skips the circular-reference check (event data are trees).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_C_ENCODE = (
    c_make_encoder(None, _CANONICAL.default, encode_basestring, None, ":", ",", True, False, True)
    if c_make_encoder is not None else None
)


def _encode(value: Any) -> str:
    """`canonical` of an event's data (an object)."""
    return "".join(_C_ENCODE(value, 0)) if _C_ENCODE is not None else _CANONICAL.encode(value)


def canonical(value: Any) -> str:
    """The canonical JSON text: sorted keys, no spaces, UTF-8 characters kept."""
    if type(value) is str:
        return encode_basestring(value)
    if _C_ENCODE is None:
        return _CANONICAL.encode(value)
    return "".join(_C_ENCODE(value, 0))


def clone(value: Any) -> Any:
    """A deep copy of JSON-native data (a few times faster than copy.deepcopy): what a state
    or a view hands out must not share lists or dicts with the game."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def timestamp_text(timestamp: datetime | str) -> str:
    """An event timestamp as it appears in documents (ISO 8601 with offset)."""
    return timestamp if isinstance(timestamp, str) else timestamp.isoformat()


def event_hash(prev_hash: str, version: int, type_: str, timestamp: str, data: dict,
               by: str | None = None, shape: int = 1, nonce: str | None = None) -> str:
    """The chain link of one event.

    The canonical JSON of {version, type, timestamp, by, data, nonce, prev_hash, shape}, written
    out in its sorted key order rather than built as a dict and sorted again for every event. An
    event stored before `by` existed has none (None), an event in its type's first shape has no
    `shape`, and an event of format 1 or 2 (or one that holds no secret) has no `nonce`: their
    links are what they always were.
    """
    author = "" if by is None else f'"by":{canonical(by)},'
    form = "" if shape == 1 else f',"shape":{canonical(shape)}'
    salted = "" if nonce is None else f'"nonce":{canonical(nonce)},'
    body = (f'{{{author}"data":{canonical(data)},{salted}"prev_hash":{canonical(prev_hash)}{form},'
            f'"timestamp":{canonical(timestamp)},"type":{canonical(type_)},'
            f'"version":{canonical(version)}}}')
    return hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


def linked(prev_hash: str, version: int, type_: str, timestamp: str, data: dict, by: str,
           shape: int, nonce: str | None = None) -> str:
    """`event_hash` of an event the rules make (domain.core.fast_events): the same text, where
    every argument is known to be of its type (`prev_hash`, `type_`, `timestamp`, `by` and a
    `nonce` strings, `version` and `shape` whole numbers), so each is written without asking."""
    form = "" if shape == 1 else f',"shape":{shape}'
    salted = "" if nonce is None else f'"nonce":{encode_basestring(nonce)},'
    body = (f'{{"by":{encode_basestring(by)},"data":{_encode(data)},{salted}'
            f'"prev_hash":{encode_basestring(prev_hash)}{form},'
            f'"timestamp":{encode_basestring(timestamp)},"type":{encode_basestring(type_)},'
            f'"version":{version}}}')
    return sha256((prev_hash + body).encode("utf-8")).hexdigest()


def record_hash(prev_hash: str, record: dict[str, Any]) -> str:
    """The chain link of an annotation: SHA-256 hex of `prev_hash` + the canonical JSON of the
    record without its `hash` (docs/api.md, the replay document's `annotations`)."""
    body = canonical({k: v for k, v in record.items() if k != "hash"})
    return hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


def event_data(event: Any) -> dict:
    """The domain payload of an event in its type's current shape (what the rules apply): its
    attributes without the bookkeeping."""
    return {k: v for k, v in event.__dict__.items() if k not in META_FIELDS}


def stored_shape(event: Any) -> int:
    """The shape an event was stored in: its type's `class_version`, unless it was upcast."""
    stored = event.__dict__.get(STORED_AS)
    return stored["shape"] if stored is not None else getattr(type(event), "class_version", 1)


def stored_data(event: Any) -> dict:
    """An event's payload as it was stored (what its chain link covers)."""
    stored = event.__dict__.get(STORED_AS)
    return stored["data"] if stored is not None else event_data(event)


def keep_stored(state: dict[str, Any], shape: int) -> None:
    """Called first by every upcaster (`upcast_vN_vM(state)`): keep the payload as it was
    stored, in shape `shape`, before the upcasters change it (the oldest one keeps it)."""
    if STORED_AS not in state:
        state[STORED_AS] = {"shape": shape,
                            "data": {k: v for k, v in state.items() if k not in META_FIELDS}}


def event_record(event: Any) -> dict:
    """One event as the log and the replay document show it (unredacted), as it was stored: its
    payload in the shape it was stored in, `shape` when that is not the first, `by` where the
    event has one (events stored before it have none, and their records stay as they were),
    `nonce` where it has one (format 3)."""
    record = {
        "version": event.originator_version,
        "type": type(event).__name__,
        "timestamp": timestamp_text(event.timestamp),
        "data": stored_data(event),
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }
    by = event.__dict__.get("by")
    if by is not None:
        record["by"] = by
    shape = stored_shape(event)
    if shape != 1:
        record["shape"] = shape
    nonce = event.__dict__.get(NONCE)
    if nonce is not None:
        record[NONCE] = nonce  # secret until the game is over: never in a redacted record
    return record


class DuplicateKey(Said, ValueError):
    """A JSON object names the same key twice: readers disagree on which one counts."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise DuplicateKey(N_("the key %(key)r appears twice in one object"), key=twice[:60])
    return found


def strict_loads(text: str | bytes, **kwargs: Any) -> Any:
    """JSON text as Python values, refusing any object with a duplicate key (DuplicateKey).

    Python's reader keeps the last of two equal keys, others keep the first: a signed document
    with a second `final` would tell two readers two results (docs/auditing.md).
    """
    return json.loads(text, object_pairs_hook=_unique_keys, **kwargs)
