"""Tricks: following suit, trumping, the voodoo doll 0, the splitting 5 and 7, who leads (VP-5 … VP-9)."""

from __future__ import annotations

import pytest

from domain.core import BadCommand, NotYourTurn
from domain.voodoo_prince.cards import trick_winner

from .kit import FOUR, play, play_trick, script, table

PENTA = ["Ann", "Ben", "Cat", "Dan", "Eve"]
TRIO = ["Ann", "Ben", "Cat"]


def won(events) -> tuple[str, int]:
    """The winner and count of the TrickWon among `events`."""
    (trick,) = [e for e in events if type(e).__name__ == "TrickWon"]
    return trick.winner, trick.count


def test_vp5_leader_plays_any_card_followers_must_follow():
    t = table(FOUR, {"Marie": ["R4", "P9"], "Lukas": ["R3", "G1"], "Leon": ["G12"],
                     "Nina": ["B2"]}, avoid={"Leon": "R", "Nina": "R"})
    # Check the leader may play any card of her hand
    assert [m["card"] for m in t.game.legal_moves("Marie")] == t.game.hands["Marie"]  # hand order
    play(t, "Marie", "R4")
    # Check Lukas may play only his red cards
    reds = [c for c in t.game.hands["Lukas"] if c[0] == "R"]
    assert sorted(m["card"] for m in t.game.legal_moves("Lukas")) == sorted(reds)
    # Fail to discard green while holding red
    refusal = t.refuse("Lukas", {"type": "play", "card": "G1"}, "VP-5")
    assert refusal.message.startswith("Lukas must follow red and holds R3")
    # Fail to play a card Lukas does not hold, or to play out of turn
    t.refuse("Lukas", {"type": "play", "card": "P9"}, "VP-5")
    with pytest.raises(NotYourTurn, match=r"^It is not Leon's turn; waiting for Lukas\. \(VP-5\)$"):
        t.game.execute("Leon", {"type": "play", "card": "G12"})
    # Fail to send a card code that does not exist
    with pytest.raises(BadCommand, match="'R99' is not a card of a 4-player game"):
        t.game.execute("Lukas", {"type": "play", "card": "R99"})
    play(t, "Lukas", "R3")
    # Check Leon, void in red, may play any card: a discard or a trump
    assert len(t.game.legal_moves("Leon")) == 13
    play(t, "Leon", "G12")
    t.check_rebuilt()


def test_vp6_rulebook_example_nina_trumps_with_blue_2():
    # In a 4-player game, blue is trump. Marie red 4, Lukas red 3, Leon (no red) green 12,
    # Nina (no red) blue 2: Nina takes the trick and leads the next one.
    t = table(FOUR, {"Marie": ["R4"], "Lukas": ["R3"], "Leon": ["G12"], "Nina": ["B2"]},
              trump="B", avoid={"Leon": "R", "Nina": "R"})
    events = play_trick(t, [("Marie", "R4"), ("Lukas", "R3"), ("Leon", "G12"), ("Nina", "B2")])
    assert won(events) == ("Nina", 1)
    assert t.game.public_state()["tricks"] == {"Marie": 0, "Lukas": 0, "Leon": 0, "Nina": 1}
    assert t.game.public_state()["trick"] == []
    assert t.game.to_act == ["Nina"]
    assert t.game.public_state()["leader"] == "Nina"


def test_vp6_without_trump_the_highest_of_the_led_colour_wins():
    t = table(FOUR, {"Marie": ["R4"], "Lukas": ["R3"], "Leon": ["G12"], "Nina": ["R2"]},
              trump="B", avoid={"Leon": "RB"})
    # Check Leon's green 12 is a mere discard: Marie's red 4 wins
    events = play_trick(t, [("Marie", "R4"), ("Lukas", "R3"), ("Leon", "G12"), ("Nina", "R2")])
    assert won(events) == ("Marie", 1)
    assert t.game.public_state()["last_trick"]["card"] == "R4"


def test_vp6_highest_of_several_trumps_wins():
    t = table(FOUR, {"Marie": ["R4"], "Lukas": ["B9"], "Leon": ["B3"], "Nina": ["R12"]},
              trump="B", avoid={"Lukas": "R", "Leon": "R"})
    events = play_trick(t, [("Marie", "R4"), ("Lukas", "B9"), ("Leon", "B3"), ("Nina", "R12")])
    assert won(events) == ("Lukas", 1)


def test_vp7_rulebook_example_blue_0_outranks_blue_12():
    # In a 4-player game the 12 is the highest card: blue 0 and blue 12 in one trick, red trump.
    t = table(FOUR, {"Marie": ["B12"], "Lukas": ["B0"], "Leon": ["B3"], "Nina": ["B4"]},
              trump="R")
    events = play_trick(t, [("Marie", "B12"), ("Lukas", "B0"), ("Leon", "B3"), ("Nina", "B4")])
    assert won(events) == ("Lukas", 1)


def test_vp7_rulebook_example_a_red_trump_beats_the_blue_0():
    t = table(FOUR, {"Marie": ["B12"], "Lukas": ["B0"], "Leon": ["R2"], "Nina": ["B4"]},
              trump="R", avoid={"Leon": "B"})
    events = play_trick(t, [("Marie", "B12"), ("Lukas", "B0"), ("Leon", "R2"), ("Nina", "B4")])
    assert won(events) == ("Leon", 1)


def test_vp7_rulebook_example_red_0_beats_red_12_in_trump():
    t = table(FOUR, {"Marie": ["B3"], "Lukas": ["R12"], "Leon": ["R0"], "Nina": ["B4"]},
              trump="R", avoid={"Lukas": "B", "Leon": "B"})
    events = play_trick(t, [("Marie", "B3"), ("Lukas", "R12"), ("Leon", "R0"), ("Nina", "B4")])
    assert won(events) == ("Leon", 1)


def test_vp7_without_the_top_card_the_0_is_lowest():
    t = table(FOUR, {"Marie": ["B0"], "Lukas": ["B1"], "Leon": ["B11"], "Nina": ["G12"]},
              trump="R", avoid={"Nina": "BR"})
    # Check the 0 led under another colour's 12 is just the lowest blue
    events = play_trick(t, [("Marie", "B0"), ("Lukas", "B1"), ("Leon", "B11"), ("Nina", "G12")])
    assert won(events) == ("Leon", 1)


def test_vp7_the_top_card_depends_on_the_player_count():
    # Check with five players the top card is the 15: a 12 does not wake the 0
    t = table(PENTA, {"Ann": ["G0"], "Ben": ["G12"], "Cat": ["G1"], "Dan": ["G2"],
                      "Eve": ["G3"]}, trump="R")
    events = play_trick(t, [("Ann", "G0"), ("Ben", "G12"), ("Cat", "G1"), ("Dan", "G2"),
                            ("Eve", "G3")])
    assert won(events) == ("Ben", 1)
    # Check with five players the 0 beats the 15; with three, it beats the 10
    assert trick_winner(["G15", "G0", "G14", "G13", "G11"], "R", 15) == 1
    t = table(TRIO, {"Ann": ["Y10"], "Ben": ["Y9"], "Cat": ["Y0"]}, trump="P")
    events = play_trick(t, [("Ann", "Y10"), ("Ben", "Y9"), ("Cat", "Y0")])
    assert won(events) == ("Cat", 1)


def test_vp8_rulebook_example_nina_splits_with_blue_5_and_finishes_with_4():
    # 4 players, blue trump. Nina holds 2 tricks; Marie leads yellow 4, Lukas yellow 2, Leon
    # yellow 8, Nina (no yellow) trumps with blue 5: two tricks, 4 in all, and she is out.
    wanted = {"Marie": ["G1", "G4", "R10", "Y4"], "Lukas": ["G2", "G6", "R3", "Y2"],
              "Leon": ["G3", "G8", "R4", "Y8"], "Nina": ["G10", "G11", "R2", "B5"]}
    t = table(FOUR, wanted, trump="B", avoid={"Nina": "Y"})
    # Check Nina takes two single tricks, then Marie one
    play_trick(t, [("Marie", "G1"), ("Lukas", "G2"), ("Leon", "G3"), ("Nina", "G10")])
    play_trick(t, [("Nina", "G11"), ("Marie", "G4"), ("Lukas", "G6"), ("Leon", "G8")])
    play_trick(t, [("Nina", "R2"), ("Marie", "R10"), ("Lukas", "R3"), ("Leon", "R4")])
    assert t.game.public_state()["tricks"] == {"Marie": 1, "Lukas": 0, "Leon": 0, "Nina": 2}
    # Check the blue 5 wins and splits the trick: Nina has 4, one more than 3 needed
    events = play_trick(t, [("Marie", "Y4"), ("Lukas", "Y2"), ("Leon", "Y8"), ("Nina", "B5")])
    assert won(events) == ("Nina", 2)
    assert t.types(events)[-2:] == ["TrickWon", "PlayerFinished"]
    assert t.game.public_state()["tricks"]["Nina"] == 4
    # Check she scores the others' tricks (Marie's 1) and Marie, next clockwise, leads
    assert events[-1].points == 1
    assert t.game.scores["Nina"] == 1
    assert t.game.public_state()["out"] == ["Nina"]
    assert t.game.to_act == ["Marie"]
    t.check_rebuilt()


def test_vp8_a_5_or_7_merely_in_the_trick_does_not_split_it():
    t = table(FOUR, {"Marie": ["P5"], "Lukas": ["P7"], "Leon": ["P8"], "Nina": ["B7"]},
              trump="B", avoid={"Nina": "P"})
    # Check the purple 5 and 7 lose to Nina's trump 7, which splits
    events = play_trick(t, [("Marie", "P5"), ("Lukas", "P7"), ("Leon", "P8"), ("Nina", "B7")])
    assert won(events) == ("Nina", 2)
    # Check a yellow 5 and 7 that sit in a trick won by Leon's 9 make it one trick
    t2 = table(FOUR, {"Marie": ["Y5"], "Lukas": ["Y7"], "Leon": ["Y9"], "Nina": ["Y1"]})
    events = play_trick(t2, [("Marie", "Y5"), ("Lukas", "Y7"), ("Leon", "Y9"), ("Nina", "Y1")])
    assert won(events) == ("Leon", 1)
    # Check a non-trump 7 that wins its colour splits too
    t3 = table(FOUR, {"Marie": ["Y3"], "Lukas": ["Y7"], "Leon": ["Y6"], "Nina": ["Y1"]})
    events = play_trick(t3, [("Marie", "Y3"), ("Lukas", "Y7"), ("Leon", "Y6"), ("Nina", "Y1")])
    assert won(events) == ("Lukas", 2)


def test_vp9_the_winner_leads_the_next_trick():
    tricks, wanted = script(FOUR, ["Leon", "Nina", "Lukas"], trump="P")
    t = table(FOUR, wanted, trump="P")
    for trick, winner in zip(tricks, ["Leon", "Nina", "Lukas"], strict=True):
        play_trick(t, trick)
        assert t.game.to_act == [winner]
        assert t.game.public_state()["leader"] == winner


def test_vp9_after_a_finisher_the_next_active_player_clockwise_leads():
    # Lukas finishes first (Leon, next to him, leads); later Marie finishes: Lukas, next to
    # her, is out, so Leon leads again.
    winners = ["Lukas"] * 3 + ["Marie"] * 3
    tricks, wanted = script(FOUR, winners, trump="P")
    t = table(FOUR, wanted, trump="P")
    for trick in tricks[:3]:
        play_trick(t, trick)
    assert t.game.public_state()["out"] == ["Lukas"]
    assert t.game.to_act == ["Leon"]
    for trick in tricks[3:]:
        play_trick(t, trick)
    assert t.game.public_state()["out"] == ["Lukas", "Marie"]
    assert t.game.to_act == ["Leon"]
    assert t.game.public_state()["leader"] == "Leon"
