"""A document's place in the game log: its `log` part checked against its signed checkpoint.

The export of a game that is over carries `"log": {"index", "proof", "checkpoint"}`: the leaf
the game is in the log (`{"game_id", "version", "hash"}` of its last event, taken from the
document itself), its RFC 9162 inclusion proof, and the signed checkpoint the proof is against.
A reader who kept a checkpoint of that log can then ask the server for a consistency proof
(`gruft log check`) and so know that this game stays in it for ever.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from domain.core import canonical
from domain.core.words import N_, Phrase
from service.audit.gamelog import leaf_bytes, leaf_of
from service.audit.merkle import leaf_hash, verify_inclusion
from service.audit.signing import key_id
from service.audit.tlog import (
    ED25519,
    NoteError,
    Verifier,
    parse_checkpoint,
    parse_note,
    pem_public,
    verified_by,
)

HASH = re.compile(r"[0-9a-f]{64}")
CHECKPOINT_FIELDS = ("origin", "size", "root", "timestamp", "key_id", "signature")
MAX_PROOF = 64  # a tree of 2^64 leaves needs no more


def checkpoint_body(checkpoint: dict[str, Any]) -> bytes:
    """What a checkpoint's signature covers: its canonical JSON without `signature`."""
    return canonical({k: v for k, v in checkpoint.items() if k != "signature"}).encode("utf-8")


def checkpoint_problem(checkpoint: Any, keys: list[str], check_signature) -> str | None:
    """Why a checkpoint is not well formed and signed by one of `keys` (PEMs); None if it is."""
    if not isinstance(checkpoint, dict) or set(checkpoint) != set(CHECKPOINT_FIELDS):
        return Phrase(N_("the checkpoint must have exactly %(fields)s"),
                      fields=", ".join(CHECKPOINT_FIELDS))
    size = checkpoint["size"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return Phrase(N_("the checkpoint's size is not a whole number"))
    if not isinstance(checkpoint["root"], str) or not HASH.fullmatch(checkpoint["root"]):
        return Phrase(N_("the checkpoint's root is not 64 lowercase hex digits"))
    if not isinstance(checkpoint["signature"], str):
        return Phrase(N_("the checkpoint's signature is not a string"))
    signer = next((k for k in keys if _key_id(k) == checkpoint["key_id"]), None)
    if signer is None:
        return Phrase(N_("the checkpoint is signed by key %(key_id)s, not a trusted one"),
                      key_id=str(checkpoint["key_id"])[:64])
    if not check_signature(signer, checkpoint_body(checkpoint), checkpoint["signature"]):
        return Phrase(N_("the checkpoint's signature does not match it"))
    return None


def log_problem(document: dict[str, Any], keys: list[str], check_signature) -> str | None:
    """Why the document's `log` part does not prove the game in the log; None if it does."""
    part = document["log"]
    if not isinstance(part, dict) or set(part) != {"index", "proof", "checkpoint"}:
        return Phrase(N_("log must be {index, proof, checkpoint}"))
    index, proof = part["index"], part["proof"]
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(proof, list) or (
            len(proof) > MAX_PROOF or not all(isinstance(p, str) and HASH.fullmatch(p)
                                              for p in proof)):
        return Phrase(N_("log's index must be a whole number and its proof a list of SHA-256 "
                         "hex hashes"))
    problem = checkpoint_problem(part["checkpoint"], keys, check_signature)
    if problem is not None:
        return problem
    checkpoint = part["checkpoint"]
    last = document["events"][-1]
    leaf = leaf_of(str(document["game_id"]), len(document["events"]), str(last.get("hash")))
    if not verify_inclusion(leaf_hash(leaf_bytes(leaf)), index, checkpoint["size"],
                            [bytes.fromhex(p) for p in proof], bytes.fromhex(checkpoint["root"])):
        return Phrase(N_("the game's last event is not leaf %(index)s of the log of size "
                         "%(size)s the checkpoint signs: the inclusion proof fails"),
                      index=index, size=checkpoint["size"])
    return None


def note_checkpoint_problem(note: Any, keys: list[str], witnesses: list[Verifier] = (),
                            needed: int = 0):
    """(the checkpoint, None) for a C2SP checkpoint note signed by one of `keys` (PEMs; the key
    name is the note's origin) and cosigned by `needed` of `witnesses` (type 0x04 vkeys); else
    (None, why not)."""
    try:
        text, signatures = parse_note(note) if isinstance(note, str) else ("", [])
        checkpoint = parse_checkpoint(text)
    except NoteError as exc:
        return None, Phrase(N_("the checkpoint is not a C2SP signed note: %(problem)s"),
                            problem=str(exc)[:200])
    logs = []
    for pem in keys:
        try:
            logs.append(Verifier(checkpoint.origin, ED25519, pem_public(pem)))
        except (ValueError, TypeError):
            continue
    good, bad = verified_by(text, signatures, logs)
    if not good or bad:
        return None, Phrase(N_("the checkpoint note of %(origin)s is not signed by a trusted "
                               "key of that log"), origin=checkpoint.origin[:120])
    cosigned, failed = verified_by(text, signatures, list(witnesses))
    if failed:
        return None, Phrase(N_("a cosignature on the checkpoint by witness %(name)s does not "
                               "verify"), name=failed[0].name)
    if len({w.public for w in cosigned}) < needed:
        return None, Phrase(N_("the checkpoint of size %(size)s is cosigned by %(count)s of the "
                               "witnesses given, %(needed)s needed: it may be one of two "
                               "histories shown to different readers"),
                            size=checkpoint.size, count=len({w.public for w in cosigned}),
                            needed=needed)
    return checkpoint, None


def witnessed_problem(document: dict[str, Any], keys: list[str], witnesses: list[Verifier],
                      needed: int) -> str | None:
    """Why the document's `log_witnessed` part does not prove its game in a checkpoint cosigned
    by `needed` of `witnesses`; None if it does."""
    part = document.get("log_witnessed")
    if part is None:
        return Phrase(N_("the document carries no proof against a checkpoint cosigned by "
                         "witnesses (log_witnessed): its server names none, or none had "
                         "cosigned a checkpoint holding the game when it was exported"))
    if not isinstance(part, dict) or set(part) != {"index", "proof", "checkpoint"}:
        return Phrase(N_("log_witnessed must be {index, proof, checkpoint}"))
    index, proof = part["index"], part["proof"]
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(proof, list) or (
            len(proof) > MAX_PROOF or not all(isinstance(p, str) and HASH.fullmatch(p)
                                              for p in proof)):
        return Phrase(N_("log_witnessed's index must be a whole number and its proof a list of "
                         "SHA-256 hex hashes"))
    checkpoint, problem = note_checkpoint_problem(part["checkpoint"], keys, witnesses, needed)
    if problem is not None:
        return problem
    logged = document.get("log")
    if isinstance(logged, dict) and isinstance(logged.get("checkpoint"), dict) and (
            logged["checkpoint"].get("origin") != checkpoint.origin):
        return Phrase(N_("the cosigned checkpoint is of another log than the document's log "
                         "proof"))
    last = document["events"][-1]
    leaf = leaf_of(str(document["game_id"]), len(document["events"]), str(last.get("hash")))
    if not verify_inclusion(leaf_hash(leaf_bytes(leaf)), index, checkpoint.size,
                            [bytes.fromhex(p) for p in proof], checkpoint.root):
        return Phrase(N_("the game's last event is not leaf %(index)s of the log of size "
                         "%(size)s the witnesses cosigned: the inclusion proof fails"),
                      index=index, size=checkpoint.size)
    return None


def _key_id(pem: str) -> str | None:
    try:
        return key_id(pem)
    except ValueError:
        return None


def check_retired(document: Any, verdict: Any, history: list[dict[str, Any]]) -> None:
    """Offline, a signature by a key the history (GET /signing-keys) names as retired counts only
    for a game the document's own log proof shows over before the key was retired."""
    if verdict.signature != "verified" or not isinstance(document, dict):
        return
    period = next((k for k in history if k.get("until") is not None
                   and _key_id(k["key"]) == verdict.key_id), None)
    if period is None:
        return
    verdict.retired = period
    ended = document["events"][-1]["timestamp"]
    if "log" not in document:
        why = Phrase(N_("and the document carries no proof that its game is in the server's "
                        "log"))
    elif any(p["code"] == "log_invalid" for p in verdict.problems):
        why = Phrase(N_("and its proof that the game is in the server's log fails"))
    elif _before(ended, period["until"]):
        return
    else:
        why = Phrase(N_("before its game ended (%(ended)s)"), ended=ended)
    verdict.signature = "retired"
    verdict.add(None, "retired_key", N_("the document is signed by a key the server retired at "
                                        "%(until)s, %(why)s: a retired key vouches for nothing "
                                        "new"), until=period["until"], why=why)


def _before(stamp: str, until: Any) -> bool:
    try:
        return datetime.fromisoformat(stamp) <= datetime.fromisoformat(str(until))
    except (TypeError, ValueError):
        return False
