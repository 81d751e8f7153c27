"""RFC 9162 Merkle trees: hand-computed cases, the CT reference vectors, and pymerkle's trees."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pymerkle import InmemoryTree
from pymerkle.hasher import MerkleHasher

from service.audit.merkle import (
    EMPTY_ROOT,
    Tree,
    leaf_hash,
    node_hash,
    verify_consistency,
    verify_inclusion,
)


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def tree_of(entries: list[bytes]) -> Tree:
    return Tree([leaf_hash(e) for e in entries])


# The leaves of the Certificate Transparency reference implementation's tests, with the roots
# and proofs it publishes for them (RFC 6962 hashing, which RFC 9162 §2.1 keeps).
CT_LEAVES = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43",
             bytes(range(0x50, 0x58)), bytes(range(0x60, 0x70))]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
CT_CONSISTENCY = {
    (1, 8): ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    (6, 8): ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
    (2, 5): ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"],
}


def test_small_trees_hash_as_the_rfc_writes_them():
    a, b, c = leaf_hash(b"a"), leaf_hash(b"b"), leaf_hash(b"c")
    # Check the two prefixes and the empty tree, written out by hand.
    assert a == sha(b"\x00a")
    assert node_hash(a, b) == sha(b"\x01" + a + b)
    assert Tree().root() == EMPTY_ROOT == sha(b"")
    assert Tree([a]).root() == a
    assert Tree([a, b]).root() == sha(b"\x01" + a + b)
    # Three leaves: k = 2, so the left subtree is (a, b) and the right is c alone.
    assert Tree([a, b, c]).root() == sha(b"\x01" + sha(b"\x01" + a + b) + c)
    assert Tree([a, b, c]).inclusion_proof(2) == [sha(b"\x01" + a + b)]
    assert Tree([a, b, c]).inclusion_proof(0) == [b, c]
    assert Tree([a, b, c]).consistency_proof(2) == [c]
    assert Tree([a, b, c]).consistency_proof(1) == [b, c]


def test_the_certificate_transparency_reference_vectors():
    tree = tree_of(CT_LEAVES)
    assert [tree.root(n).hex() for n in range(1, 9)] == CT_ROOTS
    for (first, second), proof in CT_CONSISTENCY.items():
        assert [p.hex() for p in tree.consistency_proof(first, second)] == proof
        assert verify_consistency(first, second, tree.root(first), tree.root(second),
                                  [bytes.fromhex(p) for p in proof])
    assert [p.hex() for p in tree.inclusion_proof(0, 8)] == CT_CONSISTENCY[(1, 8)]


def test_pymerkle_hashes_as_rfc_9162():
    # pymerkle is our second implementation only because its hashing is the RFC's: check it.
    hasher = MerkleHasher("sha256")
    assert hasher.hash_buff(b"x") == sha(b"\x00x") == leaf_hash(b"x")
    assert hasher.hash_pair(b"l" * 32, b"r" * 32) == sha(b"\x01" + b"l" * 32 + b"r" * 32)
    assert hasher.hash_empty() == EMPTY_ROOT


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=12), min_size=1, max_size=70), st.data())
def test_roots_and_proofs_agree_with_pymerkle(entries, data):
    ours, theirs = tree_of(entries), InmemoryTree.init_from_entries(entries)
    n = len(entries)
    size = data.draw(st.integers(1, n))
    index = data.draw(st.integers(0, size - 1))
    first = data.draw(st.integers(1, size))
    # Check the roots of every prefix, pymerkle's audit path (after its leaf) is ours, and
    # each side's consistency proof checks against the other side's roots.
    assert [ours.root(s) for s in range(1, n + 1)] == [theirs.get_root(s) for s in range(1, n + 1)]
    assert theirs.prove_inclusion(index + 1, size).path[1:] == ours.inclusion_proof(index, size)
    assert verify_inclusion(ours.leaves[index], index, size, ours.inclusion_proof(index, size),
                            theirs.get_root(size))
    assert verify_consistency(first, size, theirs.get_root(first), theirs.get_root(size),
                              ours.consistency_proof(first, size))
    theirs.prove_consistency(first, size).verify(ours.root(first), ours.root(size))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.data())
def test_a_bent_proof_fails(n, data):
    tree = tree_of([str(i).encode() for i in range(n)])
    size = data.draw(st.integers(1, n))
    index = data.draw(st.integers(0, size - 1))
    proof = tree.inclusion_proof(index, size)
    root = tree.root(size)
    assert verify_inclusion(tree.leaves[index], index, size, proof, root)
    # Fail with another leaf, another index, a proof one hash short or long,
    # or one hash changed.
    assert not verify_inclusion(leaf_hash(b"forged"), index, size, proof, root)
    if size > 1:
        assert not verify_inclusion(tree.leaves[index], (index + 1) % size, size, proof, root)
    assert not verify_inclusion(tree.leaves[index], index, size, [*proof, root], root)
    if proof:
        assert not verify_inclusion(tree.leaves[index], index, size, proof[:-1], root)
        bent = data.draw(st.integers(0, len(proof) - 1))
        changed = [*proof[:bent], sha(proof[bent]), *proof[bent + 1:]]
        assert not verify_inclusion(tree.leaves[index], index, size, changed, root)
    first = data.draw(st.integers(1, size))
    consistency = tree.consistency_proof(first, size)
    assert verify_consistency(first, size, tree.root(first), root, consistency)
    if first < size:
        assert not verify_consistency(first, size, leaf_hash(b"rewritten"), root, consistency)
        assert not verify_consistency(first, size, tree.root(first), leaf_hash(b"x"), consistency)
        assert not verify_consistency(first, size, tree.root(first), root, consistency[:-1])
        bent = data.draw(st.integers(0, len(consistency) - 1))
        changed = [*consistency[:bent], sha(consistency[bent]), *consistency[bent + 1:]]
        assert not verify_consistency(first, size, tree.root(first), root, changed)


def test_a_rewritten_leaf_breaks_consistency_with_every_later_tree():
    honest = tree_of([b"g%d" % i for i in range(11)])
    rewritten = tree_of([b"g%d" % i if i != 3 else b"other" for i in range(11)])
    kept = honest.root(5)  # a monitor kept the checkpoint of five games
    for second in range(5, 12):
        assert not verify_consistency(5, second, kept, rewritten.root(second),
                                      rewritten.consistency_proof(5, second))


@pytest.mark.parametrize("bad", [(-1, 3), (4, 3), (3, 2)])
def test_sizes_out_of_range_are_refused(bad):
    tree = tree_of([b"a", b"b", b"c"])
    first, second = bad
    with pytest.raises(ValueError, match=f"no consistency proof from {first} leaves to {second}"):
        tree.consistency_proof(first, second)
    assert not verify_consistency(first, second, EMPTY_ROOT, EMPTY_ROOT, [])
    assert tree.consistency_proof(0, 3) == [] and tree.consistency_proof(3, 3) == []
    assert verify_consistency(0, 3, EMPTY_ROOT, tree.root(), [])
    assert not verify_consistency(0, 3, leaf_hash(b"x"), tree.root(), [])
    with pytest.raises(ValueError, match="leaf 3 is not in a tree of 3"):
        tree.inclusion_proof(3, 3)
