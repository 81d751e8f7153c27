"""The C2SP formats of a transparency log: signed notes, checkpoints, cosignatures and tiles.

Written from the specifications (github.com/C2SP/C2SP):
- `signed-note.md`: a note is a text ending in a newline, a blank line, then signature lines
  `— <key name> base64(key ID ‖ signature)`; an Ed25519 key's ID is the first four bytes of
  SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key), and its verifier key ("vkey") is
  `<name>+<key ID hex>+base64(0x01 ‖ public key)`;
- `tlog-checkpoint.md`: the note text of a checkpoint is the origin line, the tree size in
  decimal and the root hash in base64, each ending in a newline;
- `tlog-cosignature.md`: a witness's `cosignature/v1` is a note signature of type 0x04 whose
  signed bytes are `timestamp (u64, big-endian) ‖ Ed25519(cosignature/v1 ⏎ time T ⏎ text)`;
- `tlog-tiles.md`: the tree served as tiles of 256 hashes, `tile/<L>/<N>[.p/<W>]` with `<N>` in
  three-digit path elements (`x001/x234/067`), and entry bundles of uint16-length-prefixed leaves.
Pure functions (no I/O): the server (api/gamelog.py), the witness (service/audit/witness.py), the
server's witnessing (service/audit/witnessing.py) and the auditors (replays/) share them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519, COSIGNATURE_V1 = 0x01, 0x04  # signed-note.md's signature types
DASH = "\u2014"  # the em dash that begins a signature line
MAX_SIGNATURES = 32  # a note with more signature lines is refused (signed-note.md: at least 16)
MAX_NOTE = 64 * 1024  # bytes
TILE_WIDTH = 256  # tlog-tiles.md: a full tile's hashes
HASH_SIZE = 32
NAME = re.compile(r"[^\s+]+")  # a key name: non-empty, no Unicode space, no plus
CHECKPOINT_SIZE = re.compile(r"0|[1-9][0-9]{0,19}")


class NoteError(ValueError):
    """A note, vkey or checkpoint that is not well formed."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4] (signed-note.md)."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([kind]) + public).digest()[:4]


def raw_public(key: Ed25519PublicKey | Ed25519PrivateKey) -> bytes:
    """The 32 bytes of an Ed25519 public key (RFC 8032)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def pem_public(pem: str) -> bytes:
    """The 32 bytes of the Ed25519 public key in a PEM (ValueError if it is not one)."""
    key = serialization.load_pem_public_key(pem.encode("ascii"))
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("not an Ed25519 public key")
    return raw_public(key)


@dataclass(frozen=True)
class Verifier:
    """A key that verifies note signatures: its name, type (0x01 or 0x04) and public key."""

    name: str
    kind: int
    public: bytes

    @property
    def id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    @property
    def vkey(self) -> str:
        """`<name>+<key ID hex>+base64(type ‖ public key)`."""
        return vkey(self.name, self.kind, self.public)

    def verify(self, text: bytes, signature: bytes) -> bool:
        """Whether a note signature's bytes (after the key ID) sign `text` with this key; for
        a cosignature, over `cosignature/v1 ⏎ time T ⏎ text`."""
        if self.kind == COSIGNATURE_V1:
            if len(signature) != 8 + 64:
                return False
            (stamp,) = struct.unpack(">Q", signature[:8])
            if stamp >= 1 << 63:
                return False
            text, signature = cosigned_message(text, stamp), signature[8:]
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, text)
        except (InvalidSignature, ValueError):
            return False
        return True


def vkey(name: str, kind: int, public: bytes) -> str:
    """A verifier key string (signed-note.md, Go's note.NewVerifier)."""
    if not NAME.fullmatch(name):
        raise NoteError(f"{name!r} is not a key name (non-empty, no space, no plus)")
    return "+".join((name, key_id(name, kind, public).hex(),
                     base64.b64encode(bytes([kind]) + public).decode("ascii")))


def parse_vkey(text: str) -> Verifier:
    """The verifier a vkey names (type 0x01 or 0x04, Ed25519); NoteError if it is not one."""
    parts = text.strip().split("+", 2)  # the base64 key may hold a plus
    if len(parts) != 3 or not NAME.fullmatch(parts[0]) or not re.fullmatch(r"[0-9a-f]{8}",
                                                                            parts[1]):
        raise NoteError(f"{text[:120]!r} is not a vkey (<name>+<key ID hex>+<base64 key>)")
    try:
        key = base64.b64decode(parts[2], validate=True)
    except binascii.Error:
        raise NoteError(f"the key of vkey {parts[0]!r} is not base64") from None
    if len(key) != 33 or key[0] not in (ED25519, COSIGNATURE_V1):
        raise NoteError(f"vkey {parts[0]!r} is not an Ed25519 key of type 0x01 or 0x04")
    verifier = Verifier(parts[0], key[0], key[1:])
    if verifier.id.hex() != parts[1]:
        raise NoteError(f"vkey {parts[0]!r}: its key ID does not match its name and key")
    return verifier


# -- notes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Signature:
    """One signature line: the key name, the key ID and the signed bytes after it."""

    name: str
    id: bytes
    value: bytes

    @property
    def line(self) -> str:
        return f"{DASH} {self.name} {base64.b64encode(self.id + self.value).decode('ascii')}\n"


def signature_line(name: str, kind: int, public: bytes, value: bytes) -> str:
    """`— <name> base64(key ID ‖ value)⏎`."""
    return Signature(name, key_id(name, kind, public), value).line


def sign_note(text: str, name: str, private: Ed25519PrivateKey) -> str:
    """A note of `text` signed by an Ed25519 key (type 0x01) named `name`."""
    _check_text(text)
    line = signature_line(name, ED25519, raw_public(private), private.sign(text.encode("utf-8")))
    return text + "\n" + line


def cosigned_message(text: bytes, timestamp: int) -> bytes:
    """What a cosignature/v1 signs (tlog-cosignature.md)."""
    return b"cosignature/v1\ntime %d\n" % timestamp + text


def cosign(text: str, name: str, private: Ed25519PrivateKey, timestamp: int) -> str:
    """A timestamped cosignature/v1 line (type 0x04) over a checkpoint's note text."""
    signed = private.sign(cosigned_message(text.encode("utf-8"), timestamp))
    return signature_line(name, COSIGNATURE_V1, raw_public(private),
                          struct.pack(">Q", timestamp) + signed)


def _check_text(text: str) -> None:
    if not text.endswith("\n") or any(ord(c) < 0x20 and c != "\n" for c in text):
        raise NoteError("a note's text ends in a newline and holds no control character")


def parse_signature_lines(block: str) -> list[Signature]:
    """The signature lines of a block (each `— name base64⏎`); NoteError on any other line."""
    if block and not block.endswith("\n"):
        raise NoteError("a signature line must end in a newline")
    found = []
    for line in block.split("\n")[:-1] if block else []:
        prefix, _, rest = line.partition(" ")
        name, _, b64 = rest.partition(" ")
        if prefix != DASH or not NAME.fullmatch(name) or " " in b64:
            raise NoteError(f"{line[:120]!r} is not a note signature line")
        try:
            raw = base64.b64decode(b64, validate=True)
        except binascii.Error:
            raise NoteError(f"the signature of {name[:60]!r} is not base64") from None
        if len(raw) < 5:
            raise NoteError(f"the signature of {name[:60]!r} is too short")
        found.append(Signature(name, raw[:4], raw[4:]))
        if len(found) > MAX_SIGNATURES:
            raise NoteError(f"a note with more than {MAX_SIGNATURES} signatures")
    return found


def parse_note(note: str) -> tuple[str, list[Signature]]:
    """(the text, its signatures) of a signed note; NoteError if it is not one."""
    if len(note.encode("utf-8")) > MAX_NOTE:
        raise NoteError(f"a note longer than {MAX_NOTE} bytes")
    if any(ord(c) < 0x20 and c != "\n" for c in note) or not note.endswith("\n"):
        raise NoteError("a note ends in a newline and holds no control character")
    split = note.rfind("\n\n")  # the last empty line separates the text from the signatures
    if split < 0:
        raise NoteError("a note has a blank line between its text and its signatures")
    text, block = note[:split + 1], note[split + 2:]
    signatures = parse_signature_lines(block)
    if not signatures:
        raise NoteError("a note without a signature")
    return text, signatures


def verified_by(text: str, signatures: Iterable[Signature],
                verifiers: Sequence[Verifier]) -> tuple[list[Verifier], list[Verifier]]:
    """(the verifiers whose signature verifies, those whose signature fails): a signature of
    an unknown name and key ID is ignored (signed-note.md)."""
    good: list[Verifier] = []
    bad: list[Verifier] = []
    raw = text.encode("utf-8")
    for signature in signatures:
        for verifier in verifiers:
            if verifier.name == signature.name and verifier.id == signature.id:
                (good if verifier.verify(raw, signature.value) else bad).append(verifier)
    return list(dict.fromkeys(good)), list(dict.fromkeys(bad))


# -- checkpoints --------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint's first three lines (tlog-checkpoint.md) and any extension lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode("ascii"),
                 *self.extensions]
        return "".join(line + "\n" for line in lines)


def checkpoint_text(origin: str, size: int, root: bytes) -> str:
    """The note text of a checkpoint: origin, size, base64 root, each with its newline."""
    return Checkpoint(origin, size, root).text


def parse_checkpoint(text: str) -> Checkpoint:
    """A checkpoint's note text read; NoteError if it is not one."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(line == "" for line in lines[:-1]):
        raise NoteError("a checkpoint is an origin, a size and a root hash, one a line")
    origin, size, root = lines[0], lines[1], lines[2]
    if not CHECKPOINT_SIZE.fullmatch(size) or int(size) >= 1 << 63:
        raise NoteError(f"the checkpoint's size {size[:30]!r} is not a decimal size")
    try:
        digest = base64.b64decode(root, validate=True)
    except binascii.Error:
        digest = b""
    if len(digest) != HASH_SIZE:
        raise NoteError("the checkpoint's root is not a base64 SHA-256 hash")
    return Checkpoint(origin, int(size), digest, tuple(lines[3:-1]))


# -- tiles --------------------------------------------------------------------------------


def tile_index_path(n: int) -> str:
    """`<N>` as tlog-tiles.md writes it: 1234067 -> x001/x234/067."""
    if n < 0:
        raise ValueError("a tile index is not negative")
    parts = [f"{n % 1000:03d}"]
    n //= 1000
    while n:
        parts.append(f"x{n % 1000:03d}")
        n //= 1000
    return "/".join(reversed(parts))


TILE_PATH = re.compile(r"((?:x[0-9]{3}/)*)([0-9]{3})(?:\.p/([1-9][0-9]{0,2}))?")


def parse_tile_index(path: str) -> tuple[int, int]:
    """(N, W) of `<N>[.p/<W>]` (W 256 for a full tile); ValueError if it is not in the
    spec's form (a leading x000/ is not: every index has one path)."""
    match = TILE_PATH.fullmatch(path)
    if match is None:
        raise ValueError(f"{path[:80]!r} is not a tile index")
    width = int(match.group(3)) if match.group(3) else TILE_WIDTH
    if not 1 <= width < TILE_WIDTH + (0 if match.group(3) else 1):
        raise ValueError(f"a partial tile is 1 to {TILE_WIDTH - 1} wide")
    n = 0
    for part in [*filter(None, match.group(1).split("/")), match.group(2)]:
        n = n * 1000 + int(part.lstrip("x"))
    if tile_index_path(n) != path.split(".p/")[0]:
        raise ValueError(f"{path[:80]!r} is not the canonical path of tile {n}")
    return n, width


def tile_path(level: int | str, n: int, width: int = TILE_WIDTH) -> str:
    """`tile/<L>/<N>[.p/<W>]` (level "entries" for an entry bundle)."""
    suffix = "" if width == TILE_WIDTH else f".p/{width}"
    return f"tile/{level}/{tile_index_path(n)}{suffix}"


def entry_bundle(entries: Iterable[bytes]) -> bytes:
    """Entries each behind its big-endian uint16 length (tlog-tiles.md)."""
    out = bytearray()
    for entry in entries:
        if len(entry) > 0xFFFF:
            raise ValueError("an entry longer than 65535 bytes")
        out += struct.pack(">H", len(entry)) + entry
    return bytes(out)


def parse_entry_bundle(data: bytes) -> list[bytes]:
    """The entries of a bundle; ValueError if it is cut short."""
    entries, at = [], 0
    while at < len(data):
        if at + 2 > len(data):
            raise ValueError("an entry bundle cut inside a length")
        (length,) = struct.unpack(">H", data[at:at + 2])
        if at + 2 + length > len(data):
            raise ValueError("an entry bundle cut inside an entry")
        entries.append(data[at + 2:at + 2 + length])
        at += 2 + length
    return entries
