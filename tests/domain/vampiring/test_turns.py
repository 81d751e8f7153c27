"""A turn: secret simultaneous moves and metamorphoses (VR-4), movement and its cards (VR-5)."""

from __future__ import annotations

import pytest

from domain.core import BadCommand, NotYourTurn

from .kit import command, play_turn, table, where

DUO = ["Blue", "Red"]
TRIO = ["Blue", "Red", "Yellow"]
# In the order legal-moves lists them (canonical JSON: direction first).
ALL_MOVES = [command(m) for m in ("a ccw", "a cw", "b ccw", "b cw")]  # the game's order


def shapes(t, player):
    return {vid: v["shape"] for vid, v in t.game.public_state()["vampires"][player].items()}


def test_vr4_metamorphoses_a_and_b_change_every_vampire():
    t = table(DUO, {0: "home:Blue", 6: "home:Red"})
    # Check a: Man -> Wolf, Wolf -> Bat, Bat -> Man; b: Man -> Bat, Bat -> Wolf, Wolf -> Man
    play_turn(t, {"Blue": "a cw", "Red": "b cw"})
    assert shapes(t, "Blue") == {"1": "W", "2": "B", "3": "M"}
    assert shapes(t, "Red") == {"1": "B", "2": "M", "3": "W"}
    # Check the next turn changes the shapes again, from the ones just taken
    play_turn(t, {"Blue": "b ccw", "Red": "a ccw"})
    assert shapes(t, "Blue") == {"1": "M", "2": "W", "3": "B"}
    assert shapes(t, "Red") == {"1": "M", "2": "W", "3": "B"}


def test_vr4_every_living_player_moves_at_once_with_one_of_four_moves():
    t = table(TRIO, {})
    # Check all three are to act, each with the four moves (two metamorphoses, two directions)
    assert t.game.to_act == TRIO
    for player in TRIO:
        assert t.game.legal_moves(player) == ALL_MOVES
    # Check a submitted player leaves to_act, the others stay, in any order of submission
    t.act("Yellow", command("a cw"))
    assert t.game.to_act == ["Blue", "Red"]
    assert t.game.legal_moves("Yellow") == []
    assert t.game.public_state()["submitted"] == ["Yellow"]
    t.act("Blue", command("b ccw"))
    assert t.game.to_act == ["Red"]
    assert t.game.public_state()["submitted"] == ["Blue", "Yellow"]
    # Check the last move in resolves the turn and opens the next one to all
    events = t.act("Red", command("a ccw"))
    assert t.types(events) == ["MoveSubmitted", "TurnResolved"]
    assert t.game.to_act == TRIO
    assert t.game.public_state()["submitted"] == [] and t.game.public_state()["turn"] == 2
    t.check_rebuilt()


def test_vr4_a_submitted_move_is_final():
    t = table(DUO, {})
    t.act("Blue", command("a cw"))
    # Fail to change or repeat a submitted move: it is final
    for move in ALL_MOVES:
        refusal = t.refuse("Blue", move, "VR-4")
        assert isinstance(refusal, NotYourTurn)
        assert "already submitted" in refusal.message and "cw" not in refusal.message
    # Check the move submitted first is the one played
    resolution = play_turn(t, {"Red": "a cw"})
    assert resolution["moves"]["Blue"] == {"metamorphosis": "a", "direction": "cw"}


def test_vr4_a_move_names_a_metamorphosis_and_a_direction():
    t = table(DUO, {})
    # Fail to send an unknown metamorphosis or direction, a missing or an extra field
    for bad, says in [
        ({"type": "move", "metamorphosis": "c", "direction": "cw"},
         "field 'metamorphosis' must be one of a, b"),
        ({"type": "move", "metamorphosis": "a", "direction": "up"},
         "field 'direction' must be one of ccw, cw"),
        ({"type": "move", "metamorphosis": "a"}, "command 'move' needs the field 'direction'"),
        ({"type": "move", "metamorphosis": "a", "direction": "cw", "steps": "2"},
         "command 'move' has no field 'steps'"),
        ({"type": "move", "metamorphosis": ["a"], "direction": "cw"},
         "field 'metamorphosis' must be a string"),
        ({"type": "fly", "direction": "cw"}, "vampiring has no command 'fly'"),
    ]:
        with pytest.raises(BadCommand, match=says):
            t.game.execute("Blue", bad)
    assert t.game.to_act == DUO and not t.game.pending_events


# The rulebook's movement sample: Blue moves plainly clockwise; Red's Bat stops on a carriage
# and flies on; Yellow, anticlockwise, has its Wolf carried twice and its Bat sent home by the
# parchment.
SAMPLE = {0: "home:Blue", 1: "tower", 2: "forest", 3: "cave", 4: "carriage", 5: "garlic",
          6: "home:Red", 7: "cross", 8: "mirror", 9: "carriage", 10: "parchment",
          11: "carriage", 12: "graveyard", 13: "home:Yellow"}


def test_vr5_rulebook_movement_sample():
    t = table(TRIO, SAMPLE)
    resolution = play_turn(t, {"Blue": "a cw", "Red": "a cw", "Yellow": "b ccw"})
    # Check Blue's Man moved 1 step, Wolf 2, Bat 3, clockwise (increasing positions)
    assert where(resolution, "Blue") == {"Man": [0, 1], "Wolf": [0, 2], "Bat": [0, 3]}
    # Check Red's Bat moved 3 steps onto a carriage, then 3 more (passing a carriage and
    # the parchment, which do nothing unless it stops on them)
    assert where(resolution, "Red") == {"Man": [6, 7], "Wolf": [6, 8], "Bat": [6, 9, 12]}
    # Check Yellow's Wolf moved 2, then 2 and 2 more from two carriages; its Bat stopped on
    # the parchment and went straight home
    assert where(resolution, "Yellow") == {"Man": [13, 12], "Wolf": [13, 11, 9, 7],
                                           "Bat": [13, 10, 13]}
    # Check the positions the public view shows afterwards
    vampires = t.game.public_state()["vampires"]
    assert {v["position"] for v in vampires["Yellow"].values()} == {12, 7, 13}
    assert {v["position"] for v in vampires["Red"].values()} == {7, 8, 12}


def test_vr5_anticlockwise_wraps_round_the_ring():
    t = table(DUO, {0: "home:Blue", 1: "carriage", 2: "graveyard", 3: "carriage",
                    4: "parchment", 5: "cross", 6: "home:Red", 7: "tower", 8: "forest",
                    9: "cave", 10: "garlic", 11: "mirror"})
    resolution = play_turn(t, {"Blue": "b ccw", "Red": "a cw"})
    # Check Blue's vampires went anticlockwise from position 0 to 11, 10 and 9
    assert where(resolution, "Blue") == {"Man": [0, 11], "Wolf": [0, 10], "Bat": [0, 9]}
    assert where(resolution, "Red") == {"Man": [6, 7], "Wolf": [6, 8], "Bat": [6, 9]}
    # Check the next turn clockwise wraps back past position 0: the Man at 11 takes the
    # metamorphosis b to a Bat and flies 3 steps to 2
    resolution = play_turn(t, {"Blue": "b cw", "Red": "a ccw"})
    assert where(resolution, "Blue")["Bat"] == [11, 2]


def test_vr5_carriages_chain_and_a_chain_may_end_on_the_parchment():
    # Red's Man stops on a carriage, walks on to another, then onto the parchment: home
    t = table(DUO, {0: "home:Red", 1: "graveyard", 2: "home:Blue", 3: "tower", 8: "cross",
                    9: "parchment", 10: "carriage", 11: "carriage"})
    resolution = play_turn(t, {"Red": "a ccw", "Blue": "a ccw"})
    assert where(resolution, "Red") == {"Man": [0, 11, 10, 9, 0], "Wolf": [0, 10, 8],
                                        "Bat": [0, 9, 0]}
    # Check Blue's Bat, 3 steps onto the carriage at 11, went 3 more to 8
    assert where(resolution, "Blue") == {"Man": [2, 1], "Wolf": [2, 0], "Bat": [2, 11, 8]}
