"""The server's Ed25519 signing key: created on first start in the data directory, then kept."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEY_FILE = "signing-key.pem"


class SigningKey:
    """Signs replay documents; the public half is served at GET /signing-key."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public_pem = public_pem(private.public_key())

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
        return cls(private)

    def sign(self, message: bytes) -> str:
        """The base64 signature of a message."""
        return base64.b64encode(self._private.sign(message)).decode("ascii")


def public_pem(key: Ed25519PublicKey) -> str:
    """A public key as PEM text."""
    return key.public_bytes(serialization.Encoding.PEM,
                            serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


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
