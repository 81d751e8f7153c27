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

The seed commitment is the SHA-256 hex of the UTF-8 of ``str(seed)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

ALGORITHM = "gruft-shuffle-v1"
_SPAN = 1 << 64


def seed_commitment(seed: int | str) -> str:
    """SHA-256 hex of ``str(seed)``: public from the start, checkable once the seed is revealed."""
    return hashlib.sha256(str(seed).encode("utf-8")).hexdigest()


class SeededStream:
    """The deterministic byte stream of one labelled shuffle."""

    def __init__(self, seed: int | str, label: str) -> None:
        self._prefix = f"{seed}|{label}|"
        self._counter = 0
        self._buffer = b""

    def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = f"{self._prefix}{self._counter}".encode()
            self._buffer += hashlib.sha256(block).digest()
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _SPAN - (_SPAN % n)
        while True:
            x = int.from_bytes(self._take(8), "big")
            if x < limit:
                return x % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list: Fisher–Yates from the end over the stream."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def shuffled(seed: int | str, label: str, items: Sequence[T]) -> list[T]:
    """The items shuffled by gruft-shuffle-v1 for this seed and label."""
    return SeededStream(seed, label).shuffled(items)
