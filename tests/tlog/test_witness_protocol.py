"""gruft's witness driven by a client written from C2SP's tlog-witness.md, tlog-cosignature.md
and signed-note.md alone: its own log (key, origin, RFC 6962 tree and proofs), its own notes,
nothing of gruft's but the `gruft witness` command it talks to (issue 35, item 6)."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import struct
import subprocess
import threading
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.kit import GRUFT

ORIGIN = "log.example.test/spec-client"


# -- the client's own log, from RFC 6962 §2.1 --------------------------------------------------

def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def mth(leaves: list[bytes]) -> bytes:
    if not leaves:
        return sha(b"")
    if len(leaves) == 1:
        return sha(b"\x00" + leaves[0])
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return sha(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))


def subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if whole else [mth(leaves)]
    k = 1 << ((n - 1).bit_length() - 1)
    if m <= k:
        return subproof(m, leaves[:k], whole) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


class SpecLog:
    """A log as signed-note.md and tlog-checkpoint.md describe one."""

    def __init__(self, origin: str = ORIGIN) -> None:
        self.origin, self.key = origin, Ed25519PrivateKey.generate()
        self.leaves = [f"entry {i}".encode() for i in range(40)]
        public = raw(self.key.public_key())
        self.key_id = sha(origin.encode() + b"\n\x01" + public)[:4]
        key = base64.b64encode(bytes([1]) + public).decode()
        self.vkey = f"{origin}+{self.key_id.hex()}+{key}"

    def text(self, size: int, root: bytes | None = None) -> str:
        root = mth(self.leaves[:size]) if root is None else root
        return f"{self.origin}\n{size}\n{base64.b64encode(root).decode()}\n"

    def note(self, size: int, root: bytes | None = None, key: Ed25519PrivateKey | None = None
             ) -> str:
        text = self.text(size, root)
        signature = (key or self.key).sign(text.encode())
        return (text + "\n\u2014 " + self.origin + " "
                + base64.b64encode(self.key_id + signature).decode() + "\n")

    def request(self, old: int, size: int, proof: list[bytes] | None = None, **note) -> bytes:
        if proof is None:
            proof = subproof(old, self.leaves[:size], True) if 0 < old < size else []
        lines = [f"old {old}", *(base64.b64encode(p).decode() for p in proof)]
        return ("\n".join(lines) + "\n\n" + self.note(size, **note)).encode()


class Client:
    """POST <prefix>/add-checkpoint on one keep-alive connection."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def add(self, body: bytes) -> tuple[int, str, bytes]:
        self.conn.request("POST", "/add-checkpoint", body)
        answer = self.conn.getresponse()
        return answer.status, answer.getheader("Content-Type", ""), answer.read()

    def close(self) -> None:
        self.conn.close()


def witness_key(state) -> tuple[str, bytes, bytes]:
    """(name, key ID, public key) of `gruft witness vkey`'s verifier key."""
    printed = subprocess.run([str(GRUFT), "witness", "vkey", "--state", str(state)],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    name, key_id, key = printed.strip().split("+", 2)
    decoded = base64.b64decode(key)
    assert decoded[0] == 0x04 and len(decoded) == 33  # tlog-cosignature.md: type 0x04
    assert sha(name.encode() + b"\n\x04" + decoded[1:])[:4].hex() == key_id
    return name, bytes.fromhex(key_id), decoded[1:]


def check_cosignature(answer: bytes, text: str, name: str, key_id: bytes, public: bytes) -> int:
    """The timestamp of the one cosignature line the witness answered, verified."""
    lines = answer.decode().split("\n")
    assert lines[-1] == "" and len(lines) == 2, answer
    dash, signer, signature = lines[0].split(" ")
    assert dash == "\u2014" and signer == name
    signature = base64.b64decode(signature)
    assert signature[:4] == key_id and len(signature) == 4 + 8 + 64
    (stamp,) = struct.unpack(">Q", signature[4:12])
    message = f"cosignature/v1\ntime {stamp}\n{text}".encode()
    Ed25519PublicKey.from_public_bytes(public).verify(signature[12:], message)  # raises if not
    return stamp


def test_the_witness_cosigns_what_extends_its_state_and_refuses_the_rest(witness, tmp_path):
    log = SpecLog()
    state = tmp_path / "witness"
    name, key_id, public = witness_key(state)
    with witness([log.vkey], state) as url:
        client = Client(url)
        try:
            # Check a first checkpoint (old size 0, no proof) is cosigned.
            status, _kind, answer = client.add(log.request(0, 5))
            assert status == 200, answer
            assert check_cosignature(answer, log.text(5), name, key_id, public) > 1_600_000_000
            # Check an old size that is not the witness's answers 409 with the size it holds.
            status, kind, answer = client.add(log.request(0, 9))
            assert (status, kind.split(";")[0], answer) == (409, "text/x.tlog.size", b"5\n")
            # Check a proof that does not verify is 422, a good one cosigned.
            bent = subproof(5, log.leaves[:9], True)
            bent[0] = sha(bent[0])
            assert client.add(log.request(5, 9, proof=bent))[0] == 422
            status, _kind, answer = client.add(log.request(5, 9))
            assert status == 200, answer
            check_cosignature(answer, log.text(9), name, key_id, public)
            # Check the same checkpoint again is cosigned again; another root at that size is
            # a split view: 409.
            assert client.add(log.request(9, 9))[0] == 200
            status, kind, _answer = client.add(log.request(9, 9, root=sha(b"another history")))
            assert status == 409 and not kind.startswith("text/x.tlog.size")
            # Check the witness kept the log's signed split view (and the bent proof's request).
            kept = sorted(p.name.split("-")[1] for p in (state / "evidence").iterdir())
            assert kept == ["inconsistent", "split"]
            split = next((state / "evidence").glob("*-split-view-*"))
            assert log.note(9, root=sha(b"another history")) in split.read_text()
            # Check what the spec says of the rest.
            stranger = SpecLog("log.example.test/not-followed")
            assert client.add(stranger.request(0, 3))[0] == 404
            assert client.add(log.request(9, 12, key=Ed25519PrivateKey.generate()))[0] == 403
            assert client.add(log.request(12, 9))[0] == 400  # old size beyond the checkpoint
            assert client.add(b"old 9\nnot base64!\n\n" + log.note(12).encode())[0] == 400
            assert client.add(b"new 9\n\n" + log.note(12).encode())[0] == 400
            assert client.add(log.request(0, 12, proof=[sha(b"x")]))[0] == 400
            too_long = [sha(b"x")] * 64  # at most 63 proof lines
            assert client.add(log.request(9, 12, proof=too_long))[0] == 400
        finally:
            client.close()
    # Check the state was persisted before the answers: a restarted witness holds size 9.
    assert json.loads((state / "state.json").read_text())["logs"][ORIGIN]["size"] == 9
    with witness([log.vkey], state) as url:
        client = Client(url)
        try:
            assert client.add(log.request(0, 12))[1:] == ("text/x.tlog.size", b"9\n")
            status, _kind, answer = client.add(log.request(9, 12))
            assert status == 200
            check_cosignature(answer, log.text(12), name, key_id, public)
        finally:
            client.close()


@pytest.mark.parametrize("follow", ["not-a-vkey", "w+00000000+AAAA"])
def test_a_witness_refuses_to_start_on_a_key_it_cannot_read(tmp_path, follow):
    done = subprocess.run([str(GRUFT), "witness", "serve", "--state", str(tmp_path), "--port",
                           "0", "--follow", follow], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "vkey" in done.stderr


def test_concurrent_submissions_from_one_old_size_are_cosigned_once(witness, tmp_path):
    # Check the old size is checked and the new one stored atomically (tlog-witness.md's race):
    # of eight checkpoints submitted at once from the size the witness holds, one is cosigned
    # and the rest told the new size it holds; the size never goes back.
    log = SpecLog()
    with witness([log.vkey], tmp_path / "witness") as url:
        first = Client(url)
        try:
            assert first.add(log.request(0, 5))[0] == 200
        finally:
            first.close()
        answers: dict[int, tuple[int, str, bytes]] = {}

        def submit(size: int) -> None:
            client = Client(url)
            try:
                answers[size] = client.add(log.request(5, size))
            finally:
                client.close()

        threads = [threading.Thread(target=submit, args=(size,)) for size in range(30, 38)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        won = [size for size, (status, _kind, _body) in answers.items() if status == 200]
        assert len(won) == 1, answers
        assert all(answers[size][1:] == ("text/x.tlog.size", f"{won[0]}\n".encode())
                   for size in answers if size not in won)
    assert json.loads((tmp_path / "witness" / "state.json").read_text())["logs"][ORIGIN][
        "size"] == won[0]
