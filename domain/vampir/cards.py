"""Vampir's cards: six location colours, vampires with one or two heads, Somewhere jokers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from domain.core import BadCommand
from domain.core.words import N_

# The six locations, each its own colour, in the order the rules page lists them.
COLOURS = ("castle", "graveyard", "madhouse", "docks", "church", "pub")
# Messages in every language name the locations as their cards print them (in English, as
# the French summary of the rules keeps them too): never a Term.
JOKER = "W"  # a Somewhere card: any colour, one head

ONE_HEAD_PER_COLOUR = 11
TWO_HEAD_PER_COLOUR = 5
JOKERS = 10
HAND_SIZE = 4  # VA-1
DRAW_SIZE = 2  # VA-2
HUNT_MIN = 3  # VA-6


def one(colour: str) -> str:
    """The code of a one-head vampire of `colour`."""
    return colour + "1"


def two(colour: str) -> str:
    """The code of a two-head vampire of `colour`."""
    return colour + "2"


ALL_CODES = tuple(code for c in COLOURS for code in (one(c), two(c))) + (JOKER,)
_ORDER = {code: i for i, code in enumerate(ALL_CODES)}
_COLOUR = {code: code[:-1] for code in ALL_CODES if code != JOKER}
_HEADS = {code: (1 if code == JOKER else int(code[-1])) for code in ALL_CODES}

# VA-1: one one-head card of each colour starts under its location; the other 90 vampires and
# the 10 jokers are shuffled. The deck is listed in the canonical order (the shuffle's input).
STARTING_CARDS = {c: [one(c)] for c in COLOURS}
SHUFFLED_DECK = tuple(
    [code for c in COLOURS for code in [one(c)] * (ONE_HEAD_PER_COLOUR - 1)
     + [two(c)] * TWO_HEAD_PER_COLOUR]
    + [JOKER] * JOKERS
)
ALL_CARDS = Counter(SHUFFLED_DECK) + Counter(one(c) for c in COLOURS)  # the 106 cards


def is_card(code: object) -> bool:
    """Whether `code` names a Vampir card."""
    return isinstance(code, str) and code in _ORDER


def check_card(code: str) -> str:
    """The code itself, or BadCommand when no such card exists in Vampir."""
    if code not in _ORDER:
        raise BadCommand(N_("%(code)r is not a Vampir card (colour + 1 or 2 heads, e.g. 'pub2', "
                            "or 'W')"), code=code)
    return code


def check_cards(codes: Iterable[str]) -> list[str]:
    """The codes in canonical order, or BadCommand naming the first unknown one."""
    return sorted((check_card(c) for c in codes), key=_ORDER.__getitem__)


def colour_of(code: str) -> str | None:
    """The colour of a vampire card; None for a joker."""
    return _COLOUR.get(code)


def heads_of(cards: Iterable[str]) -> int:
    """Heads of a set of cards (VA-10: a joker counts one)."""
    return sum(_HEADS[c] for c in cards)


def ordered(cards: Iterable[str]) -> list[str]:
    """Cards in the one canonical order: by colour as listed, one head before two, jokers last."""
    return sorted(cards, key=_ORDER.__getitem__)


def missing_from(hand: list[str], cards: list[str]) -> list[str]:
    """The cards of `cards` (a multiset) that `hand` does not hold, in canonical order."""
    short = Counter(cards) - Counter(hand)
    return ordered(short.elements())


def without(hand: list[str], cards: list[str]) -> list[str]:
    """`hand` (in canonical order) less the multiset `cards` (which it holds), in canonical order.

    Hands are always kept in canonical order, and taking cards out of a sorted list leaves it
    sorted: no Counter and no re-sort in the event bodies that call this on every replay.
    """
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return rest
