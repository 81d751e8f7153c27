"""Dealing a round: from the seed, or from a stacked deal checked before the game starts."""

from __future__ import annotations

from typing import Any

from domain.core import BadSetup, shuffled
from domain.core.words import N_
from domain.voodoo_prince.cards import COLOURS, HAND_SIZE, TOP, card_order, deck, sort_cards

KEY = "voodoo-prince"


def trump_label() -> str:
    """The shuffle label of round 1's trump indicators (VP-2)."""
    return f"{KEY}/trump/1"


def round_label(round_no: int) -> str:
    """The shuffle label of a round's deal."""
    return f"{KEY}/round/{round_no}"


def drawn_trump(seed: int | str) -> str:
    """Round 1's trump: the top of the five shuffled trump indicators (VP-2)."""
    return shuffled(seed, trump_label(), list(COLOURS))[0]


def seeded_hands(seed: int | str, round_no: int, players: list[str]) -> tuple[dict, list]:
    """Hands and undealt cards of a seeded round.

    The deck in play (canonical order) is shuffled; seat 0 takes the first hand-size cards,
    seat 1 the next, and so on; the rest is out for the round (VP-4) in shuffled order.
    """
    n = len(players)
    size = HAND_SIZE[n]
    cards = shuffled(seed, round_label(round_no), list(deck(n)))
    hands = {p: sort_cards(cards[i * size:(i + 1) * size], n) for i, p in enumerate(players)}
    return hands, cards[n * size:]


def stacked_undealt(hands: dict[str, list[str]], player_count: int) -> list[str]:
    """The cards a stacked round leaves out (VP-4), in canonical order."""
    dealt = {c for hand in hands.values() for c in hand}
    return [c for c in deck(player_count) if c not in dealt]


def check_deal(players: list[str], options: dict[str, Any], deal: dict) -> dict:
    """A stacked deal, checked and normalised: ``{"rounds": [entry or None, …]}``."""
    unknown = sorted(set(deal) - {"rounds"})
    if unknown:
        raise BadSetup(N_("a voodoo-prince deal has only 'rounds', not %(unknown)s"),
                       unknown=', '.join(unknown))
    rounds = deal.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        raise BadSetup(N_("deal 'rounds' must be a non-empty list of rounds"))
    if len(rounds) > options["rounds"]:
        raise BadSetup(N_("the deal has %(n_rounds)s rounds but the game has %(rounds)s"),
                       n_rounds=len(rounds), rounds=options['rounds'])
    return {"rounds": [_check_round(players, i + 1, entry) for i, entry in enumerate(rounds)]}


def _check_round(players: list[str], round_no: int, entry: Any) -> dict | None:
    if entry is None:  # this round is dealt from the seed
        return None
    if not isinstance(entry, dict):
        raise BadSetup(N_("deal round %(round_no)s must be an object with 'hands'"),
                       round_no=round_no)
    allowed = {"hands", "trump"} if round_no == 1 else {"hands"}
    unknown = sorted(set(entry) - allowed)
    if unknown:
        if "trump" in unknown:
            raise BadSetup(N_("deal round %(round_no)s has no field %(unknown)s (from round 2 on "
                              "the dealer chooses trump, VP-3)"), round_no=round_no,
                           unknown=", ".join(unknown))
        raise BadSetup(N_("deal round %(round_no)s has no field %(unknown)s"), round_no=round_no,
                       unknown=", ".join(unknown))
    out: dict[str, Any] = {"hands": _check_hands(players, round_no, entry.get("hands"))}
    if "trump" in entry:
        if entry["trump"] not in COLOURS:
            raise BadSetup(N_("deal round 1 trump must be one of %(colours)s"),
                           colours=', '.join(COLOURS))
        out["trump"] = entry["trump"]
    return out


def _check_hands(players: list[str], round_no: int, hands: Any) -> dict[str, list[str]]:
    n = len(players)
    size, valid = HAND_SIZE[n], card_order(n)
    if not isinstance(hands, dict) or set(hands) != set(players):
        raise BadSetup(N_("deal round %(round_no)s needs 'hands' for exactly %(players)s"),
                       round_no=round_no, players=', '.join(players))
    seen: set[str] = set()
    out = {}
    for p in players:
        hand = hands[p]
        if not isinstance(hand, list) or len(hand) != size:
            raise BadSetup(N_("deal round %(round_no)s: %(p)s must hold %(size)s cards"),
                           round_no=round_no, p=p, size=size)
        for card in hand:
            if not isinstance(card, str) or card not in valid:
                raise BadSetup(N_("deal round %(round_no)s: %(card)r is not a card of a "
                                  "%(n)s-player game (colours %(colours)s, values 0–%(top)s)"),
                               round_no=round_no, card=card, n=n, colours=''.join(COLOURS),
                               top=TOP[n])
            if card in seen:
                raise BadSetup(N_("deal round %(round_no)s: %(card)s is dealt twice"),
                               round_no=round_no, card=card)
            seen.add(card)
        out[p] = sort_cards(hand, n)
    return out
