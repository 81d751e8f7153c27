"""The server's Ed25519 signing keys: a key ring in the data directory.

`signing-key.pem` is the key that signs new documents, created on first start and then kept.
`gruft key --rotate` retires it: its public half moves to `retired-keys/<key id>.pem` and a new
key signs from then on. The server verifies (and imports) documents signed by any key on its
ring, so a rotation never strands the documents exported before it. A key's id is the SHA-256
hex of its DER public key, the fingerprint an arbiter compares (`gruft key`, `key_id`).

Each key has the time it was current (`history`, served at GET /signing-keys): a retired key's
`retired-keys/<key id>.json` records its `from` and `until` when it is retired; a key retired
before that file existed reads `until` from its PEM file's time and `from` as the `until` of the
key before it; the current key's `from` is its file's time.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from service.audit import tlog
from service.caches import KEY_IDS

KEY_FILE = "signing-key.pem"
RETIRED_DIR = "retired-keys"


class SigningKey:
    """Signs replay documents; the public half is served at GET /signing-key."""

    def __init__(self, private: Ed25519PrivateKey, retired: tuple[str, ...] = (),
                 since: str | None = None, periods: tuple[dict[str, Any], ...] = ()) -> None:
        self._private = private
        self.public_pem = public_pem(private.public_key())
        self.key_id = key_id(self.public_pem)
        self.retired = retired  # public PEMs of the keys this one replaced, oldest first
        self.since = since  # when this key became current (ISO 8601), if known
        self.periods = periods  # the retired keys' {key_id, key, from, until}, oldest first

    @property
    def history(self) -> list[dict[str, Any]]:
        """Every key this server has signed with and when it was current, oldest first; the
        current key's `until` is None."""
        return [*(dict(p) for p in self.periods),
                {"key_id": self.key_id, "key": self.public_pem, "from": self.since,
                 "until": None}]

    def retired_period(self, retired_key_id: str) -> dict[str, Any] | None:
        """A retired key's period ({key_id, key, from, until}); None if it is not one."""
        return next((dict(p) for p in self.periods if p["key_id"] == retired_key_id), None)

    @property
    def ring(self) -> list[str]:
        """Every public key whose signature this server trusts: the current one and the retired."""
        return [self.public_pem, *self.retired]

    @classmethod
    def load_or_create(cls, folder: Path) -> SigningKey:
        """The key kept in `folder`, created there (mode 0600) the first time; race-safe."""
        path = folder / KEY_FILE
        if not path.exists():
            pem = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption())
            tmp = folder / f".{KEY_FILE}.{os.getpid()}"
            tmp.write_bytes(pem)
            os.chmod(tmp, 0o600)
            try:
                os.link(tmp, path)  # fails if another worker created it first: keep theirs
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        private = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(private, Ed25519PrivateKey):
            raise ValueError(f"{path} does not hold an Ed25519 key")
        retired = folder / RETIRED_DIR
        kept = sorted(retired.glob("*.pem"), key=lambda p: p.stat().st_mtime) if retired.is_dir() else []
        return cls(private, tuple(p.read_text("ascii") for p in kept), since=_file_time(path),
                   periods=_periods(kept))

    @classmethod
    def rotate(cls, folder: Path) -> SigningKey:
        """Retire the current key (its public half stays on the ring) and start a new one."""
        current = cls.load_or_create(folder)
        retired = folder / RETIRED_DIR
        retired.mkdir(exist_ok=True)
        period = {"from": current.since, "until": datetime.now(UTC).isoformat()}
        (retired / f"{current.key_id}.json").write_text(json.dumps(period), "ascii")
        (retired / f"{current.key_id}.pem").write_text(current.public_pem, "ascii")
        (folder / KEY_FILE).unlink()  # the private half of a retired key signs nothing again
        return cls.load_or_create(folder)

    def sign(self, message: bytes) -> str:
        """The base64 signature of a message."""
        return base64.b64encode(self._private.sign(message)).decode("ascii")

    def sign_note(self, text: str, name: str) -> str:
        """A C2SP signed note of `text` by this key under the key name `name` (service.audit.tlog)."""
        return tlog.sign_note(text, name, self._private)


def missing_key_line(missing: str, folder: Path) -> str:
    """The one line that tells an operator a store was signed by a key this server lacks."""
    return (f"the game store was signed by key {missing}, which this server does not hold (it "
            f"looks in {folder / KEY_FILE} and {folder / RETIRED_DIR}/): point GRUFT_DATA_DIR at "
            "the folder that holds that key, or run 'gruft key --adopt' to sign this store with "
            "this folder's key from now on (what the old key signed then verifies only against "
            "it)")


def _file_time(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()


def _periods(kept: list[Path]) -> tuple[dict[str, Any], ...]:
    """The retired keys' periods, oldest first, from their side files (or their files' times)."""
    periods: list[dict[str, Any]] = []
    for pem_path in kept:
        pem = pem_path.read_text("ascii")
        side = pem_path.with_suffix(".json")
        recorded = json.loads(side.read_text("ascii")) if side.exists() else {}
        until = recorded.get("until") or _file_time(pem_path)
        since = recorded.get("from") or (periods[-1]["until"] if periods else None)
        periods.append({"key_id": key_id(pem), "key": pem, "from": since, "until": until})
    return tuple(periods)


def public_pem(key: Ed25519PublicKey) -> str:
    """A public key as PEM text."""
    return key.public_bytes(serialization.Encoding.PEM,
                            serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


@functools.lru_cache(maxsize=KEY_IDS.entries)  # every export and verification asks again
def key_id(public_key_pem: str) -> str:
    """A public key's fingerprint: SHA-256 hex of its DER encoding (ValueError if no key)."""
    try:
        key = serialization.load_pem_public_key(public_key_pem.encode("ascii"))
    except (UnicodeEncodeError, UnsupportedAlgorithm, TypeError) as exc:
        raise ValueError(f"not a PEM public key: {exc}") from None
    der = key.public_bytes(serialization.Encoding.DER,
                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).hexdigest()


def check_signature(public_key_pem: str, message: bytes, signature_b64: str) -> bool:
    """Whether the signature over the message verifies with the given public key."""
    try:
        key = serialization.load_pem_public_key(public_key_pem.encode("ascii"))
        if not isinstance(key, Ed25519PublicKey):
            return False
        key.verify(base64.b64decode(signature_b64, validate=True), message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def vkey(public_key_pem: str, name: str) -> str:
    """A key's C2SP verifier key under the key name `name` (its log's origin):
    `<name>+<key ID hex>+base64(0x01 ‖ public key)` (signed-note.md)."""
    return tlog.vkey(name, tlog.ED25519, tlog.pem_public(public_key_pem))
