"""axe-core (4.x, as `axe-playwright-python` ships it) on every kind of page in headless Chromium
(issue 31, item 6): the game list, the four play pages as a seat and as the host, the viewer of
every game, the rules pages, the 403 and 404 pages. None may have a violation of impact serious
or critical (contrast, keyboard access to scrolling regions, …), nor one of the rules the issue
found broken beside them (heading order, empty table headers). The seats' and a spectator's
play pages are checked in test_play_games.py, where they are open anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from domain import available_games
from tests.api.browser.play_kit import axe_problems, create, post, wait_until
from tests.api.browser.site import Site

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def tab(browser) -> Iterator[Any]:
    """One tab for every page of this module."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def test_the_list_viewers_rules_and_error_pages_pass_axe(axe, tab, live_site: Site):
    # Check the game list, each finished game's viewer, a viewer with a ruling (the host's, in
    # play), each rules page, a viewer refused (403) and an unknown game (404): no serious or
    # critical violation.
    base = live_site.base_url
    ruled = create(base, "vampiring", seed=5)
    assert post(base, f"/games/{ruled['game_id']}/annotations",
                {"version": 1, "text": "VR-4 holds", "kind": "ruling"},
                token=ruled["host_token"])[0] == 201
    pages = {"list": f"{base}/",
             "viewer with a ruling": f"{base}/games/{ruled['game_id']}/viewer?step=1&token="
                                     f"{ruled['host_token']}"}
    for key, game in live_site.finished.items():
        pages[f"viewer {key}"] = f"{base}/games/{game.game_id}/viewer?step=3"
        pages[f"rules {key}"] = f"{base}/rules/{key}"
    pages["403"] = f"{base}/games/{live_site.in_progress.game_id}/viewer"
    pages["404"] = f"{base}/games/00000000-0000-0000-0000-000000000000/play"
    problems = {}
    for name, url in pages.items():
        tab.goto(url)
        if name.startswith("viewer"):
            wait_until(tab, lambda: tab.is_visible("#events li"), what="the viewer's events")
        if name == "viewer with a ruling":
            wait_until(tab, lambda: tab.is_visible(".kind-ruling .note-kind"), what="the ruling")
        found = axe_problems(axe, tab)
        if found:
            problems[name] = found
    assert not problems, problems


# Voodoo Prince's round 1 trump chip, in each of the five colours (VP-2), on the host's page
CHIPS_JS = """() => {
  const chip = document.querySelector(".chip[data-trump]");
  for (const colour of ["R", "B", "G", "Y", "P"]) {
    const copy = chip.cloneNode(true);
    copy.className = `chip vp-${colour}`;
    copy.dataset.trump = colour;
    chip.after(copy);
  }
}"""


def test_the_host_pages_pass_axe(axe, tab, live_site: Site):
    # Check each game's play page for its host: no serious or critical violation, Voodoo
    # Prince's trump chip readable in every colour. (The seats' and a spectator's pages are
    # checked in test_play_games, where they are open anyway.)
    base = live_site.base_url
    problems = {}
    for key in available_games():
        game = create(base, key, seed=2)
        tab.goto(f"{base}/games/{game['game_id']}/play?token={game['host_token']}")
        wait_until(tab, lambda: tab.get_attribute("#play", "data-role") == "host"
                   and tab.is_visible("#table .seat"), what="the host's table")
        if key == "voodoo-prince":
            wait_until(tab, lambda: tab.is_visible(".chip[data-trump]"), what="the trump chip")
            tab.evaluate(CHIPS_JS)
            assert tab.locator(".chip[data-trump]").count() == 6
        found = axe_problems(axe, tab)
        if found:
            problems[key] = found
    assert not problems, problems
