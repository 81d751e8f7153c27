"""The end of a phase (VQ-15), scoring (VQ-16), later phases (VQ-3) and the end (VQ-17)."""

from __future__ import annotations

import pytest

from domain.core import SPECTATOR, GameFinished, event_data
from domain.vampire_queen.cards import minus_points, sort_cards
from domain.vampire_queen.deal import seeded_hands
from tests.domain.kit import Table

from .kit import PASS, check_cards_accounted, hand, play, stacked_table, state

QUICK = ["Ben", "Ann", "Cid"]  # Ben holds S15; Ann holds S20 and starts; then Cid, Ben
CID_EMPTIES = {"Cid": ["11"] * 8 + ["Q"] * 4 + ["13"], "Ann": ["2"]}


def quick_phase(table: Table, *, last: bool = True) -> list:
    """Cid takes the lead with a 13, then leads all twelve other cards at once."""
    for player, command in [("Ann", play("2")), ("Cid", play("13")), ("Ben", PASS),
                            ("Cid", play(*["11"] * 8, *["Q"] * 4)), ("Ben", PASS)]:
        table.act(player, command)
    return table.act("Ann", PASS) if last else []


def test_vq15_the_phase_ends_only_at_the_end_of_the_round():
    table = stacked_table(QUICK, CID_EMPTIES)
    quick_phase(table, last=False)
    # Check Cid's hand is empty but the round goes on: Ann still has her turn, phase 1 runs.
    assert hand(table, "Cid") == [] and table.game.to_act == ["Ann"]
    assert state(table)["phase"] == 1
    ann = hand(table, "Ann")
    ben = hand(table, "Ben")
    events = table.act("Ann", PASS)
    # Check the round ends, the phase is scored, and phase 2 is dealt, all in Ann's command.
    assert table.types(events) == ["Passed", "RoundEnded", "PhaseScored", "PhaseDealt"]
    scored = event_data(events[2])
    # VQ-16: minus points per player are recorded, not the hands' contents.
    assert scored == {"phase": 1, "minus": {"Ben": minus_points(ben), "Ann": minus_points(ann),
                                            "Cid": 0},
                      "scores": {"Ben": minus_points(ben), "Ann": minus_points(ann), "Cid": 0}}
    assert "S15" in ben and "S20" in ann
    assert table.game.scores == scored["scores"]
    public = state(table)
    assert public["minus_points"] == [scored["minus"]]
    assert public["total_minus_points"] == scored["scores"]


def test_vq3_later_phase_slayers_stay_and_the_s20_holder_starts():
    table = stacked_table(QUICK, CID_EMPTIES, seed="phase-two")
    quick_phase(table)
    public = state(table)
    # Check phase 2 begins at round 1, the slayers stay, Ann (S20) starts.
    assert public["phase"] == 2 and public["round"] == 1 and public["plays"] == []
    assert public["slayers"] == {"S15": "Ben", "S20": "Ann"}
    assert table.game.to_act == ["Ann"] and public["start_player"] == "Ann"
    # Check all 108 other cards were reshuffled and dealt by the table again, from the seed.
    hands, set_aside = seeded_hands("phase-two", QUICK, 2)
    assert hand(table, "Cid") == hands["Cid"]
    assert hand(table, "Ben") == [*hands["Ben"], "S15"]
    assert hand(table, "Ann") == [*hands["Ann"], "S20"]
    assert public["hand_sizes"] == {"Ben": 14, "Ann": 14, "Cid": 13}
    assert public["cards_out"] == 0 and table.game.full_state()["set_aside"] == set_aside
    check_cards_accounted(table.game)


def test_vq3_the_slayer_taken_last_phase_decides_who_starts():
    # The rulebook's slayer round, then Nina goes out: Marie keeps S20 into phase 2.
    players = ["Jon", "Leon", "Nina", "Luke", "Marie"]
    table = stacked_table(players, {
        "Nina": ["2", "13", *["11"] * 8, "Q", "Q", "Q"], "Luke": ["1"], "Marie": ["2", "3"],
        "Jon": ["Q"],
    })
    script = [
        ("Leon", play("S20")), ("Nina", play("2")), ("Luke", play("1")), ("Marie", play("2")),
        ("Jon", play("Q")),  # Marie takes S20 and starts
        ("Marie", play("3")), ("Jon", PASS), ("Leon", PASS), ("Nina", play("13")),
        ("Luke", PASS),  # Nina starts
        ("Nina", play(*["11"] * 8, "Q", "Q", "Q")), ("Luke", PASS), ("Marie", PASS),
        ("Jon", PASS), ("Leon", PASS),
    ]
    for player, command in script:
        table.act(player, command)
    public = state(table)
    # Check phase 2: Jon kept S15, Marie kept S20 and is start player, one card more each.
    assert public["phase"] == 2 and public["slayers"] == {"S15": "Jon", "S20": "Marie"}
    assert table.game.to_act == ["Marie"]
    assert public["hand_sizes"] == {"Jon": 14, "Leon": 13, "Nina": 13, "Luke": 13, "Marie": 14}
    assert table.game.scores["Nina"] == 0
    check_cards_accounted(table.game)


def slayer_takeback(last: str) -> Table:
    """Four players; Cid sheds all but one card, then Dan leads S15 and Cid plays his last."""
    # Seats: Dan (S15), Ann (S20, start), Ben, Cid.
    table = stacked_table(["Dan", "Ann", "Ben", "Cid"], {
        "Ann": ["2"] * 8 + ["5"], "Ben": ["1"], "Dan": ["12"] * 4,
        "Cid": ["11"] * 8 + ["6", "Q", "Q", "Q", last],
    })
    script = [
        ("Ann", play(*["2"] * 8)), ("Ben", PASS), ("Cid", play(*["11"] * 8)), ("Dan", PASS),
        ("Cid", play("6", "Q", "Q", "Q")), ("Dan", play(*["12"] * 4)), ("Ann", PASS),
        ("Ben", PASS),  # Dan starts; Cid holds his last card
        ("Dan", play("S15")), ("Ann", play("5")), ("Ben", play("1")),
    ]
    for player, command in script:
        table.act(player, command)
    assert hand(table, "Cid") == [last]
    return table


@pytest.mark.parametrize("last", ["13", "5"])
def test_vq15_emptying_a_hand_in_a_slayer_round_and_taking_back_goes_on(last):
    table = slayer_takeback(last)
    events = table.act("Cid", play(last))
    # Check Cid played his last card but, highest (or equal and later, VQ-11), takes the four
    # cards back: nobody's hand is empty, so the phase goes on.
    assert table.types(events) == ["Played", "RoundEnded"]
    assert events[1].taker == "Cid"
    assert hand(table, "Cid") == sort_cards(["1", "5", last, "S15"])
    assert state(table)["phase"] == 1 and table.game.to_act == ["Cid"]
    # VQ-14: Cid may not lead the S15 he has just taken.
    table.refuse("Cid", play("S15"), "VQ-14")


def test_vq15_emptying_a_hand_in_a_slayer_round_without_taking_ends_the_phase():
    table = slayer_takeback("1")
    events = table.act("Cid", play("1"))
    # Check Ann's 5 is highest, so Ann takes S15 and the cards; Cid stays empty: phase over.
    assert table.types(events) == ["Played", "RoundEnded", "PhaseScored", "PhaseDealt"]
    assert events[1].taker == "Ann" and events[2].minus["Cid"] == 0
    # VQ-3: Ann keeps both slayers into phase 2, starts it and holds two cards more.
    public = state(table)
    assert public["phase"] == 2 and public["slayers"] == {"S15": "Ann", "S20": "Ann"}
    assert table.game.to_act == ["Ann"] and public["hand_sizes"]["Ann"] == 15
    # VQ-14: in a new phase the restriction is gone: Ann may lead S15 and S20.
    assert public["barred"] is None
    leads = [m["cards"] for m in table.game.legal_moves("Ann")]
    assert ["S15"] in leads and ["S20"] in leads
    table.act("Ann", play("S15"))


def test_vq16_rulebook_example_luke_scores_27():
    # Seats: Ann (S15), Bea (S20, start), Cid, Luke. Luke ends holding 3, 10 and a Queen.
    table = stacked_table(["Ann", "Bea", "Cid", "Luke"], {
        "Bea": ["2"] * 5, "Cid": ["12"] * 5 + ["13"] * 8,
        "Luke": ["3", "10", "Q", *["8"] * 5, *["11"] * 5],
    }, phases_option=1)
    script = [
        ("Bea", play(*["2"] * 5)), ("Cid", PASS), ("Luke", play(*["8"] * 5)), ("Ann", PASS),
        ("Luke", play(*["11"] * 5)), ("Ann", PASS), ("Bea", PASS), ("Cid", play(*["12"] * 5)),
        ("Cid", play(*["13"] * 8)), ("Luke", PASS), ("Ann", PASS),
    ]
    for player, command in script:
        table.act(player, command)
    ann, bea = hand(table, "Ann"), hand(table, "Bea")
    assert hand(table, "Luke") == ["3", "10", "Q"]
    events = table.act("Bea", PASS)
    assert table.types(events) == ["Passed", "RoundEnded", "PhaseScored", "GameEnded"]
    minus = events[2].minus
    # Check Luke's 3 + 10 + 14 = 27, and the slayers count 15 and 20.
    assert minus["Luke"] == 27
    assert minus["Ann"] == sum(int(c) for c in ann if c.isdigit()) + 15
    assert minus["Bea"] == sum(int(c) for c in bea if c.isdigit()) + 20
    assert minus["Cid"] == 0
    # VQ-17: fewest minus points win.
    assert table.game.winners == ["Cid"] and table.game.finished
    assert table.game.scores == minus


def test_vq16_minus_points_add_up_over_phases_and_vq17_ends_after_the_last():
    table = stacked_table(QUICK, CID_EMPTIES, CID_EMPTIES, phases_option=2)
    quick_phase(table)
    first = dict(table.game.scores)
    quick_phase(table, last=False)
    ann, ben = hand(table, "Ann"), hand(table, "Ben")
    events = table.act("Ann", PASS)
    # Check phase 2 was the last: scored, then the game ended with the running totals.
    assert table.types(events) == ["Passed", "RoundEnded", "PhaseScored", "GameEnded"]
    second = {"Ben": minus_points(ben), "Ann": minus_points(ann), "Cid": 0}
    assert events[2].minus == second
    totals = {p: first[p] + second[p] for p in QUICK}
    assert table.game.scores == totals == events[3].scores
    assert state(table)["minus_points"] == [first, second]
    assert table.game.winners == ["Cid"] and events[3].winners == ["Cid"]
    # Check nothing more can be done once finished.
    assert table.game.to_act == [] and all(table.game.legal_moves(p) == [] for p in QUICK)
    for player in QUICK:
        assert table.refuse(player, play("2"), "VQ-17").__class__ is GameFinished
        table.refuse(player, PASS, "VQ-17")
    view = table.game.view(SPECTATOR)
    assert view["status"] == "finished" and view["winners"] == ["Cid"]


def test_vq17_a_tie_gives_several_winners():
    # Twelve players, nine cards each: Ann (S20) leads all nine; Ben and Dan raise with all nine.
    players = ["Lou", "Ann", "Ben", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Max"]
    table = stacked_table(players, {"Ann": ["1"] * 8 + ["Q"], "Ben": ["2"] * 8 + ["Q"],
                                    "Dan": ["3"] * 8 + ["Q"]}, phases_option=1)
    table.act("Ann", play(*["1"] * 8, "Q"))
    table.act("Ben", play(*["2"] * 8, "Q"))
    table.act("Dan", play(*["3"] * 8, "Q"))
    events = []
    for player in players[4:] + players[:1]:
        events = table.act(player, PASS)
    # Check Ben and Dan emptied their hands in the same round: 0 each, both win. Ann kept S20.
    assert table.types(events)[-2:] == ["PhaseScored", "GameEnded"]
    assert table.game.scores["Ann"] == 20
    assert table.game.winners == ["Ben", "Dan"]
    assert all(table.game.scores[p] > 0 for p in players if p not in ("Ben", "Dan"))
    check_cards_accounted(table.game)
