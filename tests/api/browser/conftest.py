"""Fixtures of the viewer tests: random finished games of every kind, a live server, Chromium."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from api import create_app
from domain import available_games
from service import Games
from tests.api.browser.site import Site, store_random_game

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]

@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Iterator[Site]:
    """An app on a real SQLite file, filled with random games of every available kind."""
    root = tmp_path_factory.mktemp("viewer")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
           "SQLITE_DBNAME": str(root / "games.sqlite"), "GRUFT_DATA_DIR": str(root / "data")}
    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    games: Games = app.extensions["gruft"].games
    finished = {key: store_random_game(games, key, seed=7) for key in available_games()}
    in_progress = store_random_game(games, "voodoo-prince", seed=8, moves=5)
    yield Site(app, finished, in_progress)
    app.extensions["gruft"].close()


class QuietHandler(WSGIRequestHandler):
    """The development server's handler without its line per request."""

    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@pytest.fixture(scope="session")
def live_site(site: Site) -> Iterator[Site]:
    """The site served over real HTTP on a free local port, for the browser."""
    server = make_server("127.0.0.1", 0, site.app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.base_url = f"http://127.0.0.1:{server.server_port}"
    yield site
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Any]:
    """Playwright, once per session (it runs one instance per thread), for Debian's Chromium."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is required when CI is set (scripts/test.sh installs it)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium, or run scripts/test.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="session")
def browser(playwright) -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (its own browsers are not downloaded)."""
    chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def axe() -> Any:
    """axe-core 4, as axe-playwright-python ships it (the test extra): run it on a page with
    play_kit.axe_problems."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


@pytest.fixture
def page_errors() -> list[str]:
    """Script errors and console errors of the test's page (a test may expect some)."""
    return []


@pytest.fixture
def page(browser, live_site: Site, page_errors: list[str]):
    """A fresh browser tab that fails the test on any script error in the page."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.on("pageerror", lambda exc: page_errors.append(str(exc)))
    tab.on("console", lambda msg: page_errors.append(msg.text) if msg.type == "error" else None)
    yield tab
    context.close()
    assert not page_errors, f"errors in the page: {page_errors}"
