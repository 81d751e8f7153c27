"""Slayer rounds: leading a slayer (VQ-9), one card each (VQ-10), who takes the cards (VQ-11),
the forced pass (VQ-12), no second slayer (VQ-13) and the slayer just taken (VQ-14).

The rulebook's example seats Jon (S15), Leon (S20, start), Nina, Luke, Marie."""

from __future__ import annotations

from tests.domain.kit import Table

from .kit import PASS, check_cards_accounted, hand, play, stacked_table, state

EXAMPLE = ["Jon", "Leon", "Nina", "Luke", "Marie"]  # clockwise from Leon
FORCED = ["Dan", "Ann", "Ben"]  # Dan holds S15, Ann holds S20 and starts; then Ben, Dan


def moves(table: Table, player: str) -> set[tuple[str, ...]]:
    """A player's legal moves, a play as the tuple of its cards and a pass as ("pass",)."""
    return {tuple(m["cards"]) if m["type"] == "play" else ("pass",)
            for m in table.game.legal_moves(player)}


def example_table() -> Table:
    return stacked_table(EXAMPLE, {"Nina": ["2", "13"], "Luke": ["1"], "Marie": ["2", "13"],
                                   "Jon": ["Q", "9"]})


def test_rulebook_example_of_a_slayer_round():  # VQ-9, VQ-10, VQ-11, VQ-14
    table = example_table()
    # Check Leon leads his slayer: a slayer round with value 0, S20 now on the table.
    events = table.act("Leon", play("S20"))
    assert events[0].value == 0
    public = state(table)
    assert public["slayer_round"] is True and public["slayer_led"] == "S20"
    assert public["slayers"] == {"S15": "Jon", "S20": None}
    # Check Nina plays a 2, Luke a lower 1, Marie an equal 2, Jon a Queen counting 1.
    table.act("Nina", play("2"))
    table.act("Luke", play("1"))
    table.act("Marie", play("2"))
    events = table.act("Jon", play("Q"))
    assert table.types(events) == ["Played", "RoundEnded"]
    assert events[0].value == 1
    # Check Marie's 2 came after Nina's, so Marie takes all five cards, the slayer included.
    ended = events[1]
    assert ended.taker == "Marie" and ended.start == "Marie"
    assert ended.cards == ["1", "2", "2", "Q", "S20"]
    for card in ("1", "2", "Q", "S20"):
        assert card in hand(table, "Marie")
    public = state(table)
    assert public["slayers"] == {"S15": "Jon", "S20": "Marie"}
    assert public["hand_sizes"]["Marie"] == 13 - 1 + 5 and public["cards_out"] == 0
    assert table.game.to_act == ["Marie"] and public["slayer_round"] is False
    # Fail to lead the slayer Marie has just taken (VQ-14); everything else is open to her.
    assert public["barred"] == {"player": "Marie", "slayer": "S20"}
    table.refuse("Marie", play("S20"), "VQ-14")
    assert ("S20",) not in moves(table, "Marie") and ("13",) in moves(table, "Marie")
    check_cards_accounted(table.game)


def test_vq14_the_slayer_may_be_led_again_from_the_round_after_next():
    table = example_table()
    for player, card in [("Leon", "S20"), ("Nina", "2"), ("Luke", "1"), ("Marie", "2"),
                         ("Jon", "Q")]:
        table.act(player, play(card))
    # Check Marie leads a 13 in the very next round; nobody can beat it, so she starts again.
    table.act("Marie", play("13"))
    for player in ("Jon", "Leon", "Nina", "Luke"):
        table.act(player, PASS)
    assert table.game.to_act == ["Marie"] and state(table)["barred"] is None
    # Check in the round after next Marie may lead S20 again.
    assert ("S20",) in moves(table, "Marie")
    table.act("Marie", play("S20"))
    assert state(table)["slayer_round"] is True


def test_vq9_only_the_start_player_leads_a_slayer_and_alone():
    table = example_table()
    # Fail to lead the slayer joined by another card, or two cards at once with a slayer.
    table.refuse("Leon", play("S20", "3"), "VQ-9")
    table.refuse("Leon", play("S20", "S15"), "VQ-9")
    # Fail to lead a slayer Leon does not hold.
    table.refuse("Leon", play("S15"), "VQ-4")
    table.act("Leon", play("3"))
    for player in ("Nina", "Luke", "Marie"):
        table.act(player, PASS)
    # Fail to play S15 in a normal round as a later player, alone or in a set.
    table.refuse("Jon", play("S15"), "VQ-9")
    table.refuse("Jon", play("9", "S15"), "VQ-9")
    assert all("S15" not in move for move in moves(table, "Jon"))


def test_vq10_everyone_else_plays_exactly_one_vampire_and_nobody_passes():
    table = example_table()
    table.act("Leon", play("S20"))
    # Fail to pass, to play nothing or two cards, or a card Nina does not hold.
    table.refuse("Nina", PASS, "VQ-10")
    table.refuse("Nina", play(), "VQ-10")
    table.refuse("Nina", play("2", "13"), "VQ-10")
    table.refuse("Nina", play("12"), "VQ-10")
    # Check Nina may play any one of her values, higher or lower, and never pass.
    assert moves(table, "Nina") == {(card,) for card in set(hand(table, "Nina"))}
    table.act("Nina", play("13"))
    # Check Luke may then play lower than 13, and Marie equal to it.
    table.act("Luke", play("1"))
    table.act("Marie", play("13"))
    # Check a Queen counts 1 in a slayer round.
    events = table.act("Jon", play("Q"))
    assert events[0].value == 1
    # VQ-11: Marie's 13 equals Nina's and came later, so Marie takes the cards.
    assert events[-1].taker == "Marie"


def test_vq11_the_highest_card_takes_everything_even_when_not_last():
    table = example_table()
    table.act("Leon", play("S20"))
    table.act("Nina", play("13"))
    table.act("Luke", play("1"))
    table.act("Marie", play("2"))
    events = table.act("Jon", play("9"))
    # Check Nina's 13 takes all five cards and Nina starts the next round.
    assert events[-1].taker == "Nina" and table.game.to_act == ["Nina"]
    assert sorted(hand(table, "Nina")) == sorted(
        [*table.events[1].hands["Nina"], "1", "2", "9", "S20"])


def test_vq11_among_queens_and_ones_the_last_played_takes():
    table = stacked_table(EXAMPLE, {"Nina": ["1"], "Luke": ["Q"], "Marie": ["1"],
                                    "Jon": ["Q"]})
    table.act("Leon", play("S20"))
    for player, card in [("Nina", "1"), ("Luke", "Q"), ("Marie", "1")]:
        table.act(player, play(card))
    events = table.act("Jon", play("Q"))
    # Check all four cards count 1, so Jon's Queen, played last, takes; Jon holds both slayers.
    assert events[-1].taker == "Jon"
    assert state(table)["slayers"] == {"S15": "Jon", "S20": "Jon"}
    # VQ-14: Jon may lead S15 next, but not S20.
    assert ("S15",) in moves(table, "Jon") and ("S20",) not in moves(table, "Jon")
    table.refuse("Jon", play("S20"), "VQ-14")
    table.act("Jon", play("S15"))
    assert state(table)["slayer_led"] == "S15"


def test_vq13_a_second_slayer_is_never_played_in_a_slayer_round():
    table = example_table()
    table.act("Leon", play("S20"))
    for player, card in [("Nina", "2"), ("Luke", "1"), ("Marie", "2")]:
        table.act(player, play(card))
    # Fail to play S15 into Leon's slayer round, alone or with a vampire.
    table.refuse("Jon", play("S15"), "VQ-13")
    table.refuse("Jon", play("S15", "9"), "VQ-13")
    # Check Jon must play a vampire or Queen instead, and may not pass.
    table.refuse("Jon", PASS, "VQ-10")
    assert ("S15",) not in moves(table, "Jon") and ("pass",) not in moves(table, "Jon")
    assert ("Q",) in moves(table, "Jon") and ("9",) in moves(table, "Jon")


def forced_table() -> Table:
    """Dan sheds every vampire and is left holding only S15 when Ann leads S20."""
    table = stacked_table(FORCED, {
        "Dan": ["12"] * 8 + ["Q"] * 3 + ["3", "13"],
        "Ann": ["2", "10"],
        "Ben": ["4", "5"],
    })
    script = [
        ("Ann", play("2")), ("Ben", PASS), ("Dan", play("13")),  # Dan starts next
        ("Dan", play(*["12"] * 8, "Q", "Q", "Q")), ("Ann", PASS), ("Ben", PASS),
        ("Dan", play("3")), ("Ann", play("10")), ("Ben", PASS),  # Ann starts next
    ]
    for player, command in script:
        table.act(player, command)
    assert hand(table, "Dan") == ["S15"] and table.game.to_act == ["Ann"]
    return table


def test_vq12_holding_only_the_other_slayer_forces_a_pass_and_the_take():
    table = forced_table()
    # Check a hand of only a slayer does not end the phase (VQ-15): it is not empty.
    assert state(table)["phase"] == 1
    table.act("Ann", play("S20"))
    table.act("Ben", play("5"))
    # Fail to play S15 (VQ-13) or a vampire Dan does not have (VQ-12): Dan must pass.
    table.refuse("Dan", play("S15"), "VQ-13")
    table.refuse("Dan", play("4"), "VQ-12")
    assert moves(table, "Dan") == {("pass",)}
    events = table.act("Dan", PASS)
    # Check the forced pass is Dan's own pass, and Dan, not Ben, takes the cards and starts.
    assert table.types(events) == ["Passed", "RoundEnded"]
    assert events[0].forced is True
    assert events[1].taker == "Dan" and events[1].start == "Dan"
    assert hand(table, "Dan") == ["5", "S15", "S20"]
    assert table.game.to_act == ["Dan"]
    # VQ-14: Dan may lead his own S15 or the 5, but not the S20 he has just taken.
    assert moves(table, "Dan") == {("5",), ("S15",)}
    table.refuse("Dan", play("S20"), "VQ-14")
    check_cards_accounted(table.game)


def test_vq12_the_forced_passer_takes_even_when_a_later_card_is_higher():
    # Seats: Dan (S15), Ann (S20, start), Ben, Cid. Ann sheds all her vampires at once.
    table = stacked_table(["Dan", "Ann", "Ben", "Cid"], {
        "Ann": ["12"] * 8 + ["Q"] * 4 + ["1"], "Ben": ["5"], "Cid": ["13"], "Dan": ["13"],
    })
    script = [
        ("Ann", play(*["12"] * 8, *["Q"] * 4)), ("Ben", PASS), ("Cid", PASS), ("Dan", PASS),
        ("Ann", play("1")), ("Ben", PASS), ("Cid", PASS), ("Dan", play("13")),
    ]
    for player, command in script:
        table.act(player, command)
    assert hand(table, "Ann") == ["S20"] and table.game.to_act == ["Dan"]
    # Check Dan leads S15; Ann, holding only S20, is forced to pass in the middle of the round.
    table.act("Dan", play("S15"))
    assert moves(table, "Ann") == {("pass",)}
    table.act("Ann", PASS)
    table.act("Ben", play("5"))
    events = table.act("Cid", play("13"))
    # Check Cid's 13 is the highest card, yet Ann takes everything and starts.
    assert events[-1].taker == "Ann" and events[-1].start == "Ann"
    assert hand(table, "Ann") == ["5", "13", "S15", "S20"]
    assert state(table)["slayers"] == {"S15": "Ann", "S20": "Ann"}
    # VQ-14: Ann may lead S20, which she kept, but not the S15 she has just taken.
    assert moves(table, "Ann") == {("5",), ("13",), ("S20",)}
    table.refuse("Ann", play("S15"), "VQ-14")
    check_cards_accounted(table.game)


def test_vq12_only_a_player_holding_nothing_but_the_slayer_may_pass():
    table = example_table()
    table.act("Leon", play("S20"))
    # Check Nina, holding vampires, has no pass; the forced pass is only for a lone slayer.
    assert ("pass",) not in moves(table, "Nina")
    table.refuse("Nina", PASS, "VQ-10")


def test_vq15_a_start_player_left_with_only_a_slayer_leads_it_and_goes_out():
    table = stacked_table(FORCED, {
        "Dan": ["12"] * 8 + ["Q"] * 3 + ["3", "13"], "Ann": ["2"], "Ben": ["4", "5"],
    })
    script = [
        ("Ann", play("2")), ("Ben", PASS), ("Dan", play("13")),
        ("Dan", play(*["12"] * 8, "Q", "Q", "Q")), ("Ann", PASS), ("Ben", PASS),
        ("Dan", play("3")), ("Ann", PASS), ("Ben", PASS),  # nobody beats the 3: Dan leads again
    ]
    for player, command in script:
        table.act(player, command)
    # Check Dan, start player holding only S15, has exactly one lead: the slayer (VQ-4, VQ-9).
    assert hand(table, "Dan") == ["S15"] and moves(table, "Dan") == {("S15",)}
    table.act("Dan", play("S15"))
    table.act("Ann", play("1"))
    events = table.act("Ben", play("5"))
    # Check Ben takes S15 (VQ-11); Dan's hand stays empty, so the phase ends with Dan at 0.
    assert table.types(events) == ["Played", "RoundEnded", "PhaseScored", "PhaseDealt"]
    assert events[1].taker == "Ben" and events[2].minus["Dan"] == 0
    assert state(table)["slayers"] == {"S15": "Ben", "S20": "Ann"}
