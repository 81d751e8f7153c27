"""Scenarios for hunts: VA-6 (what a hunt is) and VA-7 (a laid hunt is final; a new one of the
same colour replaces it)."""

from __future__ import annotations

from .kit import (
    ANN,
    BEN,
    CAT,
    check_cards_accounted,
    deal,
    draw_and_discard,
    new_table,
    round_deal,
)


def test_va6_three_cards_of_one_colour_jokers_filling_in():
    hands = {ANN: ["castle1", "W", "W", "W"], BEN: ["pub1"] * 4, CAT: ["docks1"] * 4}
    table = new_table(seed=2, deal=deal(round_deal(hands, ["castle2", "pub1"])))
    table.act(ANN, {"type": "draw"})
    # Fail to lay a hunt of two cards.
    table.refuse(ANN, {"type": "hunt", "cards": ["castle1", "castle2"], "colour": "castle"}, "VA-6")
    # Fail to lay a hunt of jokers only: it needs a real vampire.
    table.refuse(ANN, {"type": "hunt", "cards": ["W", "W", "W"], "colour": "castle"}, "VA-6")
    # Fail to mix colours in one hunt.
    table.refuse(ANN, {"type": "hunt", "cards": ["castle1", "pub1", "W"], "colour": "castle"},
                 "VA-6")
    # Fail to call castle vampires a pub hunt.
    table.refuse(ANN, {"type": "hunt", "cards": ["castle1", "castle2", "W"], "colour": "pub"},
                 "VA-6")
    # Check the legal hunts: castle with 1-2 real cards and jokers up to 3+ cards, pub likewise.
    hunts = [m["cards"] for m in table.game.legal_moves(ANN) if m["type"] == "hunt"]
    assert ["castle1", "castle2", "W"] in hunts and ["pub1", "W", "W"] in hunts
    assert ["W", "W", "W"] not in hunts and len(hunts) == len({tuple(h) for h in hunts})
    # Check three jokers may fill in around a single real vampire.
    table.act(ANN, {"type": "hunt", "cards": ["W", "castle2", "W", "W"], "colour": "castle"})
    assert table.game.hunts[ANN] == {"castle": ["castle2", "W", "W", "W"]}
    check_cards_accounted(table)


def test_va7_a_new_hunt_of_a_shown_colour_replaces_the_old_one():
    hands = {ANN: ["pub1", "pub1", "pub1", "castle1"], BEN: ["docks1"] * 4,
             CAT: ["church1"] * 4}
    top = ["pub2", "pub2", "madhouse1", "madhouse1", "graveyard1", "graveyard1",
           "W", "docks2", "madhouse1", "madhouse1", "graveyard1", "graveyard1", "docks1", "docks1"]
    table = new_table(seed=2, deal=deal(round_deal(hands, top)))
    # Check Ann lays a pub hunt of three one-head vampires.
    table.act(ANN, {"type": "draw"})
    table.act(ANN, {"type": "hunt", "cards": ["pub1", "pub1", "pub1"], "colour": "pub"})
    draw_and_discard(table)
    draw_and_discard(table)
    # Check her new pub hunt first removes the old one from the game.
    table.act(ANN, {"type": "draw"})
    (hunted,) = table.act(ANN, {"type": "hunt", "cards": ["pub2", "pub2", "W"], "colour": "pub"})
    assert hunted.replaced == ["pub1", "pub1", "pub1"]
    assert table.game.hunts[ANN] == {"pub": ["pub2", "pub2", "W"]}
    assert table.game.out == ["pub1", "pub1", "pub1"]
    assert table.game.public_state()["hunts"][ANN] == {"pub": ["pub2", "pub2", "W"]}
    check_cards_accounted(table)
    draw_and_discard(table)
    draw_and_discard(table)
    table.act(ANN, {"type": "draw"})
    # Fail to take cards back out of a laid hunt into a new one.
    table.refuse(ANN, {"type": "hunt", "cards": ["pub2", "pub2", "W"], "colour": "pub"}, "VA-7")
    # Check a hunt of another colour lies beside the pub hunt, which stays as it was.
    table.act(ANN, {"type": "hunt", "cards": ["docks1", "docks2", "docks1"], "colour": "docks"})
    assert table.game.hunts[ANN] == {"docks": ["docks1", "docks1", "docks2"],
                                     "pub": ["pub2", "pub2", "W"]}
    table.check_rebuilt()
