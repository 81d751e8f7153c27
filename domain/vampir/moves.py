"""Vampir's legal moves, enumerated by counts so large hands never blow up into subsets.

A hunt is fixed by its colour and how many one-head, two-head and joker cards it holds: cards of
one code are interchangeable, so each (colour, ones, twos, jokers) combination is one distinct
command, listed once with its cards in the canonical order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.vampir.cards import COLOURS, HUNT_MIN, JOKER, colour_of, one, two


def _hunt_shapes(ones: int, twos: int, jokers: int, real: int = 0,
                 total: int = 0) -> list[tuple[int, int, int]]:
    """(ones, twos, jokers) taken from the hand that make a hunt with `real`/`total` already in it.

    VA-6: at least HUNT_MIN cards, at least one real vampire among them.
    """
    shapes = []
    for i in range(ones + 1):
        for k in range(twos + 1):
            has_real = real + i + k > 0
            # The fewest jokers that bring the hunt to its minimum size.
            low = max(0, HUNT_MIN - total - i - k)
            if not has_real or low > jokers:
                continue
            shapes.extend((i, k, m) for m in range(low, jokers + 1))
    return shapes


def _cards(colour: str, i: int, k: int, m: int) -> list[str]:
    return [one(colour)] * i + [two(colour)] * k + [JOKER] * m


def after_draw(hand: list[str]) -> list[dict[str, Any]]:
    """VA-3 discards and VA-4 hunts open to a player who has just drawn."""
    counts = Counter(hand)
    jokers = counts[JOKER]
    moves: list[dict[str, Any]] = []
    for card in counts:
        colour = colour_of(card)
        # A joker may go under any location; a vampire only under its own colour (VA-3).
        for location in COLOURS if colour is None else (colour,):
            moves.append({"type": "discard", "card": card, "location": location})
    for colour in COLOURS:
        for i, k, m in _hunt_shapes(counts[one(colour)], counts[two(colour)], jokers):
            moves.append({"type": "hunt", "cards": _cards(colour, i, k, m), "colour": colour})
    return moves


def start_of_turn(hand: list[str], locations: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The VA-2 draw and every VA-5 collect open at the start of a turn."""
    counts = Counter(hand)
    jokers = counts[JOKER]
    moves: list[dict[str, Any]] = [{"type": "draw"}]
    for location in COLOURS:
        lying = locations[location]
        if not lying:
            continue
        real = sum(1 for c in lying if c != JOKER)
        for i, k, m in _hunt_shapes(counts[one(location)], counts[two(location)], jokers,
                                    real=real, total=len(lying)):
            moves.append({"type": "collect", "location": location,
                          "cards": _cards(location, i, k, m)})
    return moves
