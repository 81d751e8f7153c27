"""Setup, rounds, trump and the cards in play: VP-1 … VP-4, and the stacked deal."""

from __future__ import annotations

import re

import pytest

from domain.core import BadCommand, BadSetup, NotYourTurn, shuffled
from domain.voodoo_prince import GAME
from domain.voodoo_prince.cards import COLOURS, deck, sort_cards
from tests.domain.kit import Table

from .kit import FOUR, hands_with, play, play_trick, script, stacked, table

DUO = ["Carsten", "Ulrich"]


def test_vp1_rounds_option_defaults_to_5_and_ranges_1_to_20():
    # Check the default is five rounds
    assert Table(GAME, DUO, seed=1).game.options == {"rounds": 5}
    assert Table(GAME, DUO, seed=1, options={"rounds": 20}).game.options == {"rounds": 20}
    # Fail to create games with a round count outside 1-20, or that is not a number
    for bad in (0, 21, "3", True):
        with pytest.raises(BadSetup, match="option 'rounds' must be"):
            GAME.start(DUO, seed=1, options={"rounds": bad})
    # Fail to create games with an unknown option
    with pytest.raises(BadSetup, match="voodoo-prince has no option tricks"):
        GAME.start(DUO, seed=1, options={"tricks": 3})


def test_vp1_two_to_five_players():
    # Fail to seat one or six players
    for names in (["Ann"], ["A", "B", "C", "D", "E", "F"]):
        with pytest.raises(BadSetup, match=f"voodoo-prince is for 2 to 5 players, not "
                                           f"{len(names)}"):
            GAME.start(names, seed=1)


def test_vp1_seats_in_creation_order_play_goes_clockwise():
    t = table(FOUR, {"Marie": ["R4"], "Lukas": ["R3"], "Leon": ["R6"], "Nina": ["R2"]})
    # Check after seat 0 leads, seats 1, 2, 3 follow in creation order
    play(t, "Marie", "R4")
    assert t.game.to_act == ["Lukas"]
    play(t, "Lukas", "R3")
    assert t.game.to_act == ["Leon"]
    play(t, "Leon", "R6")
    assert t.game.to_act == ["Nina"]


def test_vp2_seat_0_deals_and_leads_round_1_with_a_drawn_trump():
    t = Table(GAME, FOUR, seed=42)
    dealt = t.events[-1]
    # Check round 1 is dealt by seat 0, who leads, under the trump drawn from the seed
    assert t.types(t.events) == ["Created", "RoundDealt"]
    assert dealt.round == 1 and dealt.dealer == "Marie"
    assert dealt.trump == shuffled(42, "voodoo-prince/trump/1", list(COLOURS))[0]
    assert t.game.public_state()["trump"] == dealt.trump
    assert t.game.to_act == ["Marie"]
    assert t.game.public_state()["leader"] == "Marie"


def test_vp2_trump_drawn_differs_between_seeds_and_repeats_for_a_seed():
    # Check every one of the five indicators comes up over a few seeds, and a seed repeats
    drawn = {seed: GAME.start(FOUR, seed=seed).trump for seed in range(40)}
    assert set(drawn.values()) == set(COLOURS)
    assert all(GAME.start(FOUR, seed=s).trump == t for s, t in list(drawn.items())[:5])


def test_vp2_stacked_trump_and_no_choosing_in_round_1():
    t = table(FOUR, {}, trump="Y")
    # Check the stacked deal's trump is used
    assert t.game.trump == "Y"
    # Fail to choose trump in round 1: it is drawn
    t.refuse("Marie", {"type": "choose_trump", "trump": "R"}, "VP-2")
    assert t.game.legal_moves("Marie")[0]["type"] == "play"


def test_vp2_stacked_round_without_trump_draws_it_from_the_seed():
    deal = stacked(FOUR, {})
    del deal["rounds"][0]["trump"]
    game = GAME.start(FOUR, seed=7, deal=deal)
    assert game.trump == shuffled(7, "voodoo-prince/trump/1", list(COLOURS))[0]


def finish_two_player_round(t: Table, winner: str) -> None:
    """Play the stacked round 1 of `two_player_table` until `winner` has 7 tricks."""
    tricks, _ = script(DUO, [winner] * 7)
    for trick in tricks:
        play_trick(t, trick)


def two_player_table(winner: str = "Carsten", rounds: int = 3) -> Table:
    """Two players; round 1 stacked so that `winner` takes the first 7 tricks."""
    _, wanted = script(DUO, [winner] * 7)
    return table(DUO, wanted, rounds=rounds)


def test_vp3_last_player_deals_chooses_trump_then_leads():
    t = two_player_table("Carsten")
    finish_two_player_round(t, "Carsten")
    dealt = t.events[-1]
    # Check round 2 is dealt by Ulrich, the player left in round 1, with no trump yet
    assert type(dealt).__name__ == "RoundDealt"
    assert (dealt.round, dealt.dealer, dealt.trump) == (2, "Ulrich", None)
    assert t.game.to_act == ["Ulrich"]
    assert t.game.legal_moves("Ulrich") == [
        {"type": "choose_trump", "trump": c} for c in COLOURS  # R B G Y P, the rulebook order
    ]
    assert t.game.legal_moves("Carsten") == []
    # Fail to lead before choosing trump
    card = t.game.hands["Ulrich"][0]
    t.refuse("Ulrich", {"type": "play", "card": card}, "VP-3")
    # Fail to let Carsten choose trump or play: only the dealer acts, and VP-3 says why
    for command in ({"type": "choose_trump", "trump": "G"}, {"type": "play", "card": "R1"}):
        with pytest.raises(NotYourTurn, match=r"\(VP-3\)$") as refused:
            t.game.execute("Carsten", command)
        assert refused.value.rule == "VP-3"
    # Fail to name a colour that does not exist
    with pytest.raises(BadCommand, match="field 'trump' must be one of R, B, G, Y, P"):
        t.game.execute("Ulrich", {"type": "choose_trump", "trump": "X"})
    # Check Ulrich chooses green after seeing his hand, and then leads
    t.act("Ulrich", {"type": "choose_trump", "trump": "G"})
    assert t.types(t.events[-1:]) == ["TrumpChosen"]
    assert t.game.public_state()["trump"] == "G"
    assert t.game.to_act == ["Ulrich"]
    assert {m["type"] for m in t.game.legal_moves("Ulrich")} == {"play"}
    # Fail to choose trump a second time
    t.refuse("Ulrich", {"type": "choose_trump", "trump": "R"}, "VP-3")
    play(t, "Ulrich", card)
    assert t.game.to_act == ["Carsten"]
    t.check_rebuilt()


def test_vp3_later_rounds_are_dealt_from_the_seed_unless_stacked():
    # Check the same seed deals round 2 alike; the deal is recorded in the event
    first, second = two_player_table(), two_player_table()
    finish_two_player_round(first, "Carsten")
    finish_two_player_round(second, "Carsten")
    assert first.events[-1].hands == second.events[-1].hands
    cards = shuffled("scenario", "voodoo-prince/round/2", list(deck(2)))
    assert first.events[-1].hands == {
        "Carsten": sorted(cards[:13], key=deck(2).index),
        "Ulrich": sorted(cards[13:26], key=deck(2).index),
    }
    # Check a stacked round 2 is used as given
    _, wanted = script(DUO, ["Carsten"] * 7)
    round2 = hands_with(DUO, {"Carsten": ["R0", "Y10"]})
    deal = {"rounds": [{"trump": "B", "hands": hands_with(DUO, wanted)}, {"hands": round2}]}
    t = Table(GAME, DUO, seed="scenario", options={"rounds": 2}, deal=deal)
    finish_two_player_round(t, "Carsten")
    assert t.game.hands == {p: sort_cards(h, 2) for p, h in round2.items()}


@pytest.mark.parametrize(("count", "top", "size"), [(2, 10, 13), (3, 10, 13), (4, 12, 13),
                                                      (5, 15, 14)])
def test_vp4_values_and_hand_sizes_by_player_count_rest_out(count, top, size):
    players = ["Ann", "Ben", "Cat", "Dan", "Eve"][:count]
    game = GAME.start(players, seed=count)
    cards = [c for p in players for c in game.hands[p]]
    # Check each hand's size, and that hands and the undealt cards make exactly the deck
    assert all(len(game.hands[p]) == size for p in players)
    assert len(game.undealt) == 5 * (top + 1) - count * size
    assert sorted(cards + game.undealt) == sorted(deck(count))
    assert {int(c[1:]) for c in cards + game.undealt} == set(range(top + 1))
    state = game.public_state()
    assert state["top_card"] == top
    assert state["hand_sizes"] == dict.fromkeys(players, size)


def test_vp4_cards_out_of_play_cannot_be_played():
    t = table(FOUR, {})
    hand = t.game.hands["Marie"]
    undealt = t.game.undealt[0]
    # Fail to play a 13 in a four-player game (values 0-12): not a card of this game
    for code in ("R13", "X1", "R", "r4", "R04"):
        with pytest.raises(BadCommand, match=f"'{code}' is not a card of a 4-player game "
                                             r"\(colours RBGYP, values 0–12\)"):
            t.game.execute("Marie", {"type": "play", "card": code})
    # Fail to play a card left out of the deal (VP-4); the refusal does not say it is undealt
    refusal = t.refuse("Marie", {"type": "play", "card": undealt}, "VP-5")
    assert "does not hold" in refusal.message
    assert undealt not in hand


def deal_refused(says, players, deal, rounds=5) -> None:
    """Fail to start a game from a stacked deal: BadSetup, its message saying `says`."""
    with pytest.raises(BadSetup, match=re.escape(says)):
        GAME.start(players, seed=1, options={"rounds": rounds}, deal=deal)


def test_stacked_deal_is_checked():
    hands = hands_with(FOUR, {})
    good = {"rounds": [{"trump": "B", "hands": hands}]}
    # Check a good deal is normalised: hands in canonical order, later rounds may be null
    scrambled = {p: list(reversed(h)) for p, h in hands.items()}
    normal = GAME.check_deal(FOUR, {"rounds": 5}, {"rounds": [{"hands": scrambled}, None]})
    assert normal == {"rounds": [{"hands": hands}, None]}
    assert GAME.check_deal(FOUR, {"rounds": 5}, good) == good
    # Fail on: unknown keys, no rounds, more rounds than the game, trump after round 1
    deal_refused("only 'rounds'", FOUR, {**good, "phases": []})
    deal_refused("non-empty", FOUR, {"rounds": []})
    deal_refused("has 2 rounds", FOUR, {"rounds": [None, None]}, rounds=1)
    deal_refused("VP-3", FOUR, {"rounds": [None, {"trump": "B", "hands": hands}]})
    deal_refused("trump", FOUR, {"rounds": [{"trump": "X", "hands": hands}]})
    # Fail on: missing or extra players, wrong sizes, unknown or doubled cards
    deal_refused("exactly", FOUR, {"rounds": [{"hands": {"Marie": hands["Marie"]}}]})
    short = {**hands, "Nina": hands["Nina"][:-1]}
    deal_refused("13 cards", FOUR, {"rounds": [{"hands": short}]})
    wrong = {**hands, "Nina": [*hands["Nina"][:-1], "R15"]}
    deal_refused("not a card", FOUR, {"rounds": [{"hands": wrong}]})
    twice = {**hands, "Nina": [*hands["Nina"][:-1], hands["Marie"][0]]}
    deal_refused("twice", FOUR, {"rounds": [{"hands": twice}]})
    deal_refused("object", FOUR, {"rounds": ["R1"]})
