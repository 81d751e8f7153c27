"""Legal-move enumeration from card counts (VQ-4 … VQ-14): counts, never subsets of the hand.

Every card list comes out in canonical order (vampires, then Queens), one list per distinct
multiset: each legal move is listed once, as Game.legal_moves promises.
"""

from __future__ import annotations

from typing import Any

from domain.vampire_queen.cards import QUEEN, QUEEN_SET_VALUE, SLAYERS, VAMPIRES

PASS = {"type": "pass"}


def _play(cards: list[str]) -> dict[str, Any]:
    return {"type": "play", "cards": cards}


def _counts(hand: list[str]) -> dict[str, int]:
    # A plain dict: cheaper to build and to miss in than a Counter, on the hottest path.
    counts: dict[str, int] = {}
    for card in hand:
        counts[card] = counts.get(card, 0) + 1
    return counts


def lead_moves(hand: list[str], barred_slayer: str | None) -> list[dict[str, Any]]:
    """The start player's leads: any set of one value with Queens joining, or one slayer."""
    counts = _counts(hand)
    queens = counts.get(QUEEN, 0)
    joining = [[QUEEN] * i for i in range(queens + 1)]
    # VQ-4/VQ-6: j vampires of one value joined by i Queens (each card list a new list)
    moves = [{"type": "play", "cards": [vampire] * j + queens_joining}
             for vampire in VAMPIRES if vampire in counts
             for j in range(1, counts[vampire] + 1)
             for queens_joining in joining]
    for i in range(1, queens + 1):  # VQ-6: Queens alone, value 14
        moves.append(_play([QUEEN] * i))
    for slayer in SLAYERS:  # VQ-9 single slayer; VQ-14 not the one just taken
        if slayer in counts and slayer != barred_slayer:
            moves.append(_play([slayer]))
    return moves


def raise_moves(hand: list[str], count: int, high: int) -> list[dict[str, Any]]:
    """A later player's options in a normal round: pass, or `count` cards strictly above `high`."""
    counts = _counts(hand)
    queens = counts.get(QUEEN, 0)
    moves = [PASS]  # VQ-5: passing is always allowed in a normal round
    fewest = max(1, count - queens)
    for vampire in VAMPIRES[high:]:  # the values above `high`
        have = counts.get(vampire)
        if not have:
            continue
        # VQ-6: at least one vampire of the value, the rest Queens taking that value.
        for j in range(fewest, min(have, count) + 1):
            moves.append({"type": "play", "cards": [vampire] * j + [QUEEN] * (count - j)})
    if queens >= count and high < QUEEN_SET_VALUE:
        moves.append(_play([QUEEN] * count))
    return moves


def slayer_round_moves(hand: list[str]) -> list[dict[str, Any]]:
    """A later player's options in a slayer round: one vampire or Queen, else the forced pass."""
    if forced_to_pass(hand):  # VQ-12: only the other slayer in hand
        return [PASS]
    # Hands are kept in card order, so each value once, in order; VQ-13: no second slayer.
    cards = [c for c in dict.fromkeys(hand) if c not in SLAYERS]
    return [_play([c]) for c in cards]  # VQ-10: any value, no pass


def forced_to_pass(hand: list[str]) -> bool:
    """Whether a hand holds only the other slayer: no vampire, no Queen (VQ-12)."""
    return bool(hand) and all(c in SLAYERS for c in hand)

