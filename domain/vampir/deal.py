"""Vampir's deals: the seeded deal of a round, and the check of a stacked one."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.core import BadSetup, shuffled
from domain.core.words import N_, Phrase
from domain.vampir.cards import HAND_SIZE, SHUFFLED_DECK, is_card, ordered


def seeded_round(seed: int | str, number: int, players: list[str]) -> dict[str, Any]:
    """Round `number` dealt from the seed: gruft-shuffle-v1 of the 100 cards (canonical order)
    labelled ``vampir/round/<number>``; seat i gets cards 4i..4i+3, the rest is the pile."""
    deck = shuffled(seed, f"vampir/round/{number}", SHUFFLED_DECK)
    hands = {p: ordered(deck[HAND_SIZE * s:HAND_SIZE * (s + 1)]) for s, p in enumerate(players)}
    return {"hands": hands, "draw_pile": deck[HAND_SIZE * len(players):]}


def check_deal(players: list[str], rounds: int, deal: dict) -> dict[str, Any]:
    """A stacked deal checked and normalised: one entry (or null) per round from round 1."""
    if set(deal) != {"rounds"} or not isinstance(deal["rounds"], list):
        raise BadSetup(N_('a vampir deal is {"rounds": [{"hands": {...}, "draw_pile": [...]}, '
                          "...]}"))
    if len(deal["rounds"]) > rounds:
        raise BadSetup(N_("the deal covers %(n_rounds)s rounds; the game has %(rounds)s"),
                       n_rounds=len(deal['rounds']), rounds=rounds)
    return {"rounds": [None if entry is None else _check_round(players, number, entry)
                       for number, entry in enumerate(deal["rounds"], start=1)]}


def _check_round(players: list[str], number: int, entry: Any) -> dict[str, Any]:
    """One round of a stacked deal, checked and normalised (hands in seat order, canonical)."""
    where = Phrase(N_("deal round %(number)s"), number=number)
    if not isinstance(entry, dict) or set(entry) != {"hands", "draw_pile"}:
        raise BadSetup(N_('%(where)s must be {"hands": {name: [4 cards]}, "draw_pile": [cards]}'),
                       where=where)
    hands, pile = entry["hands"], entry["draw_pile"]
    if not isinstance(hands, dict) or set(hands) != set(players):
        raise BadSetup(N_("%(where)s: hands must name exactly the players %(players)s"),
                       where=where, players=', '.join(players))
    for p in players:
        if not isinstance(hands[p], list) or len(hands[p]) != HAND_SIZE:
            raise BadSetup(N_("%(where)s: %(p)s must be dealt exactly %(hand_size)s cards"),
                           where=where, p=p, hand_size=HAND_SIZE)
    if not isinstance(pile, list):
        raise BadSetup(N_("%(where)s: draw_pile must be a list of cards, top card first"),
                       where=where)
    cards = [c for p in players for c in hands[p]] + pile
    unknown = sorted({repr(c) for c in cards if not is_card(c)})
    if unknown:
        raise BadSetup(N_("%(where)s: %(unknown)s are not Vampir cards"), where=where,
                       unknown=', '.join(unknown))
    if Counter(cards) != Counter(SHUFFLED_DECK):
        extra = Counter(cards) - Counter(SHUFFLED_DECK)
        short = Counter(SHUFFLED_DECK) - Counter(cards)
        raise BadSetup(N_("%(where)s: hands and pile must be exactly the %(n_shuffled_deck)s "
                          "shuffled cards (too many: %(extra)s; missing: %(short)s)"), where=where,
                       n_shuffled_deck=len(SHUFFLED_DECK), extra=_tally(extra), short=_tally(short))
    return {"hands": {p: ordered(hands[p]) for p in players}, "draw_pile": list(pile)}


def _tally(counts: Counter) -> str:
    return ", ".join(f"{n}×{c}" for c, n in sorted(counts.items())) or "none"
