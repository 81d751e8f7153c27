"""Normal rounds: leading (VQ-4), raising or passing (VQ-5), Queens (VQ-6), the round's end
(VQ-7) and skipped players (VQ-8). Seats: Luke (S15), Marie (S20, start), Jon, Leon, Nina."""

from __future__ import annotations

from eventsourcing.domain import event

from domain.core import Command, Param
from domain.vampire_queen import GAME
from tests.domain.kit import Table

from .kit import (
    PASS,
    check_cards_accounted,
    hand,
    play,
    state,
    topped_up,
)
from .kit import stacked_table as _stacked

PLAYERS = ["Luke", "Marie", "Jon", "Leon", "Nina"]  # clockwise from Marie: Jon, Leon, Nina, Luke


def stacked(hands: dict[str, list[str]]) -> Table:
    """A five-player table, phase 1 stacked (the rest of each hand is low filler)."""
    return _stacked(PLAYERS, hands)


def moves(table: Table, player: str) -> set[tuple[str, ...]]:
    """A player's legal moves, a play as the tuple of its cards and a pass as ("pass",)."""
    return {tuple(m["cards"]) if m["type"] == "play" else ("pass",)
            for m in table.game.legal_moves(player)}


def as_moves(*moves: list[str] | str) -> set[tuple[str, ...]]:
    """Expected moves in the shape `moves` returns."""
    return {("pass",) if m == "pass" else tuple(m) for m in moves}


def test_rulebook_example_of_a_normal_round():  # VQ-4, VQ-5, VQ-7
    table = stacked({"Marie": ["6"] * 3, "Jon": ["8"] * 3, "Nina": ["11"] * 3})
    # Check Marie leads three 6s: the round is now played with three cards.
    table.act("Marie", play("6", "6", "6"))
    assert state(table)["count"] == 3
    # Check Jon raises with three 8s, Leon passes, Nina raises with three 11s, Luke passes.
    table.act("Jon", play("8", "8", "8"))
    table.act("Leon", PASS)
    table.act("Nina", play("11", "11", "11"))
    assert [e["action"] for e in state(table)["plays"]] == ["play", "play", "pass", "play"]
    events = table.act("Luke", PASS)
    # Check every player had a turn, so the round ended: Nina played highest and starts next.
    assert table.types(events) == ["Passed", "RoundEnded"]
    public = state(table)
    assert public["round"] == 2 and public["start_player"] == "Nina"
    assert table.game.to_act == ["Nina"] and public["plays"] == []
    # Check the nine cards played are out for this phase.
    assert public["cards_out"] == 9
    assert public["hand_sizes"] == {"Luke": 14, "Marie": 11, "Jon": 10, "Leon": 13, "Nina": 10}
    check_cards_accounted(table.game)


def test_vq4_start_player_leads_any_set_of_one_value_or_a_slayer():
    marie = ["5"] * 8 + ["9"] * 4 + ["Q"]
    table = stacked({"Marie": marie})
    # Check the leads are every count of one value, Queens joining, Queens alone, or S20.
    expected = [["5"] * j + ["Q"] * i for j in range(1, 9) for i in range(2)]
    expected += [["9"] * j + ["Q"] * i for j in range(1, 5) for i in range(2)]
    expected += [["Q"], ["S20"]]
    assert moves(table, "Marie") == as_moves(*expected)
    # Fail to lead two values at once (VQ-6), nothing (VQ-4) or cards Marie does not hold (VQ-4).
    table.refuse("Marie", play("5", "9"), "VQ-6")
    table.refuse("Marie", play(), "VQ-4")
    table.refuse("Marie", play("9", "9", "9", "9", "9"), "VQ-4")
    table.refuse("Marie", play("Q", "Q"), "VQ-4")
    table.refuse("Marie", play("13"), "VQ-4")
    # Check a lead of five 5s fixes the count of the round at five.
    table.act("Marie", play("5", "5", "5", "5", "5"))
    assert state(table)["count"] == 5


def test_vq4_start_player_may_not_pass():
    table = stacked({})
    # Fail to pass as the start player: a round needs a lead.
    table.refuse("Marie", PASS, "VQ-4")
    assert ("pass",) not in moves(table, "Marie")


def test_vq5_raise_with_exactly_the_count_and_higher_than_the_last_set():
    table = stacked({"Marie": ["6"] * 3, "Jon": ["8"] * 3,
                     "Leon": ["7"] * 3 + ["9"] * 4 + ["10"] * 2 + ["Q"]})
    table.act("Marie", play("6", "6", "6"))
    table.act("Jon", play("8", "8", "8"))
    # Fail to raise with three 7s: higher than Marie's 6s but not than Jon's 8s, the last played.
    table.refuse("Leon", play("7", "7", "7"), "VQ-5")
    # Fail to raise with the wrong number of cards.
    table.refuse("Leon", play("9", "9"), "VQ-5")
    table.refuse("Leon", play("9", "9", "9", "9"), "VQ-5")
    table.refuse("Leon", play(), "VQ-5")
    # Fail to raise with cards Leon does not hold.
    table.refuse("Leon", play("11", "11", "11"), "VQ-5")
    table.refuse("Leon", play("10", "10", "10"), "VQ-5")
    # Check Leon's choices: pass, three 9s (a Queen may join), or two 10s and the Queen.
    assert moves(table, "Leon") == as_moves(
        "pass", ["9", "9", "9"], ["9", "9", "Q"], ["10", "10", "Q"])
    # Check a raise accepts its cards in any order and records them sorted.
    events = table.act("Leon", play("Q", "10", "10"))
    assert events[0].cards == ["10", "10", "Q"] and events[0].value == 10


def test_vq5_passing_is_always_allowed_in_a_normal_round():
    table = stacked({"Marie": ["2"], "Jon": ["13"], "Leon": ["Q"]})
    table.act("Marie", play("2"))
    # Check Jon may pass although he could raise, and then Leon may too.
    assert ("pass",) in moves(table, "Jon")
    table.act("Jon", PASS)
    table.act("Leon", PASS)
    assert state(table)["plays"][-1] == {"player": "Leon", "action": "pass", "cards": [],
                                         "value": None}


def test_vq6_queens_take_the_value_of_the_vampires_they_join():
    table = stacked({"Marie": ["10"] * 3, "Jon": ["11", "11", "Q"], "Leon": ["11"] * 3,
                     "Nina": ["12"] * 3})
    table.act("Marie", play("10", "10", "10"))
    # Check the rulebook's example: two 11s and a Queen are three 11s.
    events = table.act("Jon", play("11", "11", "Q"))
    assert events[0].value == 11
    # Fail to beat them with three 11s; three 12s are higher.
    table.refuse("Leon", play("11", "11", "11"), "VQ-5")
    table.act("Leon", PASS)
    table.act("Nina", play("12", "12", "12"))
    assert state(table)["highest"] == {"player": "Nina", "value": 12}


def test_vq6_queens_alone_count_14_and_cannot_be_beaten():
    table = stacked({"Marie": ["13"], "Jon": ["Q"], "Leon": ["Q", "12"], "Nina": ["13"]})
    table.act("Marie", play("13"))
    # Check a single Queen beats a 13 and counts 14.
    events = table.act("Jon", play("Q"))
    assert events[0].value == 14
    # Fail to beat it with another Queen: 14 is not higher than 14. Passing is all that is left.
    table.refuse("Leon", play("Q"), "VQ-5")
    assert moves(table, "Leon") == as_moves("pass")
    table.act("Leon", PASS)
    assert moves(table, "Nina") == as_moves("pass")


def test_vq6_a_pair_of_13s_is_beaten_only_by_a_pair_of_queens():
    table = stacked({"Marie": ["13", "13"], "Jon": ["13", "12", "12", "Q", "Q"],
                     "Leon": ["Q", "Q"]})
    table.act("Marie", play("13", "13"))
    # Fail to beat two 13s with a 13 and a Queen (they count 13) or a 12 and a Queen.
    table.refuse("Jon", play("13", "Q"), "VQ-5")
    table.refuse("Jon", play("12", "Q"), "VQ-5")
    assert moves(table, "Jon") == as_moves("pass", ["Q", "Q"])
    # Check two Queens beat them, and nothing beats two Queens.
    table.act("Jon", play("Q", "Q"))
    assert moves(table, "Leon") == as_moves("pass")
    table.refuse("Leon", play("Q", "Q"), "VQ-5")


def test_vq6_a_set_is_one_value_and_queens_never_change_it():
    table = stacked({"Marie": ["9", "9"], "Jon": ["12", "13", "10", "Q"],
                     "Leon": ["10", "10", "10"]})
    table.act("Marie", play("9", "9"))
    # Fail to raise with two values at once, even with a Queen beside them.
    table.refuse("Jon", play("12", "13"), "VQ-6")
    table.refuse("Jon", play("10", "12", "Q"), "VQ-5")  # three cards: the count comes first
    # Check Jon's choices: every value above 9 he holds, alone or joined by his Queen.
    assert moves(table, "Jon") == as_moves("pass", ["10", "Q"], ["12", "Q"], ["13", "Q"])
    table.act("Jon", play("10", "Q"))
    # Fail to beat two 10s with two 10s.
    table.refuse("Leon", play("10", "10"), "VQ-5")


def test_vq6_queens_may_join_a_lead():
    table = stacked({"Marie": ["2", "Q", "Q"], "Jon": ["3", "3", "3"]})
    events = table.act("Marie", play("Q", "2", "Q"))
    # Check the Queens took the value 2 and the round is played with three cards.
    assert events[0].cards == ["2", "Q", "Q"] and events[0].value == 2
    assert ("3", "3", "3") in moves(table, "Jon")
    table.act("Jon", play("3", "3", "3"))


def test_vq7_if_everyone_passes_the_start_player_leads_again():
    table = stacked({"Marie": ["7", "7"]})
    table.act("Marie", play("7", "7"))
    for player in ("Jon", "Leon", "Nina"):
        table.act(player, PASS)
    events = table.act("Luke", PASS)
    # Check the round ended with Marie as start player again; her cards are out.
    assert events[-1].start == "Marie" and events[-1].taker is None
    assert events[-1].cards == ["7", "7"]
    assert table.game.to_act == ["Marie"] and state(table)["round"] == 2
    assert hand(table, "Marie").count("7") == 0
    assert state(table)["cards_out"] == 2
    check_cards_accounted(table.game)


def test_vq7_cards_played_never_come_back_in_this_phase():
    table = stacked({"Marie": ["4"], "Jon": ["9"], "Leon": ["12"]})
    for player, command in [("Marie", play("4")), ("Jon", play("9")), ("Leon", play("12")),
                            ("Nina", PASS), ("Luke", PASS)]:
        table.act(player, command)
    # Check Leon, the highest, starts; all three cards are out, in nobody's hand.
    assert table.game.to_act == ["Leon"]
    assert table.game.full_state()["out"] == ["4", "9", "12"]
    assert state(table)["hand_sizes"]["Jon"] == 12
    table.check_rebuilt()


class EmptyingTable(GAME):
    """Vampire Queen plus a test-only command that empties another player's hand mid-round.

    VQ-8 cannot happen in real play: every hand holds a card when a round starts (VQ-2 deals
    at least 9, VQ-15 ends the phase after any round that leaves a hand empty) and a player's
    cards leave only on their own single turn of the round. This subclass reaches it anyway."""

    COMMANDS = {**GAME.COMMANDS, "empty": Command("empty", {"victim": Param(str)})}

    def empty(self, player: str, victim: str) -> None:
        """Move the victim's cards aside (test only)."""
        self._emptied(victim=victim)

    @event("HandEmptied")
    def _emptied(self, victim: str) -> None:
        self.set_aside = [*self.set_aside, *self.hands[victim]]
        self.hands[victim] = []


def test_vq8_a_player_without_cards_is_skipped_by_an_event():
    deal = {"phases": [topped_up(PLAYERS, {"Marie": ["6"]})]}
    table = Table(EmptyingTable, PLAYERS, seed=4, deal=deal)
    table.act("Marie", {"type": "empty", "victim": "Jon"})
    # Check Marie's lead is followed at once by an automatic pass for Jon, recorded as Skipped.
    events = table.act("Marie", play("6"))
    assert table.types(events) == ["Played", "Skipped"]
    assert events[1].player == "Jon"
    assert table.game.to_act == ["Leon"]
    assert state(table)["plays"][1] == {"player": "Jon", "action": "skip", "cards": [],
                                        "value": None}
    table.check_rebuilt()
    # Check the round still ends after the others, and the empty hand then ends the phase.
    table.act("Leon", PASS)
    table.act("Nina", PASS)
    events = table.act("Luke", PASS)
    assert table.types(events) == ["Passed", "RoundEnded", "PhaseScored", "PhaseDealt"]
    assert events[2].minus["Jon"] == 0
    table.check_rebuilt()
