"""docs/format.md is enough to check a document's chain and signature: a verifier written from
that page alone (its snippets, no gruft code) accepts every fixture and golden document and the
documents of today's shapes, and catches an edit."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tests.kit import played_document

ROOT = Path(__file__).parents[2]
DOCUMENTS = sorted([*ROOT.glob("tests/fixtures/v*/documents/*.json"),
                    *ROOT.glob("tests/replays/golden/*.json")])


def canonical_json(value) -> str:
    # docs/format.md, "Canonical JSON"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_holds(doc) -> bool:
    # docs/format.md, "The hash chain"
    prev = doc["seed_commitment"]
    for number, event in enumerate(doc["events"], start=1):
        if event["version"] != number or event["prev_hash"] != prev:
            return False
        link = {k: v for k, v in event.items() if k != "hash"}
        if hashlib.sha256((prev + canonical_json(link)).encode("utf-8")).hexdigest() != event["hash"]:
            return False
        prev = event["hash"]
    return True


def signature_holds(doc) -> bool:
    # docs/format.md, "The signature"
    body = {k: v for k, v in doc.items() if k != "signature"}
    key = serialization.load_pem_public_key(doc["signature"]["key"].encode("ascii"))
    der = key.public_bytes(serialization.Encoding.DER,
                           serialization.PublicFormat.SubjectPublicKeyInfo)
    if doc.get("key_id", hashlib.sha256(der).hexdigest()) != hashlib.sha256(der).hexdigest():
        return False
    try:
        key.verify(base64.b64decode(doc["signature"]["value"]), canonical_json(body).encode("utf-8"))
    except Exception:  # noqa: BLE001 - cryptography's InvalidSignature
        return False
    return True


def seed_holds(doc) -> bool:
    # docs/format.md, "The seed commitment"
    text = (doc["salt"] + ":" if doc["format_version"] >= 2 else "") + str(doc["seed"])
    return hashlib.sha256(text.encode("utf-8")).hexdigest() == doc["seed_commitment"]


def test_the_page_has_the_snippets_this_test_follows():
    page = (ROOT / "docs" / "format.md").read_text("utf-8")
    assert 'json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)' in page
    assert re.search(r"prev \+ json\.dumps\(link, sort_keys=True", page)
    assert '"shape": shape' in page
    assert '"nonce": nonce' in page


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_verifier_written_from_the_page_accepts_every_document_kept(path):
    doc = json.loads(path.read_text("utf-8"))
    assert chain_holds(doc) and signature_holds(doc) and seed_holds(doc)


def test_it_accepts_todays_second_shape_and_catches_an_edit(tmp_path):
    from domain import game_class
    from service.audit.signing import SigningKey

    key = SigningKey.load_or_create(tmp_path)
    game = game_class("vampiring").start(["Ann", "Ben", "Cy"], seed=5, options={"max_turns": 6},
                                         salt="ab" * 32)
    doc = played_document(game, random.Random(5), key)
    assert any(e.get("shape") == 2 for e in doc["events"])
    assert chain_holds(doc) and signature_holds(doc) and seed_holds(doc)
    edited = copy.deepcopy(doc)
    next(e for e in edited["events"] if e.get("shape") == 2)["shape"] = 3
    assert not chain_holds(edited) and not signature_holds(edited)
