"""Every page in every language on a phone (issue 25): real Chromium at 360 px wide, nothing
wider than the screen, `<html lang>` saying the language; a screenshot of each page is kept in
test-artifacts/languages/ (or $GRUFT_TEST_ARTIFACTS/languages/) for a person to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from api.i18n import LANGUAGES
from domain import available_games
from tests.api.browser.play_kit import create, root, wait_until

pytestmark = pytest.mark.browser
PHONE = {"width": 360, "height": 780}
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("GRUFT_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "languages"


@pytest.fixture(scope="module")
def pages(live_site) -> list[tuple[str, str, str]]:
    """(name, path, what to wait for) of every kind of page: the list, each game's rules, its
    replay viewer mid-game, a seat's play page and a spectator's."""
    found = [("list", "/", "#new-game")]
    for key in available_games():
        game = create(live_site.base_url, key, seed=6)
        seat = game["players"][0]
        finished = live_site.finished[key]
        found += [
            (f"rules-{key}", f"/rules/{key}", "#rules"),
            (f"viewer-{key}", f"/games/{finished.game_id}/viewer?step=12", '#table[data-step="12"]'),
            (f"play-{key}", f"/games/{game['game_id']}/play?token={game['player_tokens'][seat]}",
             "play"),
            (f"watch-{key}", f"/games/{game['game_id']}/play", "play"),
        ]
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_fits_a_phone_in_every_language(browser, live_site, pages, lang: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=PHONE, locale=lang)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    too_wide = {}
    try:
        for name, path, ready in pages:
            joiner = "&" if "?" in path else "?"
            page.goto(f"{live_site.base_url}{path}{joiner}lang={lang}")
            if ready == "play":
                wait_until(page, lambda: root(page, "data-version") not in (None, ""),
                           what=f"{name}'s first view")
            else:
                page.wait_for_selector(ready, state="attached")
            assert page.get_attribute("html", "lang") == lang, name
            page.screenshot(path=str(ARTIFACTS / f"{lang}-{name}.png"), full_page=True)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide[name] = width
    finally:
        context.close()
    # Check no page in this language is wider than the phone (screenshots in ARTIFACTS)
    assert not too_wide, f"{lang}: wider than {PHONE['width']} px: {too_wide} (see {ARTIFACTS})"
    assert not errors, errors
