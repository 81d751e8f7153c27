"""Merkle trees as RFC 9162 §2.1 defines them: hashes, inclusion and consistency proofs.

Pure functions over leaf hashes (bytes), written from the RFC's own definitions:
- MTH({}) = SHA-256(), MTH({d0}) = SHA-256(0x00 || d0), and for n > 1, with k the largest power
  of two smaller than n, MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n])) (§2.1.1);
- PATH(m, D[n]), the inclusion proof (§2.1.3.1), checked by the algorithm of §2.1.3.2;
- PROOF(m, D[n]) = SUBPROOF(m, D[n], true), the consistency proof (§2.1.4.1), checked by the
  algorithm of §2.1.4.2.
`Tree` remembers the hash of every complete, aligned subtree it has computed: such a subtree
never changes once its leaves are in, so a growing log answers its proofs in O(log² n) hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(leaf: bytes) -> bytes:
    """The hash of a leaf's bytes: SHA-256(0x00 || leaf)."""
    return hashlib.sha256(LEAF_PREFIX + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def split(n: int) -> int:
    """k, the largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


class Tree:
    """A tree over a growing list of leaf hashes (appended, never changed)."""

    def __init__(self, leaf_hashes: Sequence[bytes] = ()) -> None:
        self.leaves: list[bytes] = list(leaf_hashes)
        self._perfect: dict[tuple[int, int], bytes] = {}  # (start, width 2^j) -> its hash

    @property
    def size(self) -> int:
        """How many leaves the tree holds."""
        return len(self.leaves)

    def append(self, leaf_hash_: bytes) -> int:
        """Add a leaf hash; its index."""
        self.leaves.append(leaf_hash_)
        return len(self.leaves) - 1

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first `size` leaves (all by default)."""
        size = self.size if size is None else size
        self._check_size(size)
        return EMPTY_ROOT if size == 0 else self._mth(0, size)

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """PATH(index, D[size]): the audit path of leaf `index` in the tree of `size` leaves."""
        size = self.size if size is None else size
        self._check_size(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of {size}")
        return self._path(index, 0, size)

    def consistency_proof(self, first: int, second: int | None = None) -> list[bytes]:
        """PROOF(first, D[second]): the tree of `first` leaves is a prefix of `second`'s."""
        second = self.size if second is None else second
        self._check_size(second)
        if not 0 <= first <= second:
            raise ValueError(f"no consistency proof from {first} leaves to {second}")
        if first == 0 or first == second:
            return []  # every tree extends the empty one; a tree is its own prefix
        return self._subproof(first, 0, second, True)

    # -- the RFC's recursions, on ranges [start, start + n) of the leaves ---------------------

    def _mth(self, start: int, n: int) -> bytes:
        if n == 1:
            return self.leaves[start]
        perfect = n & (n - 1) == 0
        if perfect:
            known = self._perfect.get((start, n))
            if known is not None:
                return known
        k = split(n)
        value = node_hash(self._mth(start, k), self._mth(start + k, n - k))
        if perfect:
            self._perfect[(start, n)] = value
        return value

    def _path(self, m: int, start: int, n: int) -> list[bytes]:
        if n == 1:
            return []
        k = split(n)
        if m < k:
            return [*self._path(m, start, k), self._mth(start + k, n - k)]
        return [*self._path(m - k, start + k, n - k), self._mth(start, k)]

    def _subproof(self, m: int, start: int, n: int, whole: bool) -> list[bytes]:
        if m == n:
            return [] if whole else [self._mth(start, n)]
        k = split(n)
        if m <= k:
            return [*self._subproof(m, start, k, whole), self._mth(start + k, n - k)]
        return [*self._subproof(m - k, start + k, n - k, False), self._mth(start, k)]

    def _check_size(self, size: int) -> None:
        if not 0 <= size <= self.size:
            raise ValueError(f"the tree has {self.size} leaves, not {size}")


def verify_inclusion(leaf_hash_: bytes, index: int, size: int, proof: Sequence[bytes],
                     root: bytes) -> bool:
    """Whether `proof` shows the leaf hash at `index` in the tree of `size` with `root`
    (RFC 9162 §2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf_hash_
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(first: int, second: int, first_root: bytes, second_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """Whether `proof` shows the tree of `first` leaves with `first_root` to be a prefix of the
    tree of `second` leaves with `second_root` (RFC 9162 §2.1.4.2)."""
    if not 0 <= first <= second:
        return False
    if first == second:
        return not proof and first_root == second_root
    if first == 0:
        return not proof and first_root == EMPTY_ROOT  # the empty tree is everyone's prefix
    if not proof:
        return False
    path = list(proof)
    if first & (first - 1) == 0:  # an exact power of two: its root is a node of the second
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_root and sr == second_root and sn == 0
