"""The viewer finds as the log does (issue 17): filters by player and type, jumps to the start of
each phase, round, trick or turn, shows the arbiter's annotations at their step, links a fork and
its parent both ways, and prints the step without its controls."""

from __future__ import annotations

from typing import Any

import pytest

from domain import game_class
from domain.core.eventfilter import concerns
from domain.core.landmarks import starts
from tests.api.browser.site import Site, StoredGame, store_random_game
from tests.api.browser.test_viewer_browser import open_viewer, records_of, wait_step

pytestmark = pytest.mark.browser


def visible_versions(page) -> list[int]:
    """The versions of the event lines the list shows."""
    return page.eval_on_selector_all(
        ".events li", "els => els.filter(e => e.offsetParent !== null).map(e => +e.dataset.version)")


def api(site: Site, method: str, path: str, token: str | None = None, **body: Any) -> Any:
    """A call to the JSON API as a client makes it."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = site.app.test_client().open(path, method=method, headers=headers,
                                         json=body if body else None)
    assert answer.status_code < 300, answer.get_json()
    return answer.get_json()


def test_jump_to_the_start_of_each_round_and_trick(page, live_site: Site):
    game = live_site.finished["voodoo-prince"]
    records = records_of(live_site, game)
    landmarks = starts(game_class(game.key), records)
    open_viewer(page, live_site, game)
    options = page.eval_on_selector_all("#jump option", "els => els.map(e => [e.value, e.dataset.unit || ''])")
    assert options[1:] == [[str(s["version"]), s["unit"]] for s in landmarks]
    assert {s["unit"] for s in landmarks} == {"round", "trick"}
    # Round 2 and its third trick: the step is the round's deal, then the trick's first card
    round_two = next(s for s in landmarks if s["label"] == "Round 2")
    assert records[round_two["version"] - 1]["type"] == "RoundDealt"
    page.select_option("#jump", str(round_two["version"]))
    wait_step(page, round_two["version"])
    trick = next(s for s in landmarks if s["label"] == "Round 2 · trick 3")
    page.select_option("#jump", str(trick["version"]))
    wait_step(page, trick["version"])
    assert records[trick["version"] - 1]["type"] == "CardPlayed"
    assert records[trick["version"] - 2]["type"] in ("TrickWon", "PlayerFinished")
    assert len(page.eval_on_selector_all("#table .trick.current [data-card]", "els => els")) == 1
    # Stepping on, the select names the trick the step is in
    page.click("#next")
    wait_step(page, trick["version"] + 1)
    assert page.input_value("#jump") == str(trick["version"])


def test_phase_and_turn_starts(page, live_site: Site):
    queen = live_site.finished["vampire-queen"]
    labels = [s["label"] for s in starts(game_class("vampire-queen"), records_of(live_site, queen))]
    assert "Phase 2" in labels and "Phase 2 · round 1" in labels
    ring = live_site.finished["vampiring"]
    turns = starts(game_class("vampiring"), records_of(live_site, ring))
    assert [s["label"] for s in turns[:2]] == ["Turn 1", "Turn 2"]
    open_viewer(page, live_site, ring)
    page.select_option("#jump", str(turns[1]["version"]))
    wait_step(page, turns[1]["version"])


def test_filter_by_player_and_type(page, live_site: Site):
    game = live_site.finished["voodoo-prince"]
    records = records_of(live_site, game)
    open_viewer(page, live_site, game)
    every = [r["version"] for r in records]
    assert visible_versions(page) == every
    page.select_option("#filter-player", "Otto")
    otto = [r["version"] for r in records if concerns(r, "Otto")]
    assert visible_versions(page) == otto and len(otto) < len(every)
    assert page.text_content("#match-count") == f"{len(otto)} of {len(every)} events"
    page.select_option("#filter-type", "TrickWon")
    won = [r["version"] for r in records if r["type"] == "TrickWon" and concerns(r, "Otto")]
    assert visible_versions(page) == won
    # The matches are stepped through in order, from wherever the step is
    page.click("#next-match")
    wait_step(page, won[0])
    page.click("#next-match")
    wait_step(page, won[1])
    page.click("#prev-match")
    wait_step(page, won[0])
    assert "player=Otto" in page.url and "type=TrickWon" in page.url
    # A shared link opens with the same filters
    page.goto(page.url)
    wait_step(page, won[0])
    assert visible_versions(page) == won
    page.select_option("#filter-player", "")
    page.select_option("#filter-type", "")
    assert visible_versions(page) == every


def annotated_game(site: Site) -> StoredGame:
    """A finished game with a note on step 3 and a ruling on step 5, made through the API."""
    game = store_random_game(site.app.extensions["gruft"].games, "vampire-queen", seed=21)
    assert game.finished
    base = f"/games/{game.game_id}/annotations"
    api(site, "POST", base, game.host_token, version=3, text="Bob claims <b>a misplay</b>")
    api(site, "POST", base, game.host_token, version=5, text="Ruled: the play stands (VQ-7)",
        kind="ruling")
    return game


def test_annotations_show_at_their_step(page, live_site: Site):
    game = annotated_game(live_site)
    open_viewer(page, live_site, game, step=2)
    assert page.locator("#step-notes").is_hidden()
    assert page.locator("#all-notes .note-item").count() == 2
    assert page.get_attribute('.events li[data-version="3"] .ev-notes', "title").startswith("1 ")
    page.click("#next")
    wait_step(page, 3)
    assert page.locator("#step-notes").is_visible()
    # Text, never markup: the note reads as typed
    assert page.text_content("#step-notes .note-text") == "Bob claims <b>a misplay</b>"
    assert page.locator("#step-notes b").count() == 0
    assert page.text_content("#step-notes .note-kind") == "note"
    # A click on a note in the list goes to its step
    page.click('#all-notes .note-item[data-version="5"]')
    wait_step(page, 5)
    assert page.text_content("#step-notes .note-kind") == "ruling"
    assert "VQ-7" in page.text_content("#step-notes")


def test_a_fork_and_its_parent_link_both_ways(page, live_site: Site):
    parent = store_random_game(live_site.app.extensions["gruft"].games, "voodoo-prince", seed=31)
    fork = api(live_site, "POST", f"/games/{parent.game_id}/fork", parent.host_token, at=6)
    open_viewer(page, live_site, parent)
    link = page.locator(f'.fork-link[data-game-id="{fork["game_id"]}"]')
    assert link.get_attribute("data-at") == "6"
    # The fork is in play: its host opens it
    page.goto(f"{live_site.base_url}/games/{fork['game_id']}/viewer?token={fork['host_token']}")
    wait_step(page, 0)
    back = page.locator(".parent-link")
    assert back.get_attribute("data-game-id") == parent.game_id
    assert back.get_attribute("data-version") == "6"
    back.locator("a").click()
    wait_step(page, 6)
    assert parent.game_id in page.url


def test_printable_view(page, live_site: Site):
    game = annotated_game(live_site)
    open_viewer(page, live_site, game, step=5)
    page.emulate_media(media="print")
    for hidden in (".controls", ".finder", "#print"):
        assert page.locator(hidden).is_hidden(), hidden
    assert page.locator("#print-heading").is_visible()
    assert "step 5 of" in page.text_content("#print-heading")
    assert page.locator("#table").is_visible()
    # The events around the step, in words; the notes
    assert visible_versions(page) == list(range(1, 11))
    assert page.locator("#step-notes").is_visible()
    assert page.locator("#all-notes .note-item").count() == 2
    page.emulate_media(media="screen")
    assert page.locator(".controls").is_visible() and page.locator("#print-heading").is_hidden()
