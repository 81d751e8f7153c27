"""Scenarios for the end of a round: VA-8 (when it ends), VA-9 (hands are out), VA-10 (losses
colour by colour) and VA-11 (points, totals, winners)."""

from __future__ import annotations

from domain.vampir.cards import missing_from

from .kit import (
    ANN,
    BEN,
    CAT,
    THREE,
    check_cards_accounted,
    deal,
    draw_and_discard_until_round_ends,
    new_table,
    play_script,
    round_deal,
    scripted_round,
)


def scored_round(events):
    """The RoundScored event among `events`."""
    return next(e for e in events if type(e).__name__ == "RoundScored")


def test_va8_va9_the_draw_taking_the_last_card_ends_the_round_at_once():
    table = new_table(seed=21, options={"rounds": 2})
    # Play 43 draws each followed by a discard; the pile (88 cards) then holds two.
    events = draw_and_discard_until_round_ends(table)
    types = table.types(events)
    assert types.count("Drew") == 44 and types.count("Discarded") == 43
    # Check the 44th draw (Ben's) ends the round at once: no discard, straight to the scoring.
    assert types[-3:] == ["Drew", "RoundScored", "RoundDealt"]
    last_draw, scored, dealt = events[-3:]
    assert last_draw.player == BEN and last_draw.draw_pile_size == 0
    assert scored.reason == "draw_pile_empty" and scored.ended_by == BEN
    # Check the cards in hand scored nothing (VA-9): nobody laid a hunt.
    assert scored.points == {ANN: 0, BEN: 0, CAT: 0}
    # Check round 2 is dealt afresh and Ben, one seat clockwise, starts it (VA-1).
    assert dealt.round == 2 and dealt.start == BEN and table.game.to_act == [BEN]
    assert table.game.full_state()["out"] == [] and len(table.game.pile) == 88
    check_cards_accounted(table)
    table.check_rebuilt()


def test_va8_on_a_stacked_deal_the_round_ends_with_the_draw_of_the_last_two_cards():
    hands = {ANN: ["pub1"] * 4, BEN: ["docks1"] * 4, CAT: ["church1"] * 4}
    table = new_table(seed=3, options={"rounds": 1}, deal=deal(round_deal(hands)))
    assert len(table.game.pile) == 88  # 106 cards - 6 under the locations - 12 dealt
    events = draw_and_discard_until_round_ends(table)
    types = table.types(events)
    # Check 44 draws of two empty the pile; the 44th (Ben's, turn 44 from Ann) ends the round
    # at once (VA-8): no discard follows it, the round is scored and the game (1 round) ends.
    assert types.count("Drew") == 44 and types.count("Discarded") == 43
    drew = [e for e in events if type(e).__name__ == "Drew"][-1]
    scored = scored_round(events)
    assert drew.player == BEN and drew.draw_pile_size == 0
    assert scored.reason == "draw_pile_empty" and scored.ended_by == BEN
    assert table.game.finished
    check_cards_accounted(table)
    table.check_rebuilt()


def test_va9_cards_left_in_hands_are_out_of_the_game():
    table = new_table(seed=22, options={"rounds": 1})
    draw_and_discard_until_round_ends(table)
    state = table.game.full_state()
    # Check every card held at the end went out: 12 dealt + 88 drawn - 43 discarded.
    assert all(hand == [] for hand in state["hands"].values())
    assert len(state["out"]) == 12 + 88 - 43
    # Check a three-way tie at 0 gives three winners (VA-11).
    assert table.game.scores == {ANN: 0, BEN: 0, CAT: 0} and table.game.winners == THREE
    check_cards_accounted(table)


def test_va8_showing_all_six_colours_ends_the_round_after_that_turn():
    def filler(player, card):
        return (player, "discard", card, card[:-1])

    ann = [("hunt", "castle", ["castle1"] * 3), ("hunt", "graveyard", ["graveyard1"] * 3),
           ("hunt", "madhouse", ["madhouse1"] * 3), ("hunt", "docks", ["docks1"] * 3),
           ("discard", "pub2", "pub"), ("hunt", "pub", ["pub1"] * 3),
           ("discard", "pub2", "pub"), ("discard", "pub2", "pub"),
           ("collect", "church", ["church1", "church1"])]
    ben = ["graveyard2"] * 4 + ["madhouse2"] * 4
    cat = ["docks2"] * 4 + ["castle2"] * 4
    turns = []
    for step, (b, c) in zip(ann, zip(ben + [None], cat + [None], strict=True), strict=True):
        turns.append((ANN, *step))
        if b is not None:
            turns += [filler(BEN, b), filler(CAT, c)]
    table = new_table(seed=4, options={"rounds": 1}, deal=deal(scripted_round(THREE, turns)))
    play_script(table, turns[:-1])
    # Check five colours shown do not end the round.
    assert len(table.game.hunts[ANN]) == 5 and not table.game.finished
    # Check Ann's collect at the church shows her sixth colour and ends the round there.
    events = play_script(table, turns[-1:])
    assert table.types(events) == ["Collected", "RoundScored", "GameFinished"]
    scored = events[1]
    assert scored.reason == "six_colours" and scored.ended_by == ANN
    # Check nobody else shows a hunt, so Ann loses nothing and scores her 18 heads (VA-10, VA-11).
    assert all(not lost for lost in scored.lost.values())
    assert scored.points == {ANN: 18, BEN: 0, CAT: 0} and table.game.winners == [ANN]
    check_cards_accounted(table)
    table.check_rebuilt()


def test_va10_nobody_loses_a_colour_that_somebody_does_not_show():
    turns = [(ANN, "hunt", "pub", ["pub1", "pub1", "pub1"]),
             (BEN, "hunt", "pub", ["pub2", "pub2", "pub2"]),
             (CAT, "hunt", "castle", ["castle1", "castle1", "castle1"])]
    table = new_table(seed=8, options={"rounds": 1}, deal=deal(scripted_round(THREE, turns)))
    play_script(table, turns)
    scored = scored_round(draw_and_discard_until_round_ends(table))
    # Check Cat shows no pub, so Ann keeps her 3 pub heads against Ben's 6; Cat keeps her castle.
    assert scored.heads == {ANN: {"pub": 3}, BEN: {"pub": 6}, CAT: {"castle": 3}}
    assert scored.lost["pub"] == [] and scored.lost["castle"] == []
    assert scored.points == {ANN: 3, BEN: 6, CAT: 3}
    assert table.game.winners == [BEN]


def test_va10_the_fewest_heads_lose_and_ties_all_lose():
    turns = [(ANN, "hunt", "castle", ["castle1", "castle1", "castle1"]),  # 3
             (BEN, "hunt", "castle", ["castle2", "castle1", "W"]),  # 4: a joker counts one
             (CAT, "hunt", "castle", ["castle1", "castle1", "W"]),  # 3
             (ANN, "hunt", "pub", ["pub2", "pub1", "pub1"]),  # 4
             (BEN, "hunt", "pub", ["pub1", "pub1", "W", "W"]),  # 4
             (CAT, "hunt", "pub", ["pub2", "pub1", "W"])]  # 4
    table = new_table(seed=9, options={"rounds": 1}, deal=deal(scripted_round(THREE, turns)))
    play_script(table, turns)
    scored = scored_round(draw_and_discard_until_round_ends(table))
    assert scored.heads[BEN] == {"castle": 4, "pub": 4}
    # Check Ann and Cat tie for the fewest castle heads and both lose them.
    assert scored.lost["castle"] == [ANN, CAT]
    # Check a tie of everybody in the pub: all lose (the ruling makes no exception).
    assert scored.lost["pub"] == [ANN, BEN, CAT]
    assert scored.points == {ANN: 0, BEN: 4, CAT: 0}
    # Check the lost hunts left the table and went out of the game.
    assert table.game.hunts == {ANN: {}, BEN: {"castle": ["castle1", "castle2", "W"]}, CAT: {}}
    lost = ["castle1"] * 5 + ["W"] + ["pub2", "pub1", "pub1", "pub1", "pub1", "W", "W"]
    lost += ["pub2", "pub1", "W"]
    assert missing_from(table.game.full_state()["out"], lost) == []
    check_cards_accounted(table)


def test_va11_one_point_per_head_and_a_tie_gives_several_winners():
    turns = [(ANN, "hunt", "castle", ["castle2", "castle2", "castle1"]),
             (BEN, "hunt", "docks", ["docks2", "docks2", "docks1"])]
    table = new_table(seed=10, options={"rounds": 1}, deal=deal(scripted_round(THREE, turns)))
    play_script(table, turns)
    draw_and_discard_until_round_ends(table)
    # Check 5 heads each for Ann and Ben, nothing lost (Cat shows neither colour): both win.
    assert table.game.scores == {ANN: 5, BEN: 5, CAT: 0}
    assert table.game.winners == [ANN, BEN]
    assert table.game.public_state()["last_round"]["points"] == {ANN: 5, BEN: 5, CAT: 0}
    table.check_rebuilt()
    # Fail to draw once the last round is over: the game is decided (VA-11).
    table.refuse(ANN, {"type": "draw"}, "VA-11")
