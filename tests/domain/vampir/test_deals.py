"""Seeded and stacked deals: recorded in events, reproducible, checked before a game starts."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.core import BadSetup, shuffled
from domain.vampir import GAME
from domain.vampir.cards import SHUFFLED_DECK, ordered

from .kit import (
    ANN,
    BEN,
    CAT,
    THREE,
    deal,
    draw_and_discard_until_round_ends,
    new_table,
    round_deal,
)

HANDS = {ANN: ["pub1", "pub2", "W", "castle1"], BEN: ["docks1"] * 4, CAT: ["church2"] * 4}


def dealt(table):
    """The RoundDealt events so far."""
    return [e for e in table.events if type(e).__name__ == "RoundDealt"]


def test_same_seed_same_deal_other_seed_other_deal():
    # Check a seed always deals the same hands and pile, recorded in the RoundDealt event.
    first, again, other = new_table(seed="s1"), new_table(seed="s1"), new_table(seed="s2")
    assert first.game.full_state() == again.game.full_state()
    assert first.game.hands != other.game.hands or first.game.pile != other.game.pile
    (event,) = dealt(first)
    assert event.hands == first.game.hands and event.draw_pile == first.game.pile
    assert event.draw_pile_size == 88 and event.start == ANN


def test_seeded_deal_is_the_documented_shuffle():
    # Check round 1 is gruft-shuffle-v1 of the 100 cards, label vampir/round/1, 4 cards a seat.
    table = new_table(seed=99)
    deck = shuffled(99, "vampir/round/1", SHUFFLED_DECK)
    assert table.game.hands == {p: ordered(deck[4 * i:4 * i + 4]) for i, p in enumerate(THREE)}
    assert table.game.pile == deck[12:]


def test_stacked_round_then_seeded_rounds():
    stacked = round_deal(HANDS, ["W", "W"])
    table = new_table(seed=5, options={"rounds": 2}, deal=deal(stacked))
    # Check round 1 is the stacked one, hands in canonical order, pile as given.
    assert table.game.hands[ANN] == ["castle1", "pub1", "pub2", "W"]
    assert table.game.pile == stacked["draw_pile"] and table.game.pile[:2] == ["W", "W"]
    draw_and_discard_until_round_ends(table)
    # Check round 2, with no entry in the deal, comes from the seed.
    second = dealt(table)[-1]
    deck = shuffled(5, "vampir/round/2", SHUFFLED_DECK)
    assert second.round == 2 and second.draw_pile == deck[12:]
    # Check a null entry also means "from the seed".
    skipped = new_table(seed=5, options={"rounds": 2}, deal=deal(None, stacked))
    first = shuffled(5, "vampir/round/1", SHUFFLED_DECK)
    assert dealt(skipped)[0].draw_pile == first[12:]
    assert skipped.game.deal == {"rounds": [None, {"hands": {p: ordered(h) for p, h in HANDS.items()},
                                                     "draw_pile": stacked["draw_pile"]}]}


def bad(change):
    entry = round_deal(HANDS)
    change(entry)
    return entry


@pytest.mark.parametrize(("stack", "message"), [
    ({"hands": {}}, "rounds"),
    ({"rounds": {}}, "rounds"),
    ({"rounds": [None, None, None, None]}, "covers 4 rounds"),
    ({"rounds": [{"hands": HANDS}]}, "draw_pile"),
    ({"rounds": [bad(lambda e: e["hands"].pop(CAT))]}, "exactly the players"),
    ({"rounds": [bad(lambda e: e["hands"][ANN].append("W"))]}, "exactly 4 cards"),
    ({"rounds": [bad(lambda e: e["draw_pile"].__setitem__(0, "pub3"))]}, "not Vampir cards"),
    ({"rounds": [bad(lambda e: e["draw_pile"].__setitem__(0, "W"))]}, "exactly the 100"),
    ({"rounds": [bad(lambda e: e["draw_pile"].pop())]}, "missing"),
    ({"rounds": [bad(lambda e: e.__setitem__("draw_pile", "W"))]}, "draw_pile"),
])
def test_stacked_deal_must_be_the_hundred_shuffled_cards(stack, message):
    # Fail to start from a malformed or impossible deal; the sentence says what is wrong.
    with pytest.raises(BadSetup, match=message):
        GAME.start(THREE, seed=1, deal=stack)


def test_a_stacked_round_holds_the_shuffled_cards_exactly():
    entry = round_deal(HANDS)
    # Check the helper's deal is the 100 shuffled cards (six one-head cards lie at the locations).
    cards = [c for h in entry["hands"].values() for c in h] + entry["draw_pile"]
    assert Counter(cards) == Counter(SHUFFLED_DECK) and len(cards) == 100
    assert new_table(deal=deal(entry)).game.full_state()["draw_pile_size"] == 88
