"""Seeded, language-independent shuffling ("gruft-shuffle-v1").

Every random result is computed once, in a command, and recorded in an event; replay never
shuffles. The algorithm is deliberately simple so another program can re-derive any deal:

* stream: SHA-256 over the UTF-8 of ``f"{seed}|{label}|{counter}"`` for counter = 0, 1, 2, …,
  the 32-byte digests concatenated (``seed`` is ``str(seed)``; ``label`` names the shuffle, e.g.
  ``"vampire-queen/phase/1"``);
* a uniform integer below n: read the next 8 bytes as a big-endian unsigned integer x; reject and
  read again while x ≥ 2**64 − (2**64 mod n); answer x mod n;
* shuffle: Fisher–Yates from the end — for i = len−1 down to 1, swap item i with item
  ``below(i + 1)``.

The seed commitment is the SHA-256 hex of the UTF-8 of ``salt + ":" + str(seed)`` (replay
format 2: ``salt`` is 64 server-drawn hex digits, revealed with the seed), or of ``str(seed)``
alone for a game without a salt (format 1, kept so old documents verify).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Any, TypeVar

from domain.core.errors import BadSetup
from domain.core.words import N_

T = TypeVar("T")

SEED_MAX_LENGTH = 200  # characters of a string seed
SEED_MAX_BITS = 512  # size of a numeric seed

_SPAN = 1 << 64
_WORDS = struct.Struct(">4Q")  # a 32-byte digest as four big-endian 8-byte words


SALT_HEX_DIGITS = 64


def seed_commitment(seed: int | str, salt: str | None = None) -> str:
    """SHA-256 hex of ``salt:seed`` (or of ``str(seed)`` without a salt): public from the start,
    checkable once the seed and the salt are revealed. The salt keeps a low-entropy seed (``42``,
    a birthday) from being found by trying candidates against the public commitment."""
    text = str(seed) if salt is None else f"{salt}:{seed}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_salt(value: object) -> bool:
    """Whether `value` is a salt as format 2 has it: exactly 64 lowercase hex digits."""
    return (isinstance(value, str) and len(value) == SALT_HEX_DIGITS
            and all(c in "0123456789abcdef" for c in value))


class SeededStream:
    """The deterministic byte stream of one labelled shuffle, read 8 bytes at a time."""

    def __init__(self, seed: int | str, label: str) -> None:
        self._prefix = f"{seed}|{label}|"
        self._counter = 0
        self._words: list[int] = []  # the current digest's unread 8-byte words, last first

    def _next_word(self) -> int:
        """The stream's next 8 bytes as a big-endian unsigned integer (4 per digest)."""
        if not self._words:
            block = f"{self._prefix}{self._counter}".encode()
            self._words = list(_WORDS.unpack(hashlib.sha256(block).digest()))[::-1]
            self._counter += 1
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPAN - (_SPAN % n)
        while True:
            x = self._next_word()
            if x < limit:
                return x % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list: Fisher–Yates from the end over the stream."""
        out = list(items)
        below = self.below
        for i in range(len(out) - 1, 0, -1):
            j = below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def shuffled(seed: int | str, label: str, items: Sequence[T]) -> list[T]:
    """The items shuffled by gruft-shuffle-v1 for this seed and label."""
    return SeededStream(seed, label).shuffled(items)


def check_seed(seed: Any) -> None:
    """A seed is a whole number of at most SEED_MAX_BITS or a string of 1 to SEED_MAX_LENGTH
    characters: every way a game is started (created, imported, verified) checks it here."""
    if isinstance(seed, bool) or not isinstance(seed, int | str) or str(seed) == "":
        raise BadSetup(N_("seed must be a whole number or a non-empty string"))
    if isinstance(seed, str) and len(seed) > SEED_MAX_LENGTH:
        raise BadSetup(N_("a string seed has at most %(seed_max_length)s characters"),
                       seed_max_length=SEED_MAX_LENGTH)
    if isinstance(seed, int) and abs(seed) >= 1 << SEED_MAX_BITS:
        raise BadSetup(N_("a numeric seed has at most %(seed_max_bits)s bits"),
                       seed_max_bits=SEED_MAX_BITS)


def check_salt(salt: Any) -> None:
    """A salt is 64 lowercase hex digits, or absent (a replay document of format 1)."""
    if salt is not None and not is_salt(salt):
        raise BadSetup(N_("salt must be 64 lowercase hex digits"))
