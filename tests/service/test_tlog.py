"""The C2SP formats (service/audit/tlog.py) against vectors their authors published: Go's note
package's own example key and signed note, and tlog-tiles.md's tile paths (issue 35)."""

from __future__ import annotations

import base64
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.audit.tlog import (
    COSIGNATURE_V1,
    ED25519,
    Checkpoint,
    NoteError,
    Verifier,
    cosign,
    entry_bundle,
    parse_checkpoint,
    parse_entry_bundle,
    parse_note,
    parse_tile_index,
    parse_vkey,
    raw_public,
    sign_note,
    tile_path,
    verified_by,
    vkey,
)

# golang.org/x/mod/sumdb/note's documentation: a key and the note it signs
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = ("If you think cryptography is the answer to your problem,\n"
           "then you don't know what your problem is.\n")
GO_NOTE = GO_TEXT + ("\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FF"
                     "YC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n")


def go_key() -> Ed25519PrivateKey:
    seed = base64.b64decode(GO_SKEY.split("+", 4)[4])
    assert seed[0] == ED25519
    return Ed25519PrivateKey.from_private_bytes(seed[1:])


def test_a_note_and_vkey_are_byte_for_byte_those_of_go_s_note_package():
    # Check Go's example key gives Go's vkey and signs Go's text into Go's note.
    key = go_key()
    assert vkey("PeterNeumann", ED25519, raw_public(key)) == GO_VKEY
    assert sign_note(GO_TEXT, "PeterNeumann", key) == GO_NOTE
    # Check the note read back verifies with the vkey, and fails with a word changed.
    text, signatures = parse_note(GO_NOTE)
    assert verified_by(text, signatures, [parse_vkey(GO_VKEY)]) == ([parse_vkey(GO_VKEY)], [])
    assert verified_by(text.replace("answer", "Answer"), signatures,
                       [parse_vkey(GO_VKEY)]) == ([], [parse_vkey(GO_VKEY)])


def test_a_vkey_whose_key_holds_a_plus_is_read():
    # Check a key whose base64 has a "+" (as GO_SKEY's has) reads back (Go splits at the first
    # two pluses only).
    key = Ed25519PrivateKey.generate()
    while "+" not in vkey("log", ED25519, raw_public(key)).split("+", 2)[2]:
        key = Ed25519PrivateKey.generate()
    assert parse_vkey(vkey("log", ED25519, raw_public(key))).public == raw_public(key)


def test_unknown_signatures_are_ignored_and_names_must_match():
    # Check a signature by another name or key ID verifies nothing (signed-note.md).
    other = Verifier("PeterNeumann2", ED25519, parse_vkey(GO_VKEY).public)
    text, signatures = parse_note(GO_NOTE)
    assert verified_by(text, signatures, [other]) == ([], [])


@pytest.mark.parametrize("bad", [
    GO_TEXT, GO_TEXT + "\n", GO_TEXT + "\n\u2014 PeterNeumann\n", GO_TEXT + "\n- PeterNeumann AAAA\n",
    GO_NOTE[:-1], GO_NOTE.replace("problem,", "problem,\r"), GO_TEXT + "\n\u2014 Peter+N AAAAAAAA\n"])
def test_malformed_notes_are_refused(bad):
    with pytest.raises(NoteError, match="note|signature"):
        parse_note(bad)


@pytest.mark.parametrize("bad", [
    "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # key ID off by one
    "PeterNeumann+c74f20a3+Apc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # not 33 bytes
    "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "PeterNeumann"])
def test_malformed_vkeys_are_refused(bad):
    with pytest.raises(NoteError, match="vkey"):
        parse_vkey(bad)


def test_a_cosignature_is_a_timestamped_type_4_signature():
    # Check the bytes after the key ID: u64 big-endian time, then Ed25519 over
    # "cosignature/v1\ntime T\n" + the checkpoint's text (tlog-cosignature.md).
    key = Ed25519PrivateKey.generate()
    text = Checkpoint("example.com/log", 5, bytes(range(32))).text
    line = cosign(text, "witness.example/w1", key, 1679315147)
    [signature] = parse_note(text + "\n" + line)[1]
    witness = Verifier("witness.example/w1", COSIGNATURE_V1, raw_public(key))
    assert signature.id == witness.id and struct.unpack(">Q", signature.value[:8]) == (1679315147,)
    key.public_key().verify(signature.value[8:],
                            b"cosignature/v1\ntime 1679315147\n" + text.encode())
    assert verified_by(text, [signature], [witness]) == ([witness], [])
    # Check the same key as a type 0x01 key is another key (another ID): ignored.
    assert verified_by(text, [signature], [Verifier(witness.name, ED25519, witness.public)]) == (
        [], [])


def test_checkpoints_read_back_and_malformed_ones_are_refused():
    checkpoint = Checkpoint("example.com/log", 20852163, bytes(32))
    assert checkpoint.text == "example.com/log\n20852163\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
    assert parse_checkpoint(checkpoint.text) == checkpoint
    for bad in ("example.com/log\n01\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
                "example.com/log\n1\nAAAA\n", "example.com/log\n1\n",
                "\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"):
        with pytest.raises(NoteError, match="checkpoint"):
            parse_checkpoint(bad)


@pytest.mark.parametrize(("level", "n", "width", "path"), [
    (0, 1234067, 256, "tile/0/x001/x234/067"),  # tlog-tiles.md's own example
    (0, 0, 256, "tile/0/000"), (1, 5, 17, "tile/1/005.p/17"),
    ("entries", 1000, 112, "tile/entries/x001/000.p/112")])
def test_tile_paths_as_tlog_tiles_writes_them(level, n, width, path):
    assert tile_path(level, n, width) == path
    assert parse_tile_index(path.split("/", 2)[2]) == (n, width)


@pytest.mark.parametrize("bad", ["0", "00", "x000/001", "001.p/256", "001.p/0", "001.p/07",
                                 "x1/001", "001/", "-01"])
def test_tile_paths_not_in_the_spec_s_form_are_refused(bad):
    with pytest.raises(ValueError, match="tile"):
        parse_tile_index(bad)


def test_an_entry_bundle_is_length_prefixed_entries():
    entries = [b"", b"a", b"x" * 300]
    bundle = entry_bundle(entries)
    assert bundle[:5] == b"\x00\x00\x00\x01a" and parse_entry_bundle(bundle) == entries
    with pytest.raises(ValueError, match="cut"):
        parse_entry_bundle(bundle[:-1])
