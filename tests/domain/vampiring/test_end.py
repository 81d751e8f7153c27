"""Haunted houses (VR-8), blood and elimination (VR-9), the end (VR-10), scoring (VR-11, VR-12).

The games below were found by random search over seeded rings, then stacked here so they read
as a story; every turn's moves are the rulebook's four options.
"""

from __future__ import annotations

from domain.core import NotYourTurn

from .kit import command, fight_at, play_turn, standing_at, table

TRIO = ["Blue", "Red", "Yellow"]

# Red is eliminated in turn 2 by a fight on the garlic; its Home at 11 then haunts.
HAUNTED_RING = dict(enumerate([
    "parchment", "cave", "forest", "carriage", "carriage", "home:Blue", "mirror", "cross",
    "tower", "carriage", "garlic", "home:Red", "home:Yellow", "graveyard"]))
HAUNTED_TURNS = [
    {"Blue": "b cw", "Red": "a cw", "Yellow": "a ccw"},
    {"Blue": "a cw", "Red": "a ccw", "Yellow": "b cw"},
    {"Blue": "b ccw", "Yellow": "a ccw"},
    {"Blue": "a cw", "Yellow": "b ccw"},
]


def test_vr9_wounds_cost_blood_a_family_at_0_is_eliminated_and_leaves_the_ring():
    t = table(TRIO, HAUNTED_RING)
    # Check turn 1: Yellow's Bat wounds Blue's Man on the mirror (the Man would wound it
    # elsewhere); Yellow's Man cannot wound Red's Bat on Red's own Home (castle)
    first = play_turn(t, HAUNTED_TURNS[0])
    assert fight_at(first, 6) == {"Blue Man": 1}
    assert standing_at(first, 11) == ["Red Bat", "Yellow Man"] and fight_at(first, 11) == {}
    assert t.game.blood == {"Blue": 7, "Red": 8, "Yellow": 8}
    # Check turn 2: five vampires on the garlic; Red takes 10 wounds but has only 8 drops
    second = play_turn(t, HAUNTED_TURNS[1])
    assert fight_at(second, 10) == {"Blue Man": 2, "Blue Bat": 4, "Red Bat": 4, "Red Man": 2,
                                    "Red Wolf": 4}
    assert second["wounds"] == {"Blue": 6, "Red": 10, "Yellow": 0}
    assert second["lost"] == {"Blue": 6, "Red": 8, "Yellow": 0}
    assert second["eliminated"] == ["Red"]
    state = t.game.public_state()
    assert state["blood"] == {"Blue": 1, "Red": 0, "Yellow": 8}
    assert state["lost"] == {"Blue": 7, "Red": 8, "Yellow": 0}
    assert state["eliminated"] == {"Red": 2}
    # Check Red's vampires have left the ring and Red is no longer to act
    assert set(state["vampires"]) == {"Blue", "Yellow"}
    assert t.game.to_act == ["Blue", "Yellow"]
    assert t.game.legal_moves("Red") == []
    # Fail to move for the eliminated Red
    refusal = t.refuse("Red", command("a cw"), "VR-9")
    assert isinstance(refusal, NotYourTurn)
    # Check Red's score froze at the drops lost by everybody when it fell: 7 + 8 + 0
    assert t.game.scores == {"Blue": 15, "Red": 15, "Yellow": 15}


def test_vr8_a_home_haunts_from_the_turn_after_its_family_falls():
    t = table(TRIO, HAUNTED_RING)
    play_turn(t, HAUNTED_TURNS[0])
    # Check Yellow's Man stops on Red's Home in the very turn Red falls: no ghost yet
    second = play_turn(t, HAUNTED_TURNS[1])
    assert "Yellow Man" in standing_at(second, 11) and second["haunted"] == []
    assert t.game.public_state()["haunted"] == [11]
    # Check the next turn Yellow's Man stops there again, alone, and takes 1 wound
    third = play_turn(t, HAUNTED_TURNS[2])
    assert standing_at(third, 11) == ["Yellow Man"] and fight_at(third, 11) is None
    assert third["haunted"] == [{"position": 11, "home": "Red", "player": "Yellow", "id": "3"}]
    assert third["lost"] == {"Blue": 0, "Yellow": 1}
    # Check the ghosts wound on top of a fight: Blue's Bat wounds Blue's Wolf there, and
    # each takes a ghost's wound; Blue had 1 drop left
    fourth = play_turn(t, HAUNTED_TURNS[3])
    assert fight_at(fourth, 11) == {"Blue Wolf": 1}
    assert len(fourth["haunted"]) == 2
    assert fourth["wounds"]["Blue"] == 3 and fourth["lost"]["Blue"] == 1
    assert fourth["eliminated"] == ["Blue"]


def test_vr10_vr11_the_last_family_wins_and_scores_its_drops_times_players():
    t = table(TRIO, HAUNTED_RING)
    for turn in HAUNTED_TURNS:
        play_turn(t, turn)
    # Check the game ended when only Yellow was left, and Yellow won
    assert t.types(t.events[-2:]) == ["TurnResolved", "GameEnded"]
    assert t.game.finished and t.game.to_act == [] and t.game.winners == ["Yellow"]
    # Check the scores: Red 15 (its turn), Blue 8 + 8 + 2 = 18 (its turn),
    # Yellow 18 + 6 drops left x 3 players = 36
    assert t.game.scores == {"Blue": 18, "Red": 15, "Yellow": 36}
    assert t.game.public_state()["end"] == "last_family"
    # Fail to move once the game is over
    t.refuse("Yellow", command("a cw"), "VR-10")


# Red and Yellow fall together on the garlic in turn 2; Blue survives with 3 drops.
SCORING_RING = dict(enumerate([
    "graveyard", "mirror", "forest", "home:Red", "garlic", "home:Yellow", "tower", "home:Blue",
    "carriage", "carriage", "carriage", "parchment", "cross", "cave"]))
SCORING_TURNS = [
    {"Blue": "a ccw", "Red": "b ccw", "Yellow": "a cw"},
    {"Blue": "b ccw", "Red": "a cw", "Yellow": "a ccw"},
]


def test_vr11_rulebook_scoring_example_winner_scores_30():
    t = table(TRIO, SCORING_RING)
    play_turn(t, SCORING_TURNS[0])
    assert t.game.blood == {"Blue": 7, "Red": 8, "Yellow": 8}
    assert t.game.scores == {"Blue": 1, "Red": 1, "Yellow": 1}
    last = play_turn(t, SCORING_TURNS[1])
    assert last["eliminated"] == ["Red", "Yellow"]
    assert last["wounds"] == {"Blue": 4, "Red": 8, "Yellow": 12}
    # Check the winner lost 5: 8 + 8 + 5 + 3 drops x 3 players = 30
    assert t.game.winners == ["Blue"]
    assert t.game.scores == {"Blue": 30, "Red": 21, "Yellow": 21}


def test_vr10_no_family_left_means_no_winner():
    t = table(["Blue", "Red"], dict(enumerate([
        "carriage", "mirror", "forest", "parchment", "cave", "tower", "home:Blue", "garlic",
        "home:Red", "carriage", "cross", "graveyard"])))
    play_turn(t, {"Blue": "a ccw", "Red": "b ccw"})
    last = play_turn(t, {"Blue": "a cw", "Red": "b cw"})
    # Check both families fell in the same turn: nobody wins, each scores all 16 drops
    assert last["eliminated"] == ["Blue", "Red"]
    assert t.game.finished and t.game.winners == []
    assert t.game.scores == {"Blue": 16, "Red": 16}
    assert t.game.public_state()["end"] == "no_family"


def test_vr12_max_turns_ends_the_game_with_no_winner():
    t = table(TRIO, HAUNTED_RING, max_turns=3)
    for turn in HAUNTED_TURNS[:3]:
        play_turn(t, turn)
    # Check turn 3 ended the game: no winner; Red keeps its 15; Blue and Yellow score the
    # drops lost so far, 7 + 8 + 1
    assert t.game.finished and t.game.winners == []
    assert t.game.scores == {"Blue": 16, "Red": 15, "Yellow": 16}
    assert t.game.public_state()["end"] == "max_turns"
    assert t.game.to_act == []
    # Fail to play a fourth turn: the refusal cites the ruling that ended the game
    t.refuse("Blue", command("a cw"), "VR-12")


def test_vr12_a_game_won_in_its_last_allowed_turn_is_won():
    # Reading: when the last family stands in the turn max_turns is reached, VR-10 decides
    t = table(TRIO, SCORING_RING, max_turns=2)
    for turn in SCORING_TURNS:
        play_turn(t, turn)
    assert t.game.public_state()["end"] == "last_family"
    assert t.game.winners == ["Blue"]
    assert t.game.scores == {"Blue": 30, "Red": 21, "Yellow": 21}
