"""Holding a document to the receipts its players kept (`gruft verify DOC --receipt FILE`).

A receipt (service.audit.receipts) is the server's signed word that, after a command, the game's event
`version` had chain hash `hash`. A document of that game must reach that version
(`receipt_beyond_document`) and have that hash there (`receipt_mismatch`). A receipt whose
signature does not hold proves nothing and is named as such (`receipt_invalid`). A mismatch
between a receipt and a document signed by the same server is a proof that the server signed two
histories of one game: `conflicts` keeps both signed statements for the reader.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from domain.core.words import N_, Phrase
from replays.document import Verdict
from service.audit.receipts import FIELDS, signed_part
from service.audit.signing import key_id


def receipt_list(value: Any) -> list[Any]:
    """The receipts a file holds: one receipt, or a JSON list of them."""
    return value if isinstance(value, list) else [value]


def check_receipts(document: dict[str, Any], receipts: list[Any], verdict: Verdict,
                   trusted_keys: list[str] | None, check: Callable[[str, bytes, str], bool]
                   ) -> list[dict[str, Any]]:
    """Add a problem to `verdict` for each receipt of this game the document disagrees with;
    answer the conflicts: [{"receipt", "event", "document_signature"}], each two signed
    statements that cannot both be true. Receipts of other games are left aside."""
    keys = _keys(document, trusted_keys)
    events = document.get("events") if isinstance(document.get("events"), list) else []
    conflicts = []
    for number, receipt in enumerate(receipts, start=1):
        name = Phrase(N_("receipt %(number)s"), number=number)
        if not isinstance(receipt, dict) or set(receipt) != set(FIELDS):
            verdict.add(None, "receipt_invalid", N_("%(name)s is not a receipt: {%(fields)s}"),
                        name=name, fields=", ".join(FIELDS))
            continue
        if receipt["game_id"] != document.get("game_id"):
            continue  # another game's
        key = keys.get(receipt["key_id"]) if isinstance(receipt["key_id"], str) else None
        if key is None or not isinstance(receipt["signature"], str) or not check(
                key, signed_part(receipt), receipt["signature"]):
            verdict.add(None, "receipt_invalid",
                        N_("%(name)s's signature is not a trusted key's: it proves nothing"),
                        name=name)
            continue
        version = receipt["version"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            verdict.add(None, "receipt_invalid", N_("%(name)s names no event"), name=name)
        elif version > len(events):
            verdict.add(version, "receipt_beyond_document",
                        N_("%(name)s was signed after this event, but the document has %(n)s "
                           "events: it leaves out what the server acknowledged"),
                        name=name, n=len(events))
        elif events[version - 1].get("hash") != receipt["hash"]:
            verdict.add(version, "receipt_mismatch",
                        N_("%(name)s says the event here has hash %(hash)s, the document says "
                           "%(document_hash)s: the server signed two histories"), name=name,
                        hash=receipt["hash"], document_hash=events[version - 1].get("hash"))
            conflicts.append({"receipt": receipt, "event": events[version - 1],
                              "document_signature": document.get("signature")})
    return conflicts


def _keys(document: dict[str, Any], trusted_keys: list[str] | None) -> dict[str, str]:
    """The keys a receipt may be signed with, by key id: the trusted ones, else the document's
    own (then a conflict still shows one key signing two histories)."""
    own = (document.get("signature") or {}).get("key") if isinstance(
        document.get("signature"), dict) else None
    pems = trusted_keys if trusted_keys is not None else [own] if isinstance(own, str) else []
    keys = {}
    for pem in pems:
        with suppress(ValueError):
            keys[key_id(pem)] = pem
    return keys
