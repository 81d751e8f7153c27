"""Scenarios for setup and the turn: VA-1 (seats, rounds), VA-2 (draw), VA-3 (discard),
VA-4 (hunt after a draw) and VA-5 (collect). Every refusal is checked to change nothing."""

from __future__ import annotations

import pytest

from domain.core import BadCommand, BadSetup
from domain.vampir import GAME
from domain.vampir.cards import COLOURS, colour_of

from .kit import (
    ANN,
    BEN,
    CAT,
    DAN,
    THREE,
    check_cards_accounted,
    deal,
    draw_and_discard_until_round_ends,
    new_table,
    play_script,
    round_deal,
    scripted_round,
)


def test_va1_setup_starting_cards_hands_pile_and_first_seat():
    table = new_table(seed=7)
    state = table.game.full_state()
    # Check one one-head vampire of each colour lies under its location.
    assert state["locations"] == {c: [c + "1"] for c in COLOURS}
    # Check each player holds 4 cards, the rest (100 - 12) is the draw pile, seat 0 starts.
    assert [len(state["hands"][p]) for p in THREE] == [4, 4, 4]
    assert len(state["draw_pile"]) == 88 == state["draw_pile_size"]
    assert table.game.to_act == [ANN] and state["round"] == 1 and state["rounds"] == 3
    assert table.game.scores == {ANN: 0, BEN: 0, CAT: 0}
    check_cards_accounted(table)


@pytest.mark.parametrize("players", [[ANN, BEN], [ANN, BEN, CAT, DAN, "Eve", "Fay"]])
def test_va1_three_to_five_players(players):
    # Fail to start Vampir with 2 or 6 players.
    with pytest.raises(BadSetup, match="3 to 5 players"):
        GAME.start(players, seed=1)


@pytest.mark.parametrize("rounds", [0, 11, "3", True])
def test_va1_rounds_option_is_one_to_ten(rounds):
    # Fail to start with a rounds option outside 1-10.
    with pytest.raises(BadSetup, match="rounds"):
        GAME.start(THREE, seed=1, options={"rounds": rounds})


def test_va1_turns_go_clockwise_from_seat_zero():
    table = new_table(seed=3)
    # Fail to draw out of turn: Ann (seat 0) starts round 1.
    table.refuse(BEN, {"type": "draw"}, "VA-1")
    # Check Ann's full turn passes the turn to Ben, then Cat, then back to Ann.
    for player, following in [(ANN, BEN), (BEN, CAT), (CAT, ANN)]:
        assert table.game.to_act == [player]
        table.act(player, {"type": "draw"})
        # Fail to draw for the next player while this one is still to discard.
        table.refuse(following, {"type": "draw"}, "VA-1")
        card = table.game.hands[player][0]
        table.act(player, {"type": "discard", "card": card, "location": colour_of(card) or "pub"})
    assert table.game.to_act == [ANN]
    assert table.game.legal_moves(BEN) == [] and table.game.legal_moves(CAT) == []


def test_va1_start_seat_moves_clockwise_and_scores_add_up():
    # Each round its start player lays one pub hunt on the first turn; rounds end by drawing out.
    first = [(ANN, "hunt", "pub", ["pub2", "pub2", "pub1"])]
    second = [(BEN, "hunt", "pub", ["pub2", "pub1", "pub1"])]
    third = [(CAT, "hunt", "pub", ["pub1", "pub1", "W"])]
    table = new_table(seed=11, deal=deal(scripted_round(THREE, first), scripted_round(
        THREE, second), scripted_round(THREE, third)))
    for number, (script, starter, heads) in enumerate(
            [(first, ANN, 5), (second, BEN, 4), (third, CAT, 3)], start=1):
        # Check round `number` starts at the next seat clockwise (VA-1).
        assert table.game.round == number and table.game.to_act == [starter]
        play_script(table, script)
        events = draw_and_discard_until_round_ends(table)
        scored = next(e for e in events if type(e).__name__ == "RoundScored")
        # Check only the starter scores: nobody else shows pub, so nobody loses it (VA-10).
        assert scored.points == {p: heads if p == starter else 0 for p in THREE}
    # Check the scores add up over the rounds and the best total wins (VA-11).
    assert table.game.finished
    assert table.game.scores == {ANN: 5, BEN: 4, CAT: 3}
    assert table.game.public_state()["round_points"] == [
        {ANN: 5, BEN: 0, CAT: 0}, {ANN: 0, BEN: 4, CAT: 0}, {ANN: 0, BEN: 0, CAT: 3}]
    assert table.game.winners == [ANN]
    table.check_rebuilt()


def stacked(hands: dict[str, list[str]], top: list[str], **options):
    """A three-player table whose first round is stacked."""
    return new_table(seed=5, options=options or None, deal=deal(round_deal(hands, top)))


HANDS = {
    ANN: ["castle1", "pub1", "pub1", "W"],
    BEN: ["castle2", "docks1", "church1", "W"],
    CAT: ["madhouse1", "madhouse2", "graveyard1", "W"],
}


def test_va2_draw_takes_the_top_two_cards():
    table = stacked(HANDS, ["pub2", "docks2", "church2", "church2"])
    # Check Ann's draw brings her the top two cards of the pile.
    (drew,) = table.act(ANN, {"type": "draw"})
    assert drew.cards == ["pub2", "docks2"] and drew.draw_pile_size == 86
    assert table.game.hands[ANN] == ["castle1", "docks2", "pub1", "pub1", "pub2", "W"]
    assert table.game.pile[:2] == ["church2", "church2"]
    # Fail to draw a second time in the same turn.
    table.refuse(ANN, {"type": "draw"}, "VA-2")
    # Fail to collect after drawing: a turn is a draw or a collect, never both.
    table.refuse(ANN, {"type": "collect", "location": "pub", "cards": ["pub1", "pub1"]}, "VA-5")
    # Check her legal moves are now only discards and hunts.
    assert {m["type"] for m in table.game.legal_moves(ANN)} == {"discard", "hunt"}


def test_va2_discard_and_hunt_only_follow_a_draw():
    table = stacked(HANDS, [])
    # Fail to discard or hunt before drawing.
    table.refuse(ANN, {"type": "discard", "card": "pub1"}, "VA-2")
    table.refuse(ANN, {"type": "hunt", "cards": ["pub1", "pub1", "W"], "colour": "pub"}, "VA-2")
    # Check the legal moves at the start of a turn: the draw and collects (no discard, no hunt).
    assert {m["type"] for m in table.game.legal_moves(ANN)} == {"draw", "collect"}


def test_va3_discard_under_the_location_of_its_colour():
    table = stacked(HANDS, ["pub2", "docks2", "church2", "church2", "castle2", "pub2"])
    # Check Ann discards a pub1 under the pub, naming no location.
    table.act(ANN, {"type": "draw"})
    (discarded,) = table.act(ANN, {"type": "discard", "card": "pub1"})
    assert discarded.location == "pub"
    assert table.game.locations["pub"] == ["pub1", "pub1"]
    assert table.game.hands[ANN] == ["castle1", "docks2", "pub1", "pub2", "W"]
    # Check Ben may name the location of his card's colour, and may discard a card just drawn.
    table.act(BEN, {"type": "draw"})
    table.act(BEN, {"type": "discard", "card": "church2", "location": "church"})
    assert table.game.locations["church"] == ["church1", "church2"]
    table.act(CAT, {"type": "draw"})
    # Fail to put a vampire under another colour's location.
    table.refuse(CAT, {"type": "discard", "card": "madhouse2", "location": "pub"}, "VA-3")
    # Fail to discard a joker without saying where it goes.
    table.refuse(CAT, {"type": "discard", "card": "W"}, "VA-3")
    # Fail to discard a card Cat does not hold.
    table.refuse(CAT, {"type": "discard", "card": "docks2", "location": "docks"}, "VA-3")
    # Fail to send a card or a location that does not exist in Vampir (400, no ruling).
    with pytest.raises(BadCommand, match="'pub3' is not a Vampir card"):
        table.game.execute(CAT, {"type": "discard", "card": "pub3"})
    with pytest.raises(BadCommand, match="field 'location' must be one of"):
        table.game.execute(CAT, {"type": "discard", "card": "W", "location": "attic"})
    # Check the joker may go under any of the six locations, and Cat puts it under the docks.
    jokers = [m for m in table.game.legal_moves(CAT) if m["type"] == "discard" and m["card"] == "W"]
    assert sorted(m["location"] for m in jokers) == sorted(COLOURS)
    table.act(CAT, {"type": "discard", "card": "W", "location": "docks"})
    assert table.game.locations["docks"] == ["docks1", "W"]
    assert table.game.to_act == [ANN]
    check_cards_accounted(table)


def test_va4_hunt_from_the_hand_with_the_new_cards():
    table = stacked(HANDS, ["pub2", "docks2"])
    table.act(ANN, {"type": "draw"})
    # Fail to hunt with a card Ann does not hold (a second joker).
    table.refuse(ANN, {"type": "hunt", "cards": ["pub1", "W", "W"], "colour": "pub"}, "VA-4")
    # Check Ann lays a pub hunt with the pub2 she just drew, the cards in any order.
    (hunted,) = table.act(ANN, {"type": "hunt", "cards": ["W", "pub2", "pub1", "pub1"],
                                "colour": "pub"})
    assert hunted.cards == ["pub1", "pub1", "pub2", "W"] and hunted.replaced == []
    assert table.game.hunts[ANN] == {"pub": ["pub1", "pub1", "pub2", "W"]}
    assert table.game.hands[ANN] == ["castle1", "docks2"]
    assert table.game.to_act == [BEN]
    check_cards_accounted(table)


def test_va5_collect_every_card_under_a_location_into_a_hunt():
    hands = {ANN: ["castle1", "pub1", "pub1", "W"], BEN: ["pub2", "docks1", "church1", "W"],
             CAT: ["pub2", "castle2", "W", "W"]}
    table = stacked(hands, ["docks2", "church2", "graveyard2", "madhouse2", "castle1", "W"])
    # Ann and Ben feed the pub: a pub1, then a joker laid there.
    table.act(ANN, {"type": "draw"})
    table.act(ANN, {"type": "discard", "card": "pub1"})
    table.act(BEN, {"type": "draw"})
    table.act(BEN, {"type": "discard", "card": "W", "location": "pub"})
    assert table.game.locations["pub"] == ["pub1", "pub1", "W"]
    # Check Cat's collect lists: she may take the pub with nothing added or with her pub2/jokers.
    collects = [m for m in table.game.legal_moves(CAT) if m["type"] == "collect"]
    assert {"type": "collect", "location": "pub", "cards": []} in collects
    assert {"type": "collect", "location": "castle", "cards": ["castle2", "W"]} in collects
    # Fail to add a castle card to a pub collect: the hunt is of the location's colour.
    table.refuse(CAT, {"type": "collect", "location": "pub", "cards": ["castle2"]}, "VA-5")
    # Fail to add a card Cat does not hold.
    table.refuse(CAT, {"type": "collect", "location": "pub", "cards": ["pub1"]}, "VA-5")
    # Fail to collect the castle with too few cards for a hunt (castle1 + castle2): no hunt
    # (VA-6) can be made, so the collect is illegal (VA-5).
    table.refuse(CAT, {"type": "collect", "location": "castle", "cards": ["castle2"]}, "VA-5")
    # Check Cat collects the pub without drawing: the three cards become her hunt.
    pile = len(table.game.pile)
    (collected,) = table.act(CAT, {"type": "collect", "location": "pub"})
    assert collected.taken == ["pub1", "pub1", "W"] and collected.cards == []
    assert table.game.hunts[CAT] == {"pub": ["pub1", "pub1", "W"]}
    assert table.game.locations["pub"] == [] and len(table.game.pile) == pile
    assert table.game.hands[CAT] == ["castle2", "pub2", "W", "W"]
    # Fail to collect the pub again: no card lies under it now.
    table.refuse(ANN, {"type": "collect", "location": "pub", "cards": ["pub1"]}, "VA-5")
    assert all(m.get("location") != "pub" for m in table.game.legal_moves(ANN))
    # Ann lays a joker under the empty pub; Ben passes with a discard.
    table.act(ANN, {"type": "draw"})
    table.act(ANN, {"type": "discard", "card": "W", "location": "pub"})
    table.act(BEN, {"type": "draw"})
    table.act(BEN, {"type": "discard", "card": "docks1"})
    # Fail to collect the joker with only jokers added: a hunt needs a real vampire (VA-6), so
    # the collect is illegal (VA-5).
    table.refuse(CAT, {"type": "collect", "location": "pub", "cards": ["W", "W"]}, "VA-5")
    # Check Cat collects it with her pub2 and a joker, replacing her old pub hunt (VA-7).
    (collected,) = table.act(CAT, {"type": "collect", "location": "pub", "cards": ["W", "pub2"]})
    assert collected.replaced == ["pub1", "pub1", "W"]
    assert table.game.hunts[CAT] == {"pub": ["pub2", "W", "W"]}
    assert table.game.out == ["pub1", "pub1", "W"]
    check_cards_accounted(table)
    table.check_rebuilt()
