"""docs/format.md is enough to check a document's chain, signature and log proof: a verifier
written from that page alone (its snippets, no gruft code) accepts every fixture and golden
document, the documents of today's shapes and a served export's log proof, and catches an edit;
the page's worked examples are true, and so is what it says of reading numbers and strings."""

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


LINK = ("version", "type", "timestamp", "by", "shape", "nonce", "data", "prev_hash")  # the page's


def chain_holds(doc) -> bool:
    # docs/format.md, "The hash chain"
    prev = doc["seed_commitment"]
    for number, event in enumerate(doc["events"], start=1):
        if event["version"] != number or event["prev_hash"] != prev:
            return False
        link = {k: event[k] for k in LINK if k in event}
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


def fingerprint(pem: str) -> str:
    key = serialization.load_pem_public_key(pem.encode("ascii"))
    return hashlib.sha256(key.public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
                          ).hexdigest()


def log_holds(doc, trusted_pems) -> bool:
    # docs/format.md, "The log proof" (its check_log, returning instead of asserting)
    log, checkpoint = doc["log"], doc["log"]["checkpoint"]
    body = {k: v for k, v in checkpoint.items() if k != "signature"}
    pem = next((p for p in trusted_pems if fingerprint(p) == checkpoint["key_id"]), None)
    if pem is None:
        return False
    try:
        serialization.load_pem_public_key(pem.encode("ascii")).verify(
            base64.b64decode(checkpoint["signature"]), canonical_json(body).encode("utf-8"))
    except Exception:  # noqa: BLE001 - cryptography's InvalidSignature
        return False
    last = doc["events"][-1]
    leaf = {"game_id": doc["game_id"], "version": len(doc["events"]), "hash": last["hash"]}
    node = hashlib.sha256(b"\x00" + canonical_json(leaf).encode("utf-8")).digest()
    index, size = log["index"], checkpoint["size"]
    fn, sn = index, size - 1
    for sibling in map(bytes.fromhex, log["proof"]):
        if fn % 2 == 1 or fn == sn:
            node = hashlib.sha256(b"\x01" + sibling + node).digest()
            while fn % 2 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            node = hashlib.sha256(b"\x01" + node + sibling).digest()
        fn, sn = fn >> 1, sn >> 1
    return index < size and sn == 0 and node.hex() == checkpoint["root"]


def seed_holds(doc) -> bool:
    # docs/format.md, "The seed commitment"
    text = (doc["salt"] + ":" if doc["format_version"] >= 2 else "") + str(doc["seed"])
    return hashlib.sha256(text.encode("utf-8")).hexdigest() == doc["seed_commitment"]


def test_the_page_has_the_snippets_this_test_follows():
    page = (ROOT / "docs" / "format.md").read_text("utf-8")
    assert 'json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)' in page
    assert re.search(r"prev \+ json\.dumps\(link, sort_keys=True", page)
    assert 'LINK = ("version", "type", "timestamp", "by", "shape", "nonce", "data", "prev_hash")' in page
    assert "link = {k: event[k] for k in LINK if k in event}" in page
    assert 'node = hashlib.sha256(b"\\x00" + canonical_json(leaf).encode("utf-8")).digest()' in page
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


def test_the_worked_examples_are_true():
    # Check the chain's and the log's worked examples compute as the page says, from the page's
    # own text (the record, the link, the leaf), with the page's rules only.
    page = (ROOT / "docs" / "format.md").read_text("utf-8")
    record = json.loads(re.search(r'```json\n(\{"version": 4, "type": "MoveSubmitted".*?)\n```',
                                  page, re.S).group(1))
    link = {k: record[k] for k in LINK if k in record}
    assert "    " + canonical_json(link) + "\n" in page  # the link as the page writes it
    digest = hashlib.sha256((record["prev_hash"] + canonical_json(link)).encode()).hexdigest()
    assert digest == record["hash"] == "18852b7fcfca9377ab71c2a52fe0c0afad615aaee36fe2a7e0d37cfbf7f8505a"
    assert f"that text: `{digest}`" in page
    leaf = {"game_id": "1f0c5a52-7f6e-4c1e-9d3b-2b8f0e6a4c11", "version": 4, "hash": digest}
    assert "    " + canonical_json(leaf) + "\n" in page
    first = hashlib.sha256(b"\x00" + canonical_json(leaf).encode()).digest()
    assert f"with leaf hash `{first.hex()}`" in page
    second = bytes.fromhex("b4bec7d7b76f06db989a998ace58edfb55405525d054652a2779075f89031dd3")
    root = hashlib.sha256(b"\x01" + first + second).hexdigest()
    assert f'"root": "{root}"' in page


def test_numbers_and_strings_read_as_the_page_says():
    # Check the page's reading rules are what gruft's reader and writer do: 1E2 is 100.0, -0 is
    # 0, big integers stay exact, -0.0 stays, a surrogate pair is one character, a lone
    # surrogate cannot be written as UTF-8.
    from domain.core.chain import canonical, strict_loads

    page = (ROOT / "docs" / "format.md").read_text("utf-8")
    assert "`1E2` is written `100.0`" in page and "`-0` reads as the" in page
    big = 2 ** 511 + 1
    read = strict_loads(f'{{"a": 1E2, "b": -0, "c": 1.50, "d": -0.0, "e": {big}, "f": 2e-5, '
                        f'"g": 1e16, "h": "\\ud83c\\udfb2"}}')
    assert canonical(read) == (f'{{"a":100.0,"b":0,"c":1.5,"d":-0.0,"e":{big},"f":2e-05,'
                               f'"g":1e+16,"h":"🎲"}}')
    lone = strict_loads('"\\ud800"')
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        canonical(lone).encode("utf-8")


def test_the_page_s_log_check_accepts_a_served_export_and_catches_an_edit(client, tmp_path):
    # Check a verifier following the page's log section accepts the log proof of a game the
    # server exported, with the key from GET /signing-key, and fails a wrong index or key.
    from tests.kit import SHORT_OPTIONS, play_over_rest, seats

    rng = random.Random(7)
    for _ in range(3):  # a log of several games: a proof of more than one hash
        created = client.post("/games", json={"game": "voodoo-prince", "players": seats(
            "voodoo-prince"), "options": SHORT_OPTIONS["voodoo-prince"]}).get_json()
        play_over_rest(client, created, rng)
    doc = json.loads(client.get(f"/games/{created['game_id']}/export").data)
    trusted = client.get("/signing-key").get_json()["key"]
    assert doc["log"]["index"] == 2 and doc["log"]["checkpoint"]["size"] == 3
    assert re.fullmatch(r"gruft-log/[0-9a-f]{16}", doc["log"]["checkpoint"]["origin"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00",
                        doc["log"]["checkpoint"]["timestamp"])
    assert log_holds(doc, [trusted]) and chain_holds(doc) and signature_holds(doc)
    moved = copy.deepcopy(doc)
    moved["log"]["index"] = 1
    assert not log_holds(moved, [trusted])
    from service.audit.signing import SigningKey

    other = SigningKey.load_or_create(tmp_path).public_pem
    assert not log_holds(doc, [other])  # no trusted key has the checkpoint's key_id
