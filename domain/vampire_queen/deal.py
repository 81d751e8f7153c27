"""Dealing a phase from the seed or from a stacked deal (VQ-2, VQ-3, rules page "Stacked deal").

A seeded phase n shuffles the 108 cards with gruft-shuffle-v1 under the label
``vampire-queen/phase/<n>``, starting from the unshuffled order 8 × "1", 8 × "2", …, 8 × "13",
4 × "Q". Seat 0 takes the first block of the table amount, seat 1 the next, and so on; the rest
is set aside for the phase. The slayers are never shuffled: they stay where VQ-2/VQ-3 put them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.core import BadSetup, shuffled
from domain.vampire_queen.cards import CARDS_EACH, DECK, DECK_COUNTS, ORDER, SLAYERS, sort_cards

KEY = "vampire-queen"


def shuffle_label(phase: int) -> str:
    """The gruft-shuffle-v1 label of a phase's deal."""
    return f"{KEY}/phase/{phase}"


def seeded_hands(seed: int | str, players: list[str], phase: int) -> tuple[dict, list[str]]:
    """The 108 cards shuffled for this phase: each seat in turn takes the next block of the
    table amount (seat 0 first); the rest is set aside (VQ-2, VQ-3)."""
    deck = shuffled(seed, shuffle_label(phase), DECK)
    each = CARDS_EACH[len(players)]
    hands = {p: sort_cards(deck[i * each:(i + 1) * each]) for i, p in enumerate(players)}
    return hands, sort_cards(deck[len(players) * each:])


def stacked_hands(hands: dict[str, list[str]]) -> tuple[dict, list[str]]:
    """A checked stacked phase: its hands, and the rest of the 108 cards set aside."""
    left = Counter(DECK)
    for hand in hands.values():
        left.subtract(hand)
    return {p: list(h) for p, h in hands.items()}, sort_cards(left.elements())


def check_deal(players: list[str], phases: int, deal: dict[str, Any]) -> dict[str, Any]:
    """The stacked deal checked and normalised (hands sorted; null for a seeded phase)."""
    unknown = sorted(set(deal) - {"phases"})
    if unknown:
        raise BadSetup(f"a {KEY} deal has only the key 'phases', not {', '.join(unknown)}")
    entries = deal.get("phases", [])
    if not isinstance(entries, list):
        raise BadSetup("deal 'phases' must be a list with one entry per phase")
    if len(entries) > phases:
        raise BadSetup(f"the deal stacks {len(entries)} phases but the game has {phases}")
    return {"phases": [_check_phase(players, n, e) for n, e in enumerate(entries, start=1)]}


def _check_phase(players: list[str], phase: int, entry: Any) -> dict[str, Any] | None:
    # A null entry leaves that phase to the seed, so a later phase can be stacked alone.
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"hands"}:
        raise BadSetup(f"deal phase {phase} must be an object with only 'hands'")
    hands = entry["hands"]
    if not isinstance(hands, dict) or set(hands) != set(players):
        raise BadSetup(f"deal phase {phase} must give a hand to every player and nobody else")
    each = CARDS_EACH[len(players)]
    used: Counter[str] = Counter()
    for name in players:
        hand = hands[name]
        if not isinstance(hand, list) or not all(isinstance(c, str) for c in hand):
            raise BadSetup(f"deal phase {phase}: {name}'s hand must be a list of card codes")
        for card in hand:
            if card in SLAYERS:
                raise BadSetup(f"deal phase {phase}: slayers are not dealt (VQ-2, VQ-3); "
                               f"remove {card} from {name}'s hand")
            if card not in ORDER:
                raise BadSetup(f"deal phase {phase}: {card!r} is not a Vampire Queen card")
        if len(hand) != each:
            raise BadSetup(f"deal phase {phase}: {name} must be dealt {each} cards at a table "
                           f"of {len(players)}, not {len(hand)} (VQ-2)")
        used.update(hand)
    for card, n in used.items():
        if n > DECK_COUNTS[card]:
            raise BadSetup(f"deal phase {phase}: the deck has {DECK_COUNTS[card]} of {card!r}, "
                           f"the hands hold {n}")
    return {"hands": {p: sort_cards(hands[p]) for p in players}}
