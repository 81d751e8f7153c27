"""Where a move would land a family (VR-4, VR-5), before it is sent: the play page's preview."""

from __future__ import annotations

from domain.vampiring.rules import landings

from .kit import SHAPE_NAMES, command, play_turn, table

TRIO = ["Blue", "Red", "Yellow"]
# The rulebook's movement sample (as in test_turns.py): carriages at 4, 9 and 11, the parchment
# at 10, Yellow's Home at 13.
SAMPLE = {0: "home:Blue", 1: "tower", 2: "forest", 3: "cave", 4: "carriage", 5: "garlic",
          6: "home:Red", 7: "cross", 8: "mirror", 9: "carriage", 10: "parchment",
          11: "carriage", 12: "graveyard", 13: "home:Yellow"}


def by_shape(moved):
    return {SHAPE_NAMES[v["shape"]]: v["path"] for v in moved.values()}


def test_vr5_landings_follow_the_rulebook_movement_sample():
    t = table(TRIO, SAMPLE)
    state = t.game.full_state()
    home, family = state["homes"]["Yellow"], state["families"]["Yellow"]
    # Check Yellow's b anticlockwise: the Wolf carried twice, the Bat sent home by the parchment
    moved = landings(state["ring"], home, family, "b", "ccw")
    assert by_shape(moved) == {"Man": [13, 12], "Wolf": [13, 11, 9, 7], "Bat": [13, 10, 13]}
    assert {vid: v["position"] for vid, v in moved.items()} == {"1": 13, "2": 12, "3": 7}
    # Check a Red Bat on a carriage flies on (a clockwise): positions are each path's end
    moved = landings(state["ring"], 6, state["families"]["Red"], "a", "cw")
    assert by_shape(moved) == {"Man": [6, 7], "Wolf": [6, 8], "Bat": [6, 9, 12]}


def test_vr4_the_four_moves_land_where_the_turn_then_puts_them():
    t = table(TRIO, SAMPLE)
    # Check every move the game lists has a preview, in the same order
    moves = t.game.legal_moves("Yellow")
    previews = t.game.previews("Yellow", moves)
    assert len(previews) == len(moves) == 4
    # Check the previewed move is exactly what the resolved turn does with it
    chosen = moves.index(command("b ccw"))
    resolution = play_turn(t, {"Blue": "a cw", "Red": "a cw", "Yellow": "b ccw"})
    assert previews[chosen]["vampires"] == resolution["vampires"]["Yellow"]
    # Check the next turn's previews start from where the vampires now stand
    state = t.game.full_state()
    again = t.game.previews("Yellow", t.game.legal_moves("Yellow"))
    for move, preview in zip(t.game.legal_moves("Yellow"), again, strict=True):
        for vid, v in preview["vampires"].items():
            assert v["path"][0] == state["families"]["Yellow"][vid]["position"]
            assert v["shape"] != state["families"]["Yellow"][vid]["shape"]  # VR-4
        assert sorted(v["shape"] for v in preview["vampires"].values()) == ["B", "M", "W"], move


def test_vr9_an_eliminated_family_has_nothing_to_preview():
    t = table(["Blue", "Red"], {0: "home:Blue", 6: "home:Red"})
    t.game.eliminated["Red"] = 1  # as if eliminated; its family is gone from the ring
    del t.game.families["Red"]
    assert t.game.previews("Red", [command("a cw")]) == [{}]
