"""Seats, setup and dealing (VQ-1, VQ-2), options, stacked deals, seeds and what views show."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.core import HOST, SPECTATOR, BadCommand, BadSetup, Viewer, event_data, shuffled
from domain.vampire_queen import GAME
from domain.vampire_queen.cards import CARDS_EACH, DECK, sort_cards
from tests.domain.kit import Table

from .kit import PASS, check_cards_accounted, hand, play, stacked_table, state, topped_up

NAMES = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou"]
EXAMPLE = ["Luke", "Marie", "Jon", "Leon", "Nina"]  # clockwise from Marie, the start player


def test_vq1_turns_go_clockwise_from_the_start_player_and_wrap():
    table = stacked_table(EXAMPLE, {"Marie": ["6", "6", "6"]})
    seen = []
    # Check the start player (seat 1) acts first, then seats 2, 3, 4 and, wrapping, seat 0.
    for _ in EXAMPLE:
        player = table.game.to_act[0]
        seen.append(player)
        table.act(player, play("6", "6", "6") if player == "Marie" else PASS)
    assert seen == ["Marie", "Jon", "Leon", "Nina", "Luke"]


def test_vq1_nobody_acts_out_of_turn():
    table = stacked_table(EXAMPLE, {"Marie": ["6", "6", "6"], "Leon": ["9", "9", "9"]})
    # Fail to play before the start player (VQ-1), and fail to pass for someone else.
    table.refuse("Leon", play("9", "9", "9"), "VQ-1")
    table.refuse("Luke", PASS, "VQ-1")
    table.act("Marie", play("6", "6", "6"))
    # Fail to skip Jon's turn.
    table.refuse("Leon", play("9", "9", "9"), "VQ-1")
    assert table.game.legal_moves("Leon") == []
    assert table.game.to_act == ["Jon"]


@pytest.mark.parametrize("count", range(3, 13))
def test_vq2_phase_one_seats_slayers_and_hand_sizes(count):
    players = NAMES[:count]
    table = Table(GAME, players, seed=f"table-{count}")
    each = CARDS_EACH[count]
    public = state(table)
    # Check seat 0 holds S15, seat 1 holds S20 and is the start player.
    assert public["slayers"] == {"S15": players[0], "S20": players[1]}
    assert public["start_player"] == players[1]
    assert table.game.to_act == [players[1]]
    assert public["phase"] == 1 and public["round"] == 1
    # Check every player got the table amount; the slayer holders hold one card more.
    assert public["hand_sizes"] == {p: each + (1 if i < 2 else 0) for i, p in enumerate(players)}
    assert "S15" in hand(table, players[0]) and "S20" in hand(table, players[1])
    # Check the rest of the 108 cards is set aside, and every card is accounted for.
    assert len(table.game.full_state()["set_aside"]) == 108 - count * each
    check_cards_accounted(table.game)


def test_vq2_table_of_the_rulebook():
    # Check the left-over counts printed in the rulebook's table follow from the hand sizes.
    left_over = {3: 69, 4: 56, 5: 43, 6: 30, 7: 17, 8: 4, 9: 0, 10: 8, 11: 9, 12: 0}
    assert {n: 108 - n * each for n, each in CARDS_EACH.items()} == left_over


def test_vq2_seeded_deal_is_gruft_shuffle_of_the_phase_label():
    players = NAMES[:4]
    table = Table(GAME, players, seed=77)
    # Check the deal is the documented one: shuffle the 108 cards with the phase label,
    # seat 0 takes the first 13, seat 1 the next 13, …; the rest is set aside.
    deck = shuffled(77, "vampire-queen/phase/1", DECK)
    dealt = table.events[1]
    assert type(dealt).__name__ == "PhaseDealt"
    data = event_data(dealt)
    for i, p in enumerate(players):
        assert data["hands"][p] == sort_cards(deck[13 * i:13 * (i + 1)])
    assert data["set_aside"] == sort_cards(deck[52:])
    assert data["slayers"] == {"S15": "Ann", "S20": "Ben"} and data["start"] == "Ben"


def test_same_seed_same_deal_other_seed_other_deal():
    one = Table(GAME, NAMES[:5], seed="abc")
    two = Table(GAME, NAMES[:5], seed="abc")
    three = Table(GAME, NAMES[:5], seed="abd")
    assert one.game.full_state() == two.game.full_state()
    assert one.game.full_state()["hands"] != three.game.full_state()["hands"]


def test_vq2_stacked_deal_is_dealt_as_given():
    players = NAMES[:3]
    phase = topped_up(players, {"Cid": ["Q", "Q", "13"]})
    table = Table(GAME, players, seed=3, deal={"phases": [phase]})
    # Check each player holds the stacked hand (plus the slayer of their seat).
    assert hand(table, "Cid") == sort_cards(phase["hands"]["Cid"])
    assert hand(table, "Ann") == sort_cards([*phase["hands"]["Ann"], "S15"])
    assert hand(table, "Ben") == sort_cards([*phase["hands"]["Ben"], "S20"])
    # Check the rest of the 108 cards is set aside.
    left = Counter(DECK)
    for cards in phase["hands"].values():
        left.subtract(cards)
    assert table.game.full_state()["set_aside"] == sort_cards(left.elements())
    check_cards_accounted(table.game)


def test_stacked_deal_accepts_any_card_order_and_null_entries():
    players = NAMES[:3]
    phase = topped_up(players, {})
    shuffled_hands = {p: list(reversed(h)) for p, h in phase["hands"].items()}
    one = Table(GAME, players, seed=3, deal={"phases": [phase]})
    two = Table(GAME, players, seed=3, deal={"phases": [{"hands": shuffled_hands}]})
    assert one.game.full_state() == two.game.full_state()
    # Check a null entry leaves phase 1 to the seed.
    seeded = Table(GAME, players, seed=3)
    nulled = Table(GAME, players, seed=3, deal={"phases": [None, phase]})
    assert seeded.game.full_state() == nulled.game.full_state()


@pytest.mark.parametrize("deal, words", [
    ({"rounds": []}, "only the key 'phases'"),
    ({"phases": {}}, "must be a list"),
    ({"phases": [None] * 6}, "game has 5"),
    ({"phases": [{"cards": {}}]}, "only 'hands'"),
    ({"phases": [{"hands": {"Ann": [], "Ben": []}}]}, "every player"),
])
def test_stacked_deal_shape_is_checked(deal, words):
    with pytest.raises(BadSetup, match=words):
        Table(GAME, NAMES[:3], seed=1, deal=deal)


def _broken(change):
    phase = topped_up(NAMES[:3], {})
    change(phase["hands"])
    return {"phases": [phase]}


@pytest.mark.parametrize("change, words", [
    (lambda h: h["Ann"].pop(), "must be dealt 13 cards"),
    (lambda h: h["Ann"].append("13"), "must be dealt 13 cards"),
    (lambda h: h["Ann"].__setitem__(0, "S20"), "slayers are not dealt"),
    (lambda h: h["Ann"].__setitem__(0, "14"), "not a Vampire Queen card"),
    (lambda h: h["Ann"].__setitem__(0, 7), "list of card codes"),
    (lambda h: h.__setitem__("Ann", ["Q"] * 5 + ["1"] * 8), "the deck has 4 of 'Q'"),
])
def test_vq2_stacked_hands_must_come_from_one_deck_at_table_size(change, words):
    with pytest.raises(BadSetup, match=words):
        Table(GAME, NAMES[:3], seed=1, deal=_broken(change))


def test_options_and_player_counts():
    # Check the default is five phases and the option's range is 1 to 20.
    assert Table(GAME, NAMES[:3]).game.options == {"phases": 5}
    assert Table(GAME, NAMES[:3], options={"phases": 20}).game.options == {"phases": 20}
    for bad in (0, 21, "5", True):
        with pytest.raises(BadSetup, match="option 'phases' must be"):
            Table(GAME, NAMES[:3], options={"phases": bad})
    with pytest.raises(BadSetup, match="vampire-queen has no option rounds"):
        Table(GAME, NAMES[:3], options={"rounds": 2})
    # Check 3 to 12 players.
    for count in (2, 13):
        with pytest.raises(BadSetup, match=f"vampire-queen is for 3 to 12 players, not {count}"):
            Table(GAME, [f"p{i}" for i in range(count)])


def test_malformed_commands_are_bad_commands_not_refusals():
    table = stacked_table(EXAMPLE, {})
    before = table.game.full_state()
    for command, says in (
            (play("14"), "'14' is not a Vampire Queen card"),
            (play("S10"), "'S10' is not a Vampire Queen card"),
            (play("q"), "'q' is not a Vampire Queen card"),
            (play("J"), "'J' is not a Vampire Queen card"),
            ({"type": "play"}, "command 'play' needs the field 'cards'"),
            ({"type": "play", "cards": "7"}, "field 'cards' must be a list of card codes"),
            ({"type": "pass", "cards": []}, "command 'pass' has no field 'cards'"),
            ({"type": "discard"}, "vampire-queen has no command 'discard'")):
        with pytest.raises(BadCommand, match=says):
            table.game.execute("Marie", command)
    assert table.game.full_state() == before and not table.game.pending_events


def test_views_never_show_another_hand_or_the_set_aside_cards():
    players = NAMES[:4]
    table = Table(GAME, players, seed=9)
    hands = table.game.full_state()["hands"]
    set_aside = table.game.full_state()["set_aside"]
    public = state(table)
    # Check the public state has sizes and slayer holders, but no hand and no set-aside card.
    assert set(public) >= {"phase", "round", "start_player", "plays", "slayer_round", "slayers",
                           "hand_sizes", "minus_points", "total_minus_points"}
    assert "hands" not in public and "set_aside" not in public and "hand" not in public
    # Check each player's private state is exactly their own hand, sorted by value.
    for p in players:
        assert table.game.private_state(p) == {"hand": hands[p]}
        assert hands[p] == sort_cards(hands[p])
    # Check the deal event shows each player only their hand, and the set-aside cards to nobody.
    dealt = event_data(table.events[1])
    for p in players:
        seen = table.game.redact("PhaseDealt", dealt, Viewer(player=p))
        assert seen["hands"] == {p: dealt["hands"][p]} and "set_aside" not in seen
    spectator = table.game.redact("PhaseDealt", dealt, SPECTATOR)
    assert "hands" not in spectator and "set_aside" not in spectator
    assert table.game.redact("PhaseDealt", dealt, HOST)["set_aside"] == set_aside
    # Check a player's view of the whole game carries their hand only.
    view = table.game.view(Viewer(player="Cid"))
    assert view["private"] == {"hand": hands["Cid"]}
    text = repr(view["state"])
    assert "set_aside" not in text and "hands" not in text
