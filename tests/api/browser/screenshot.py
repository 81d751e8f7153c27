"""Regenerate the viewer's screenshot for the docs: `python -m tests.api.browser.screenshot [out.png]`.

Plays one random Voodoo Prince game into a throw-away SQLite file, serves it, and photographs
the viewer mid-trick with Debian's Chromium (the same setup as the browser tests).
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

from api import create_app
from tests.api.browser.conftest import CHROMIUM, CHROMIUM_ARGS, QuietHandler
from tests.api.browser.site import store_random_game

DEFAULT_OUT = Path(__file__).resolve().parents[3] / "docs" / "viewer.png"


def main(out: Path = DEFAULT_OUT, key: str = "voodoo-prince", seed: int = 7) -> Path:
    """Write a screenshot of the viewer at an interesting step of a random game to `out`."""
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="gruft-shot-"))
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(root / "g.sqlite"),
           "GRUFT_DATA_DIR": str(root / "data")}
    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    games = app.extensions["gruft"].games
    game = store_random_game(games, key, seed)
    records = games.reads.records(game.game_id)
    # The first moment of the second round's play with two cards on the table.
    step = next(r["version"] for i, r in enumerate(records)
                if r["type"] == "CardPlayed" and i > len(records) // 2
                and records[i - 1]["type"] == "CardPlayed"
                and records[i - 2]["type"] not in ("CardPlayed",))
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            page.goto(f"http://127.0.0.1:{server.server_port}/games/{game.game_id}/viewer"
                      f"?step={step}")
            page.wait_for_selector(f'#table[data-step="{step}"]')
            page.screenshot(path=str(out))
            browser.close()
    finally:
        server.shutdown()
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT))
