"""What each viewer sees: the public view, a player's view, and the redacted events."""

from __future__ import annotations

from domain.core import HOST, SPECTATOR, Viewer, event_data
from domain.voodoo_prince import GAME
from tests.domain.kit import Table

from .kit import FOUR, play_trick, script, table


def test_public_and_player_views_keep_hands_and_undealt_cards_secret():
    t = Table(GAME, FOUR, seed="views")
    game = t.game
    view = game.view(SPECTATOR)
    # Check the public state: round, dealer, trump, trick, tricks, who is out, the leader
    assert view["state"] == {
        "round": 1, "rounds": 5, "dealer": "Marie", "trump": game.trump, "leader": "Marie",
        "trick": [], "last_trick": None, "tricks": dict.fromkeys(FOUR, 0),
        "tricks_to_finish": 3, "top_card": 12, "out": [], "hand_sizes": dict.fromkeys(FOUR, 13),
        "round_points": dict.fromkeys(FOUR, 0), "past_rounds": [],
    }
    assert "private" not in view and "seed" not in view
    # Check Lukas sees his own hand and nobody else's
    lukas = game.view(Viewer(player="Lukas"))
    assert lukas["private"] == {"hand": game.hands["Lukas"]}
    assert lukas["state"] == view["state"]
    # Check no dealt or undealt card appears anywhere in the public view
    text = repr(view)
    for card in game.undealt + [c for p in FOUR for c in game.hands[p]]:
        assert f"'{card}'" not in text


def test_the_deal_event_is_redacted_per_viewer():
    t = Table(GAME, FOUR, seed="views")
    game = t.game
    dealt = t.events[-1]
    data = event_data(dealt)
    # Check a spectator sees the round, dealer and trump, but no hand and no undealt card
    shown = game.redact("RoundDealt", data, SPECTATOR)
    assert shown == {"round": 1, "dealer": "Marie", "trump": game.trump}
    # Check Nina sees her own hand only; the host sees everything
    nina = game.redact("RoundDealt", data, Viewer(player="Nina"))
    assert nina["hands"] == {"Nina": game.hands["Nina"]} and "undealt" not in nina
    assert game.redact("RoundDealt", data, HOST) == data
    # Check the seed and the stacked deal stay with the host
    created = game.redact("Created", event_data(t.events[0]), Viewer(player="Nina"))
    assert "seed" not in created and "deal" not in created


def test_cards_played_and_tricks_are_public_set_aside_cards_are_not():
    winners = ["Marie"] * 3
    tricks, wanted = script(FOUR, winners)
    t = table(FOUR, wanted)
    for trick in tricks[:2]:
        play_trick(t, trick)
    play_trick(t, tricks[2][:2])
    state = t.game.public_state()
    # Check the trick on the table shows in order with who played, and the last trick won
    assert state["trick"] == [{"player": p, "card": c} for p, c in tricks[2][:2]]
    assert state["last_trick"]["winner"] == "Marie"
    assert state["tricks"]["Marie"] == 2
    play_trick(t, tricks[2][2:])
    # Check Marie's laid-aside cards show in no view, hers included
    aside = t.game.full_state()["set_aside"]["Marie"]
    assert aside
    for viewer in [SPECTATOR, *(Viewer(player=p) for p in FOUR)]:
        text = repr(t.game.view(viewer))
        assert not any(f"'{c}'" in text for c in aside)
    assert t.game.public_state()["out"] == ["Marie"]
