"""Setup: families (VR-1), the ring (VR-2), the variant and max_turns options (VR-3, VR-12)."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.core import BadSetup, shuffled
from domain.vampiring import GAME
from domain.vampiring.rules import ring_cards
from tests.domain.kit import Table

from .kit import ring

DUO = ["Blue", "Red"]
TRIO = ["Blue", "Red", "Yellow"]
SIX = ["Blue", "Red", "Yellow", "Green", "White", "Black"]


def test_vr1_each_family_starts_as_man_wolf_bat_on_its_home_with_8_drops():
    table = Table(GAME, ["Blue", "Red", "Yellow"], seed=7)
    state = table.game.public_state()
    # Check every family has vampires 1, 2, 3 as Man, Wolf and Bat, all on its own Home card
    for player in ["Blue", "Red", "Yellow"]:
        home = state["homes"][player]
        assert state["ring"][home] == f"home:{player}"
        assert state["vampires"][player] == {
            "1": {"shape": "M", "position": home},
            "2": {"shape": "W", "position": home},
            "3": {"shape": "B", "position": home},
        }
    # Check every family has 8 drops, nothing lost, nobody scored, everybody to act
    assert state["blood"] == {"Blue": 8, "Red": 8, "Yellow": 8}
    assert state["lost"] == {"Blue": 0, "Red": 0, "Yellow": 0}
    assert table.game.scores == {"Blue": 0, "Red": 0, "Yellow": 0}
    assert table.game.to_act == ["Blue", "Red", "Yellow"]
    assert state["turn"] == 1 and state["submitted"] == [] and state["eliminated"] == {}


def test_vr1_on_a_stacked_ring_each_family_starts_on_the_home_where_it_was_put():
    deal = ring(TRIO, {2: "home:Yellow", 4: "home:Blue", 9: "home:Red"})
    state = Table(GAME, TRIO, seed=1, deal=deal).game.public_state()
    # Check vampires 1, 2, 3 of every family start as Man, Wolf and Bat on that family's Home,
    # wherever the stacked ring put it, with 8 drops each
    assert state["homes"] == {"Blue": 4, "Red": 9, "Yellow": 2}
    for player, home in state["homes"].items():
        assert state["vampires"][player] == {
            "1": {"shape": "M", "position": home},
            "2": {"shape": "W", "position": home},
            "3": {"shape": "B", "position": home},
        }
    assert state["blood"] == {p: 8 for p in TRIO}


def test_vr1_two_to_six_players():
    # Check 2 and 6 players can play
    assert Table(GAME, DUO, seed=1).game.to_act == DUO
    assert Table(GAME, SIX, seed=1).game.to_act == SIX
    # Fail to seat 1 or 7 players
    for players in (["Blue"], [*SIX, "Pink"]):
        with pytest.raises(BadSetup, match=f"vampiring is for 2 to 6 players, not {len(players)}"):
            GAME.start(players, seed=1)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_vr2_seeded_ring_holds_a_home_and_a_carriage_per_player_and_the_eight_cards(count):
    players = SIX[:count]
    table = Table(GAME, players, seed="ring")
    laid = table.game.ring
    # Check the ring is 2 x players + 8 cards: the VR-2 cards, nothing else
    assert len(laid) == 2 * count + 8
    assert Counter(laid) == Counter(
        [f"home:{p}" for p in players] + ["carriage"] * count
        + ["parchment", "tower", "forest", "cave", "garlic", "mirror", "graveyard", "cross"])
    # Check the ring is the seeded shuffle, recorded in the RingLaid event
    assert laid == shuffled("ring", "vampiring/ring", ring_cards(players))
    laid_event = [e for e in table.events if type(e).__name__ == "RingLaid"]
    assert len(laid_event) == 1 and laid_event[0].ring == laid


def test_vr2_same_seed_same_ring_different_seed_different_ring():
    # Check two games with one seed lay one ring, and another seed another ring
    assert Table(GAME, SIX, seed=42).game.ring == Table(GAME, SIX, seed=42).game.ring
    assert Table(GAME, SIX, seed=42).game.ring != Table(GAME, SIX, seed=43).game.ring


def test_vr2_stacked_ring_is_laid_as_given():
    deal = ring(DUO, {0: "home:Blue", 1: "tower", 5: "home:Red"})
    table = Table(GAME, DUO, seed=1, deal=deal)
    # Check the ring is exactly the stacked one, Homes where they were put
    assert table.game.ring == deal["ring"]
    assert table.game.public_state()["homes"] == {"Blue": 0, "Red": 5}


def test_vr2_stacked_ring_must_hold_exactly_the_ruling_cards():
    good = ring(DUO, {})["ring"]
    # Fail to stack a ring without a card, with a card too many, with a stranger's Home,
    # with a card that does not exist, with another key or a ring that is not a list
    exactly = "the ring must hold exactly one Home and one carriage per player"
    bad_deals = [
        ({"ring": good[:-1]}, f"{exactly}.*missing: cross; not allowed: none"),
        ({"ring": [*good, "tower"]}, f"{exactly}.*missing: none; not allowed: tower"),
        ({"ring": [c if c != "home:Red" else "home:Green" for c in good]},
         f"{exactly}.*missing: home:Red; not allowed: home:Green"),
        ({"ring": [c if c != "cross" else "church" for c in good]},
         f"{exactly}.*missing: cross; not allowed: church"),
        ({"ring": [c if c != "carriage" else "tower" for c in good]},
         f"{exactly}.*missing: carriage, carriage; not allowed: tower, tower"),
        ({"ring": good, "hands": {}}, "a vampiring deal has only a 'ring', not hands"),
        ({"ring": "tower"}, "the deal's 'ring' must be a list of card names"),
        ({"ring": [1] * len(good)}, "the deal's 'ring' must be a list of card names"),
    ]
    for deal, says in bad_deals:
        with pytest.raises(BadSetup, match=says):
            GAME.start(DUO, seed=1, deal=deal)


def test_vr3_variant_is_castle_by_default_or_mansion():
    # Check the default variant is the castle, and the mansion may be chosen
    assert Table(GAME, DUO, seed=1).game.options == {"variant": "castle", "max_turns": None}
    assert Table(GAME, DUO, seed=1, options={"variant": "mansion"}).game.options["variant"] == (
        "mansion")
    # Fail to choose another variant
    with pytest.raises(BadSetup, match="option 'variant' must be one of castle, mansion"):
        GAME.start(DUO, seed=1, options={"variant": "crypt"})


def test_vr12_max_turns_is_none_or_1_to_10000():
    # Check max_turns defaults to none and takes 1 .. 10000
    assert Table(GAME, DUO, seed=1, options={"max_turns": 1}).game.options["max_turns"] == 1
    assert Table(GAME, DUO, seed=1, options={"max_turns": 10000}).game.options["max_turns"] == (
        10000)
    assert Table(GAME, DUO, seed=1, options={"max_turns": None}).game.options["max_turns"] is None
    # Fail to set 0, 10001, a string or a boolean, or an unknown option
    for bad in (0, 10001, "5", True):
        with pytest.raises(BadSetup, match="option 'max_turns' must be"):
            GAME.start(DUO, seed=1, options={"max_turns": bad})
    with pytest.raises(BadSetup, match="vampiring has no option rounds"):
        GAME.start(DUO, seed=1, options={"rounds": 3})
