"""Fights (VR-6), card effects (VR-7, VR-3) and the rulebook's six combat samples."""

from __future__ import annotations

import pytest

from .kit import fight_at, play_turn, standing_at, table

DUO = ["Blue", "Red"]
TRIO = ["Blue", "Red", "Yellow"]
CARDS = ["graveyard", "tower", "forest", "cave", "garlic", "mirror", "cross"]


def plain(*taken: str) -> list[str]:
    """Cards that neither move a vampire on nor are among `taken`."""
    return [c for c in CARDS if c not in taken]


def test_vr6_a_family_wounds_itself_and_one_shape_alone_does_not_fight():
    # Blue's Man stops on a carriage and walks on to its own Wolf; Red comes the other way
    t = table(DUO, {0: "home:Blue", 1: "carriage", 2: "graveyard", 3: "tower", 4: "forest",
                    5: "cave", 6: "home:Red"})
    resolution = play_turn(t, {"Blue": "a cw", "Red": "a ccw"})
    # Check Blue's own Wolf wounds Blue's Man
    assert standing_at(resolution, 2) == ["Blue Man", "Blue Wolf"]
    assert fight_at(resolution, 2) == {"Blue Man": 1}
    # Check two Bats together do not fight, even on the tower, nor does a vampire alone
    assert standing_at(resolution, 3) == ["Blue Bat", "Red Bat"]
    assert fight_at(resolution, 3) is None
    assert standing_at(resolution, 4) == ["Red Wolf"] and fight_at(resolution, 4) is None
    # Check each wound cost one drop
    assert t.game.blood == {"Blue": 7, "Red": 8}


# Blue's Man, Red's Wolf and Yellow's Bat meet on the card under test at position 7.
TRIPLE_WOUNDS = {
    "graveyard": {"Blue Man": 1, "Red Wolf": 1, "Yellow Bat": 1},  # VR-6: normal
    "tower": {"Red Wolf": 2, "Yellow Bat": 1},
    "forest": {"Blue Man": 1, "Yellow Bat": 2},
    "cave": {"Blue Man": 2, "Red Wolf": 1},
    "garlic": {"Blue Man": 2, "Red Wolf": 2, "Yellow Bat": 2},
    "mirror": {"Blue Man": 1, "Red Wolf": 1, "Yellow Bat": 1},
    "cross": None,
}


@pytest.mark.parametrize("card", CARDS)
def test_vr7_man_wolf_and_bat_meeting_on_each_card(card):
    isolate = "cross" if card != "cross" else "graveyard"  # where Blue's Wolf meets Red's Man
    t = table(TRIO, {4: "home:Yellow", 5: plain(card, isolate)[0], 6: "home:Blue", 7: card,
                     8: isolate, 9: "home:Red"})
    resolution = play_turn(t, {"Blue": "a cw", "Red": "a ccw", "Yellow": "a cw"})
    assert standing_at(resolution, 7) == ["Blue Man", "Red Wolf", "Yellow Bat"]
    # Check the wounds the card gives (VR-7)
    assert fight_at(resolution, 7) == TRIPLE_WOUNDS[card]


# Two vampires of two families meet on the card under test.
PAIR_WOUNDS = {
    "Man+Bat": {
        "graveyard": {"Red Bat": 1}, "tower": {"Red Bat": 1}, "forest": {"Red Bat": 1},
        "cave": {"Blue Man": 1}, "garlic": {"Red Bat": 2}, "mirror": {"Blue Man": 1},
        "cross": None,
    },
    "Wolf+Bat": {
        "graveyard": {"Blue Wolf": 1}, "tower": {"Blue Wolf": 1}, "forest": {"Red Bat": 1},
        "cave": {"Blue Wolf": 1}, "garlic": {"Blue Wolf": 2}, "mirror": {"Red Bat": 1},
        "cross": None,
    },
    "Man+Wolf": {
        "graveyard": {"Blue Man": 1}, "tower": {"Red Wolf": 1}, "forest": {"Blue Man": 1},
        "cave": {"Blue Man": 1}, "garlic": {"Blue Man": 2}, "mirror": {"Red Wolf": 1},
        "cross": None,
    },
}


def pair_table(pair: str, card: str):
    """Blue leaves its Home at 0 clockwise; Red comes to meet it anticlockwise."""
    other = plain(card)
    if pair == "Man+Bat":  # at 1: Blue's Man, Red's Bat
        return table(DUO, {0: "home:Blue", 1: card, 2: other[0], 3: other[1], 4: "home:Red"}), 1
    if pair == "Wolf+Bat":  # at 2: Blue's Wolf, Red's Bat
        return table(DUO, {0: "home:Blue", 1: other[0], 2: card, 3: other[1], 4: other[2],
                           5: "home:Red"}), 2
    # at 1: Blue's Man, Red's Wolf
    return table(DUO, {0: "home:Blue", 1: card, 2: other[0], 3: "home:Red"}), 1


@pytest.mark.parametrize("pair", list(PAIR_WOUNDS))
@pytest.mark.parametrize("card", CARDS)
def test_vr7_two_shapes_meeting_on_each_card(pair, card):
    t, position = pair_table(pair, card)
    resolution = play_turn(t, {"Blue": "a cw", "Red": "b ccw"})
    blue, red = pair.split("+")
    assert standing_at(resolution, position) == [f"Blue {blue}", f"Red {red}"]
    # Check who wounds whom on this card: tower, forest and cave make their shape immune
    # and let it wound both others; garlic doubles; the mirror reverses; the cross forbids
    assert fight_at(resolution, position) == PAIR_WOUNDS[pair][card]


# The rulebook's combat samples, each on a ring stacked so the sample's card holds exactly
# the sample's vampires after the first turn. Each runs in both variants (VR-3).

def test_vr7_sample_1_no_man_on_the_tower_so_the_bat_wounds_the_wolf():
    for variant in ("castle", "mansion"):
        t = table(DUO, {0: "home:Blue", 1: "forest", 2: "tower", 3: "cross", 4: "cave",
                        5: "home:Red"}, variant=variant)
        resolution = play_turn(t, {"Blue": "a cw", "Red": "a ccw"})
        # Check the tower changes nothing without a Man: Red's Bat wounds Blue's Wolf
        assert standing_at(resolution, 2) == ["Blue Wolf", "Red Bat"]
        assert fight_at(resolution, 2) == {"Blue Wolf": 1}
        # Check the cross next to it keeps Blue's Bat and Red's Wolf from fighting
        assert standing_at(resolution, 3) == ["Blue Bat", "Red Wolf"]
        assert fight_at(resolution, 3) is None
        assert t.game.blood == {"Blue": 7, "Red": 8}


def test_vr7_sample_2_a_home_does_not_protect_other_families():
    players = ["Blue", "Red", "Green", "Yellow"]
    for variant in ("castle", "mansion"):
        t = table(players, {1: "home:Red", 2: "graveyard", 3: "home:Blue", 4: "home:Yellow",
                            5: "cross", 6: "tower", 7: "home:Green"}, variant=variant)
        resolution = play_turn(t, {"Blue": "a cw", "Red": "a cw", "Green": "a ccw",
                                   "Yellow": "a ccw"})
        # Check Blue's Man wounds both Bats on Yellow's Home: no Yellow vampire is there
        assert standing_at(resolution, 4) == ["Blue Man", "Green Bat", "Red Bat"]
        assert fight_at(resolution, 4) == {"Red Bat": 1, "Green Bat": 1}


def test_vr7_sample_3_the_wolf_wounds_both_men_but_not_blue_at_home_in_the_castle():
    ring = {0: "home:Blue", 1: "parchment", 2: "graveyard", 3: "cross", 12: "home:Yellow",
            13: "home:Red"}
    expected = {"mansion": {"Blue Man": 1, "Red Man": 1}, "castle": {"Red Man": 1}}
    for variant, wounds in expected.items():
        t = table(TRIO, ring, variant=variant)
        # Blue's Man and Yellow's Bat come back from the parchment to their Homes
        resolution = play_turn(t, {"Blue": "a cw", "Red": "a cw", "Yellow": "a cw"})
        assert standing_at(resolution, 0) == ["Blue Man", "Red Man", "Yellow Wolf"]
        assert fight_at(resolution, 0) == wounds


def test_vr7_sample_4_the_man_on_the_tower_wounds_both_wolves_and_takes_nothing():
    for variant in ("castle", "mansion"):
        t = table(TRIO, {0: "home:Red", 1: "home:Blue", 2: "tower", 3: "graveyard",
                         4: "home:Yellow"}, variant=variant)
        resolution = play_turn(t, {"Blue": "a cw", "Red": "a cw", "Yellow": "a ccw"})
        assert standing_at(resolution, 2) == ["Blue Man", "Red Wolf", "Yellow Wolf"]
        assert fight_at(resolution, 2) == {"Red Wolf": 1, "Yellow Wolf": 1}


def test_vr7_sample_5_the_bat_wounds_both_wolves_but_not_yellow_at_home_in_the_castle():
    ring = {0: "home:Yellow", 1: "cross", 2: "parchment", 3: "home:Green", 12: "home:Red",
            13: "graveyard"}
    expected = {"mansion": {"Yellow Wolf": 1, "Red Wolf": 1}, "castle": {"Red Wolf": 1}}
    for variant, wounds in expected.items():
        t = table(["Yellow", "Red", "Green"], ring, variant=variant)
        # Yellow's Wolf stops on the parchment and goes home
        resolution = play_turn(t, {"Yellow": "a cw", "Red": "a cw", "Green": "a ccw"})
        assert standing_at(resolution, 0) == ["Green Bat", "Red Wolf", "Yellow Wolf"]
        assert fight_at(resolution, 0) == wounds


def test_vr7_sample_6_red_man_and_bat_are_safe_at_home_in_the_castle_only():
    ring = {0: "home:Red", 1: "graveyard", 2: "home:Blue", 8: "cross", 9: "parchment",
            10: "carriage", 11: "carriage"}
    expected = {"mansion": {"Red Man": 1, "Red Bat": 1, "Blue Wolf": 1},
                "castle": {"Blue Wolf": 1}}
    for variant, wounds in expected.items():
        t = table(["Red", "Blue"], ring, variant=variant)
        # Red's Man is carried twice onto the parchment and its Bat stops on it: both go home
        resolution = play_turn(t, {"Red": "a ccw", "Blue": "a ccw"})
        assert standing_at(resolution, 0) == ["Blue Wolf", "Red Bat", "Red Man"]
        assert fight_at(resolution, 0) == wounds
        assert t.game.blood["Red"] == 8 - (2 if variant == "mansion" else 0)
