"""The play page in headless Chromium: for each game, one browser context per seat plays a whole
game by clicking its legal-move buttons, with no reload, while a spectator page follows live.
"""

from __future__ import annotations

import random

import pytest

from domain import available_games
from tests.api.browser.play_kit import (
    ROOT,
    axe_problems,
    create,
    get,
    open_page,
    play_out,
    ready_moves,
    root,
    wait_until,
)

pytestmark = pytest.mark.browser


def has_stream(live_site) -> bool:
    """Whether this server has GET /games/{id}/stream (the live contract's push)."""
    return any(rule.rule.endswith("/stream") for rule in live_site.app.url_map.iter_rules())


@pytest.mark.parametrize("key", available_games())
def test_every_seat_plays_a_whole_game_by_clicking_while_a_spectator_follows(
        browser, live_site, axe, key):
    game = create(live_site.base_url, key, seed=21)
    base = f"{live_site.base_url}/games/{game['game_id']}/play"
    seats = [open_page(browser, f"{base}?token={game['player_tokens'][p]}", p)
             for p in game["players"]]
    spectator = open_page(browser, base, "spectator")
    try:
        for seat in seats:
            # Check the invitation's token left the address bar at once, and the page knows its seat
            assert "token" not in seat.page.url
            assert root(seat.page, "data-role") == "player"
            assert root(seat.page, "data-you") == seat.name
        assert root(spectator.page, "data-role") == "spectator"
        # Check axe-core finds no serious or critical violation on the page of the seat to act
        # (its moves shown) nor on the spectator's (issue 31, item 6)
        first = next(s for s in seats if s.name in get(live_site.base_url,
                                                       f"/games/{game['game_id']}")["to_act"])
        wait_until(first.page, lambda: bool(ready_moves(first.page)), what="the first moves")
        assert axe_problems(axe, first.page) == []
        assert axe_problems(axe, spectator.page) == []

        def spectator_sees_no_hand() -> None:
            # Check the spectator never sees a card face in anybody's hand, nor a hand panel
            page = spectator.page
            assert page.query_selector_all("#table .hand .card:not(.back)") == []
            assert page.query_selector_all("#my-hand .card, #moves button") == []

        asked = {s.name: 0 for s in seats}
        for seat in seats:
            seat.page.on("request", lambda r, n=seat.name: asked.__setitem__(n, asked[n] + 1)
                         if "/legal-moves" in r.url else None)
        play_out(seats, [spectator], random.Random(key), each_round=spectator_sees_no_hand)
        if key != "vampiring" and has_stream(live_site):
            # Check the moves came with the stream's messages: one call of its own at most (the
            # first, which tells the page the game needs no previews)
            assert all(n <= 1 for n in asked.values()), asked
        # Check every page, the spectator's too, shows the same finished game at its last version
        final = {root(s.page, "data-version") for s in seats + [spectator]}
        assert len(final) == 1
        assert all(root(s.page, "data-status") == "finished" for s in seats + [spectator])
        # Check each seat played by clicking, and no page was ever reloaded
        assert all(s.clicks > 0 for s in seats)
        for s in seats + [spectator]:
            assert len(s.loads) == 1, f"{s.name}'s page was loaded {len(s.loads)} times"
            assert not s.errors, f"errors in {s.name}'s page: {s.errors}"
        if has_stream(live_site):
            # Check the pages followed the game from the stream, not by polling
            assert {root(s.page, "data-live") for s in seats + [spectator]} == {"stream"}
        # Check the spectator's log got the last event, and the winners are announced
        assert spectator.page.get_attribute("#events li:first-child", "data-version") == \
            root(spectator.page, "data-version")
        assert not spectator.page.is_hidden("#result")
        if key == "vampiring":
            # Check each family's blood reads as the original shows it: left, lost in the last
            # turn, lost before it (eliminated families keep their row)
            state = get(live_site.base_url, f"/games/{game['game_id']}")["state"]
            last = state["last_turn"]["lost"]
            for player in game["players"]:
                blood = f'#table .blood[data-player="{player}"]'
                shown = [int(spectator.page.get_attribute(blood, a))
                         for a in ("data-blood", "data-lost-last", "data-lost-before")]
                assert shown == [state["blood"][player], last.get(player, 0),
                                 8 - state["blood"][player] - last.get(player, 0)]
    finally:
        for s in seats + [spectator]:
            s.context.close()


def test_a_player_sees_their_own_hand_face_up_and_nobody_elses(browser, live_site):
    game = create(live_site.base_url, "vampire-queen", seed=5)
    me = game["players"][0]
    seat = open_page(browser, f"{live_site.base_url}/games/{game['game_id']}/play"
                              f"?token={game['player_tokens'][me]}", me)
    try:
        view = get(live_site.base_url, f"/games/{game['game_id']}/view", game["player_tokens"][me])
        page = seat.page
        # Check the hand panel and my seat show exactly my hand, face up
        wait_until(page, lambda: page.query_selector("#my-hand .card") is not None)
        shown = page.eval_on_selector_all("#my-hand [data-card].card", "els => els.map(e => e.dataset.card)")
        assert shown == view["private"]["hand"]
        mine = page.eval_on_selector_all(f'#table .seat[data-player="{me}"] .hand .card',
                                         "els => els.map(e => e.dataset.card)")
        assert mine == view["private"]["hand"]
        # Check every other seat's hand shows only backs, as many as they hold
        for other in game["players"][1:]:
            cards = page.query_selector_all(f'#table .seat[data-player="{other}"] .hand .card')
            assert len(cards) == view["state"]["hand_sizes"][other]
            assert all("back" in (c.get_attribute("class") or "") for c in cards)
        assert page.get_attribute(ROOT, "data-status") == "in_progress"
    finally:
        seat.context.close()
