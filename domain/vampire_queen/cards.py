"""The Vampire Queen deck: card codes, values, the table of hand sizes and sets (VQ-2, VQ-6, VQ-16)."""

from __future__ import annotations

from collections.abc import Iterable

VAMPIRES = tuple(str(v) for v in range(1, 14))
QUEEN = "Q"
S15 = "S15"
S20 = "S20"
SLAYERS = (S15, S20)
# Every code, in the one canonical order used for hands and card lists: by value (VQ-16).
CODES = (*VAMPIRES, QUEEN, S15, S20)
ORDER = {code: i for i, code in enumerate(CODES)}

QUEEN_SET_VALUE = 14  # Queens played only with Queens (VQ-6)
MINUS = {**{v: int(v) for v in VAMPIRES}, QUEEN: 14, S15: 15, S20: 20}  # VQ-16
# The 108 cards that are shuffled and dealt each phase (VQ-2, VQ-3): 8 of each vampire, 4 Queens.
DECK_COUNTS = {**{v: 8 for v in VAMPIRES}, QUEEN: 4}
DECK = tuple(code for code, n in DECK_COUNTS.items() for _ in range(n))
# Cards dealt to each player by table size (VQ-2).
CARDS_EACH = {3: 13, 4: 13, 5: 13, 6: 13, 7: 13, 8: 13, 9: 12, 10: 10, 11: 9, 12: 9}


def sort_cards(cards: Iterable[str]) -> list[str]:
    """The cards in canonical order (by value, Queens then slayers last)."""
    return sorted(cards, key=ORDER.__getitem__)


def minus_points(hand: Iterable[str]) -> int:
    """Minus points of the cards left in a hand at the end of a phase (VQ-16)."""
    return sum(MINUS[c] for c in hand)


def set_value(cards: list[str]) -> int | None:
    """The value of a normal-round set, or None if the cards are not one (VQ-6).

    A set is k cards of which at least one is a vampire of value v and the rest Queens (value v),
    or k Queens (value 14). A slayer never joins a set.
    """
    value = None
    for card in cards:
        if card == QUEEN:
            continue
        if card in SLAYERS:
            return None
        if value is not None and int(card) != value:
            return None
        value = int(card)
    if not cards:
        return None
    return QUEEN_SET_VALUE if value is None else value


def slayer_round_value(card: str) -> int:
    """A card's value in a slayer round: its number, a Queen 1 (VQ-10)."""
    return 1 if card == QUEEN else int(card)


def holds(hand: list[str], cards: list[str]) -> bool:
    """Whether the hand holds every card of `cards`, counted as a multiset."""
    return all(hand.count(c) >= cards.count(c) for c in set(cards))


def remove_cards(hand: list[str], cards: list[str]) -> list[str]:
    """A new hand without `cards` (which it holds)."""
    out = list(hand)
    for card in cards:
        out.remove(card)
    return out


def describe(cards: list[str]) -> str:
    """Cards as a player reads them: '7, 7, Q'."""
    return ", ".join(cards) if cards else "no cards"
