"""What each viewer sees: locations and laid hunts are public; hands and the pile are secret."""

from __future__ import annotations

import json

from domain.core import HOST, SPECTATOR, Viewer, canonical

from .kit import ANN, BEN, CAT, THREE, deal, new_table, round_deal

HANDS = {ANN: ["pub1", "pub1", "pub1", "castle1"], BEN: ["docks2"] * 4, CAT: ["church2"] * 4}


def playing():
    """A game in which Ann has laid a pub hunt and Ben has just drawn."""
    table = new_table(seed=3, deal=deal(round_deal(HANDS, ["graveyard2", "W", "madhouse2", "W"])))
    table.act(ANN, {"type": "draw"})
    table.act(ANN, {"type": "hunt", "cards": ["pub1", "pub1", "pub1"], "colour": "pub"})
    table.act(BEN, {"type": "draw"})
    return table


def test_public_state_shows_the_table_but_no_hidden_card():
    table = playing()
    public = table.game.public_state()
    # Check the cards under each location and every laid hunt are public.
    assert public["locations"]["pub"] == ["pub1"] and public["hunts"][ANN] == {
        "pub": ["pub1", "pub1", "pub1"]}
    # Check only sizes of hands and of the pile are shown.
    assert public["hand_sizes"] == {ANN: 3, BEN: 6, CAT: 4} and public["draw_pile_size"] == 84
    assert not {"hands", "draw_pile", "out", "hand"} & set(public)
    # Check no secret hand shows up anywhere in the public state: Ben's two new cards, Cat's hand.
    text = canonical(public)
    assert "docks2" not in text and "church2" not in text and "madhouse2" not in text


def test_each_player_sees_only_their_own_hand():
    table = playing()
    # Check Ben's view holds his hand (with the cards he just drew) and nobody else's.
    ben = table.game.view(Viewer(player=BEN))
    assert ben["private"] == {"hand": ["madhouse2", "docks2", "docks2", "docks2", "docks2", "W"]}
    assert "church2" not in canonical(ben) and "castle1" not in canonical(ben["private"])
    # Check Cat's view shows none of Ben's cards and the spectator sees no hand at all.
    assert "docks2" not in canonical(table.game.view(Viewer(player=CAT)))
    spectator = table.game.view(SPECTATOR)
    assert "private" not in spectator and "seed" not in spectator
    assert spectator["to_act"] == [BEN] and spectator["state"]["step"] == "discard_or_hunt"


def test_events_are_redacted_per_viewer():
    table = playing()
    dealt = next(e for e in table.events if type(e).__name__ == "RoundDealt")
    data = {k: v for k, v in dealt.__dict__.items() if k in ("hands", "draw_pile", "locations")}
    # Check a player sees only their own dealt hand, never the pile; the host sees all.
    for player in THREE:
        shown = table.game.redact("RoundDealt", data, Viewer(player=player))
        assert shown == {"hands": {player: HANDS[player] if player != ANN else
                                   ["castle1", "pub1", "pub1", "pub1"]},
                         "locations": data["locations"]}
    assert table.game.redact("RoundDealt", data, HOST) == data
    assert "hands" not in table.game.redact("RoundDealt", data, SPECTATOR)
    # Check the cards Ben drew are his alone.
    drew = {"player": BEN, "cards": ["madhouse2", "W"], "draw_pile_size": 84}
    assert table.game.redact("Drew", drew, Viewer(player=BEN)) == drew
    assert table.game.redact("Drew", drew, Viewer(player=ANN)) == {"player": BEN,
                                                                 "draw_pile_size": 84}
    assert table.game.redact("Drew", drew, SPECTATOR) == {"player": BEN, "draw_pile_size": 84}


def test_full_state_has_everything_in_json_native_form():
    table = playing()
    full = table.game.full_state()
    # Check the host's state holds every hand and the pile in order.
    assert full["hands"][CAT] == ["church2"] * 4 and full["hands"][ANN] == ["castle1", "graveyard2", "W"]
    assert full["draw_pile_size"] == len(full["draw_pile"]) == 84
    # Check it survives canonical JSON unchanged (no tuples, sets or non-string keys).
    assert json.loads(canonical(full)) == full
