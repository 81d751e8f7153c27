"""The shared event filters: who an event concerns, and which phase, round or turn it is in."""

from __future__ import annotations

from domain.core.eventfilter import concerns, matching, select, units


def rec(version: int, type_: str, **data) -> dict:
    return {"version": version, "type": type_, "data": data}


def test_an_event_concerns_who_made_it_or_is_named_in_it():
    made = rec(3, "Played", player="Ben", cards=["R5"])
    dealt = rec(2, "Dealt", hands={"Ann": ["R1"], "Ben": ["B2"]})
    won = rec(9, "Ended", winners=["Cy"], scores={"Ann": 1, "Cy": 4})
    assert concerns(made, "Ben") and not concerns(made, "Ann")
    assert concerns(dealt, "Ben") and not concerns(dealt, "Cy")  # a key of an object
    assert concerns(won, "Cy") and concerns(won, "Ann") and not concerns(won, "Ben")
    assert select([made, dealt, won], player="Ben") == [made, dealt]
    assert select([made, dealt, won], player="Ben", types={"Played"}) == [made]


def test_units_follow_the_markers_and_a_deal_starts_one():
    deal, plays = {"RoundDealt"}, {"CardPlayed"}
    log = [rec(1, "Created", players=["Ann", "Ben"]),
           rec(2, "RoundDealt", round=1),
           rec(3, "CardPlayed", player="Ann"),
           rec(4, "RoundEnded", round=1),
           rec(5, "RoundDealt", round=2),
           rec(6, "CardPlayed", player="Ben")]  # a game still in play: round 2 has no end yet
    labels = units(log, deal, plays)
    assert labels == [{}, {"round": 1}, {"round": 1}, {"round": 1}, {"round": 2}, {"round": 2}]
    assert [log[i]["version"] for i in matching(log, labels, round=2)] == [5, 6]


def test_after_an_end_marker_a_player_s_action_begins_the_next_unit():
    plays = {"MoveSubmitted"}
    log = [rec(1, "MoveSubmitted", player="Ann"), rec(2, "TurnResolved", turn=1),
           rec(3, "MoveSubmitted", player="Ben")]
    assert units(log, (), plays) == [{"turn": 1}, {"turn": 1}, {"turn": 2}]
    # Without an action since the end, a closing event stays in the unit that ended.
    log = [rec(1, "MoveSubmitted", player="Ann"), rec(2, "TurnResolved", turn=1),
           rec(3, "GameEnded", winners=["Ann"])]
    assert units(log, (), plays) == [{"turn": 1}, {"turn": 1}, {"turn": 1}]


def test_an_inner_unit_is_counted_within_its_outer_one():
    deal, plays = {"PhaseDealt"}, {"Played"}
    log = [rec(1, "PhaseDealt", phase=1), rec(2, "Played", player="Ann"),
           rec(3, "RoundEnded", phase=1, round=1), rec(4, "PhaseScored", phase=1),
           rec(5, "PhaseDealt", phase=2), rec(6, "Played", player="Ben"),
           rec(7, "RoundEnded", phase=2, round=1)]
    labels = units(log, deal, plays)
    assert [label.get("phase") for label in labels] == [1, 1, 1, 1, 2, 2, 2]
    assert [label.get("round") for label in labels] == [1, 1, 1, 1, 1, 1, 1]
    assert [log[i]["version"] for i in matching(log, labels, phase=2, round=1)] == [5, 6, 7]
