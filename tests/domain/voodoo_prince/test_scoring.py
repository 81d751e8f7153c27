"""Finishing, the last player, two players and the end of the game (VP-10 … VP-13)."""

from __future__ import annotations

import pytest

from domain.core import GameFinished
from domain.voodoo_prince import GAME
from tests.domain.kit import Table

from .kit import FOUR, hands_with, play_trick, script, table

DUO = ["Carsten", "Ulrich"]
# The rulebook's example: Marie takes her third trick while Lukas holds 2, Leon 1, Nina 1;
# then Lukas, Leon and Nina play on.
MARIE = ["Nina", "Leon", "Lukas", "Marie", "Lukas", "Marie", "Marie"]
AFTER_MARIE = ["Lukas", "Leon", "Leon"]


def events_of(events, type_):
    return [e for e in events if type(e).__name__ == type_]


def marie_table(rounds: int = 1):
    tricks, wanted = script(FOUR, MARIE + AFTER_MARIE)
    return tricks, table(FOUR, wanted, rounds=rounds)


def test_vp10_rulebook_example_marie_finishes_and_scores_2_1_1():
    tricks, t = marie_table()
    hand_before = None
    for i, trick in enumerate(tricks[:7]):
        if i == 6:
            hand_before = [c for c in t.game.hands["Marie"] if c != trick[0][1]]
        events = play_trick(t, trick)
    # Check Marie is out with 2 + 1 + 1 = 4 points
    (finished,) = events_of(events, "PlayerFinished")
    assert (finished.player, finished.points) == ("Marie", 4)
    state = t.game.public_state()
    assert state["tricks"] == {"Marie": 3, "Lukas": 2, "Leon": 1, "Nina": 1}
    assert state["out"] == ["Marie"]
    assert state["round_points"]["Marie"] == 4 and t.game.scores["Marie"] == 4
    # Check her remaining cards are laid aside, out of play
    assert t.game.private_state("Marie") == {"hand": []}
    assert state["hand_sizes"]["Marie"] == 0
    assert t.game.full_state()["set_aside"] == {"Marie": hand_before}
    # Check Lukas, to her left, leads; Marie is skipped in the turn order (VP-9)
    assert t.game.to_act == ["Lukas"]
    assert t.game.legal_moves("Marie") == []
    play_trick(t, tricks[7][:2])
    assert t.game.to_act == ["Nina"]
    t.check_rebuilt()


def test_vp10_finished_players_tricks_count_for_later_finishers():
    tricks, t = marie_table()
    for trick in tricks[:7]:
        play_trick(t, trick)
    # Check Lukas finishes next with Marie's 3 + Leon's 1 + Nina's 1 = 5
    events = play_trick(t, tricks[7])
    (finished,) = events_of(events, "PlayerFinished")
    assert (finished.player, finished.points, finished.leader) == ("Lukas", 5, "Leon")
    # Check Leon, finishing third, counts every other trick on the table: 3 + 3 + 1 = 7
    play_trick(t, tricks[8])
    events = play_trick(t, tricks[9])
    (finished,) = events_of(events, "PlayerFinished")
    assert (finished.player, finished.points, finished.leader) == ("Leon", 7, None)
    assert t.game.public_state()["out"] == ["Marie", "Lukas", "Leon"]


def test_vp11_the_last_player_scores_own_tricks_and_deals_next():
    tricks, t = marie_table(rounds=2)
    for trick in tricks:
        events = play_trick(t, trick)
    # Check the round ends with Nina alone: she scores only her own 1 trick
    assert t.types(events)[-4:] == ["TrickWon", "PlayerFinished", "RoundEnded", "RoundDealt"]
    (ended,) = events_of(events, "RoundEnded")
    assert (ended.round, ended.last, ended.points) == (1, "Nina", {"Nina": 1})
    assert t.game.scores == {"Marie": 4, "Lukas": 5, "Leon": 7, "Nina": 1}
    assert t.game.public_state()["past_rounds"] == [t.game.scores]
    # Check Nina deals round 2 and is the one to choose trump
    assert (t.game.round, t.game.dealer, t.game.trump) == (2, "Nina", None)
    assert t.game.to_act == ["Nina"]
    state = t.game.public_state()
    assert state["tricks"] == dict.fromkeys(FOUR, 0)
    assert state["out"] == [] and state["round_points"] == dict.fromkeys(FOUR, 0)
    t.check_rebuilt()


def two_player(winners: list[str], rounds: int = 1) -> tuple[list, Table]:
    tricks, wanted = script(DUO, winners)
    return tricks, table(DUO, wanted, rounds=rounds)


def test_vp12_rulebook_example_carsten_7_ulrich_2():
    winners = ["Ulrich", "Carsten", "Carsten", "Carsten", "Ulrich"] + ["Carsten"] * 4
    tricks, t = two_player(winners, rounds=2)
    for trick in tricks:
        events = play_trick(t, trick)
    # Check Carsten with 7 tricks scores Ulrich's 2; Ulrich scores the 5 he lacks of 7
    (finished,) = events_of(events, "PlayerFinished")
    assert (finished.player, finished.points) == ("Carsten", 2)
    (ended,) = events_of(events, "RoundEnded")
    assert (ended.last, ended.points) == ("Ulrich", {"Ulrich": 5})
    assert t.game.scores == {"Carsten": 2, "Ulrich": 5}
    # Check the opponent, Ulrich, deals the next round
    assert (t.game.round, t.game.dealer, t.game.to_act) == (2, "Ulrich", ["Ulrich"])


def test_vp12_rulebook_example_ulrich_6_gives_1_and_6():
    winners = ["Ulrich"] * 6 + ["Carsten"] * 7
    tricks, t = two_player(winners)
    for trick in tricks:
        play_trick(t, trick)
    # Check all 13 cards were needed, and the points are 6 and 1
    assert t.game.hands == {"Carsten": [], "Ulrich": []}
    assert t.game.full_state()["set_aside"] == {"Carsten": []}
    assert t.game.scores == {"Carsten": 6, "Ulrich": 1}
    assert sum(t.game.public_state()["past_rounds"][0].values()) == 7


def test_vp12_reaching_8_through_a_split_still_gives_7_points_in_all():
    tricks, wanted = script(DUO, ["Carsten"] * 6)
    wanted["Carsten"].append("Y5")
    wanted["Ulrich"].append("Y1")
    t = table(DUO, wanted)
    for trick in tricks:
        play_trick(t, trick)
    events = play_trick(t, [("Carsten", "Y5"), ("Ulrich", "Y1")])
    # Check the yellow 5 splits: 8 tricks; Carsten scores 0, Ulrich 7 - 0 = 7
    assert t.game.public_state()["tricks"] == {"Carsten": 8, "Ulrich": 0}
    assert events_of(events, "PlayerFinished")[0].points == 0
    assert t.game.scores == {"Carsten": 0, "Ulrich": 7}


def test_vp13_most_points_wins_after_the_last_round():
    tricks, t = marie_table(rounds=1)
    for trick in tricks:
        events = play_trick(t, trick)
    # Check the game ends after its only round: Leon's 7 points win
    assert t.types(events)[-2:] == ["RoundEnded", "GameEnded"]
    assert t.game.finished and t.game.winners == ["Leon"]
    assert events[-1].winners == ["Leon"]
    assert t.game.to_act == [] and t.game.legal_moves("Lukas") == []
    # Fail to play on after the end
    with pytest.raises(GameFinished, match=r"\(VP-13\)$") as refused:
        t.game.execute("Lukas", {"type": "play", "card": t.game.hands["Nina"][0]})
    assert refused.value.rule == "VP-13"
    t.check_rebuilt()


def test_vp13_a_tie_gives_several_winners():
    # Round 1: Carsten 7 tricks, Ulrich 2 (2 and 5 points). Round 2, dealt by Ulrich, who
    # chooses blue: Ulrich 7 tricks, Carsten 2 (5 and 2 points). 7 each: both win.
    first = ["Ulrich", "Ulrich"] + ["Carsten"] * 7
    second = ["Carsten", "Carsten"] + ["Ulrich"] * 7
    tricks1, wanted1 = script(DUO, first)
    tricks2, wanted2 = script(DUO, second, leader="Ulrich")
    deal = {"rounds": [{"trump": "B", "hands": hands_with(DUO, wanted1)},
                       {"hands": hands_with(DUO, wanted2)}]}
    t = Table(GAME, DUO, seed=3, options={"rounds": 2}, deal=deal)
    for trick in tricks1:
        play_trick(t, trick)
    assert t.game.scores == {"Carsten": 2, "Ulrich": 5} and not t.game.finished
    t.act("Ulrich", {"type": "choose_trump", "trump": "B"})
    for trick in tricks2:
        play_trick(t, trick)
    assert t.game.finished
    assert t.game.scores == {"Carsten": 7, "Ulrich": 7}
    assert t.game.winners == ["Carsten", "Ulrich"]
    assert t.game.public_state()["past_rounds"] == [{"Carsten": 2, "Ulrich": 5},
                                                    {"Carsten": 5, "Ulrich": 2}]
    t.check_rebuilt()
