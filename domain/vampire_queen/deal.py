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
from domain.core.words import N_
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
        raise BadSetup(N_("a %(key)s deal has only the key 'phases', not %(unknown)s"), key=KEY,
                       unknown=', '.join(unknown))
    entries = deal.get("phases", [])
    if not isinstance(entries, list):
        raise BadSetup(N_("deal 'phases' must be a list with one entry per phase"))
    if len(entries) > phases:
        raise BadSetup(N_("the deal stacks %(n_entries)s phases but the game has %(phases)s"),
                       n_entries=len(entries), phases=phases)
    return {"phases": [_check_phase(players, n, e) for n, e in enumerate(entries, start=1)]}


def _check_phase(players: list[str], phase: int, entry: Any) -> dict[str, Any] | None:
    # A null entry leaves that phase to the seed, so a later phase can be stacked alone.
    if entry is None:
        return None
    if not isinstance(entry, dict) or set(entry) != {"hands"}:
        raise BadSetup(N_("deal phase %(phase)s must be an object with only 'hands'"), phase=phase)
    hands = entry["hands"]
    if not isinstance(hands, dict) or set(hands) != set(players):
        raise BadSetup(N_("deal phase %(phase)s must give a hand to every player and nobody else"),
                       phase=phase)
    each = CARDS_EACH[len(players)]
    used: Counter[str] = Counter()
    for name in players:
        hand = hands[name]
        if not isinstance(hand, list) or not all(isinstance(c, str) for c in hand):
            raise BadSetup(N_("deal phase %(phase)s: %(name)s's hand must be a list of card codes"),
                           phase=phase, name=name)
        for card in hand:
            if card in SLAYERS:
                raise BadSetup(N_("deal phase %(phase)s: slayers are not dealt (VQ-2, VQ-3); "
                                  "remove %(card)s from %(name)s's hand"), phase=phase, card=card,
                               name=name)
            if card not in ORDER:
                raise BadSetup(N_("deal phase %(phase)s: %(card)r is not a Vampire Queen card"),
                               phase=phase, card=card)
        if len(hand) != each:
            raise BadSetup(N_("deal phase %(phase)s: %(name)s must be dealt %(each)s cards at a "
                              "table of %(n_players)s, not %(n_hand)s (VQ-2)"), phase=phase,
                           name=name, each=each, n_players=len(players), n_hand=len(hand))
        used.update(hand)
    for card, n in used.items():
        if n > DECK_COUNTS[card]:
            raise BadSetup(N_("deal phase %(phase)s: the deck has %(deck_counts)s of %(card)r, "
                              "the hands hold %(n)s"), phase=phase, deck_counts=DECK_COUNTS[card],
                           card=card, n=n)
    return {"hands": {p: sort_cards(hands[p]) for p in players}}
