"""Voodoo Prince cards: codes, the table by player count, and who takes a trick (VP-6 … VP-8)."""

from __future__ import annotations

from functools import cache

from domain.core.words import N_, Term

# Colour codes in their canonical order (red, blue, green, yellow, purple): the trump
# indicators of VP-2 and the order in which hands and legal moves are listed.
COLOURS = ("R", "B", "G", "Y", "P")
# Words of the game: translated where a message fills them in (domain.core.words.Term).
COLOUR_NAMES = {"R": Term(N_("red")), "B": Term(N_("blue")), "G": Term(N_("green")),
                "Y": Term(N_("yellow")), "P": Term(N_("purple"))}

# The table of the rules page, by player count.
TOP = {2: 10, 3: 10, 4: 12, 5: 15}  # highest value in play: the "top card" of VP-7
HAND_SIZE = {2: 13, 3: 13, 4: 13, 5: 14}
TRICKS_TO_FINISH = {2: 7, 3: 4, 4: 3, 5: 3}

# VP-8: a trick won by one of these values counts twice.
SPLITTING_VALUES = (5, 7)
# VP-12: in a two-player round the opponent scores what they lack of this many tricks.
TWO_PLAYER_TARGET = 7


def colour(card: str) -> str:
    """The colour code of a card code."""
    return card[0]


def value(card: str) -> int:
    """The number of a card code."""
    return int(card[1:])


@cache
def deck(player_count: int) -> tuple[str, ...]:
    """Every card in play for this many players (VP-4), in canonical order."""
    return tuple(f"{c}{v}" for c in COLOURS for v in range(TOP[player_count] + 1))


@cache
def card_order(player_count: int) -> dict[str, int]:
    """Card code -> its place in the canonical order (also the set of valid codes)."""
    return {card: i for i, card in enumerate(deck(player_count))}


def sort_cards(cards: list[str], player_count: int) -> list[str]:
    """The cards in canonical order (colour R B G Y P, then value)."""
    order = card_order(player_count)
    return sorted(cards, key=order.__getitem__)


def rank(card: str, cards_in_trick: list[str], top: int) -> int:
    """A card's rank within its colour in this trick: the voodoo 0 tops the top card (VP-7)."""
    number = value(card)
    if number == 0 and f"{card[0]}{top}" in cards_in_trick:
        return top + 1
    return number


def trick_winner(cards: list[str], trump: str, top: int) -> int:
    """Index of the winning card: highest trump if any, else highest of the led colour (VP-6)."""
    wanted = trump if any(colour(c) == trump for c in cards) else colour(cards[0])
    best = -1
    best_rank = -1
    for i, card in enumerate(cards):
        if colour(card) == wanted:
            r = rank(card, cards, top)
            if r > best_rank:
                best, best_rank = i, r
    return best


def trick_count(winning_card: str) -> int:
    """How many tricks a won trick counts for its winner: two if won by a 5 or a 7 (VP-8)."""
    return 2 if value(winning_card) in SPLITTING_VALUES else 1
