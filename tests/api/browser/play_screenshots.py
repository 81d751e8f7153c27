"""Screenshots of the play page: `python -m tests.api.browser.play_screenshots [out_dir]`.

For each game: a short game played part way by random legal moves through the API, then one
seat's play page photographed at a phone's width (390x844) and a desktop's (1400x900), and the
replay viewer at step 25 on the phone. `--docs` also writes docs/play.png.
"""

from __future__ import annotations

import random
import sys
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

from api import create_app
from domain import available_games, game_class
from tests.api.browser.conftest import CHROMIUM, CHROMIUM_ARGS, QuietHandler

DOCS = Path(__file__).resolve().parents[3] / "docs" / "play.png"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
NAMES = ["Ann", "Bob", "Cid", "Dee"]
MOVES = {"voodoo-prince": 7, "vampire-queen": 9, "vampir": 20, "vampiring": 7}


def played(games, key: str, seed: int = 3):
    """A game of `key` with three seats (two for VampiRing), part played; its tokens."""
    cls = game_class(key)
    players = NAMES[: max(cls.MIN_PLAYERS, 3 if key != "vampiring" else 2)]
    new = games.create_game(key, players, seed=seed, options=dict(cls.SHORT_OPTIONS))
    game = games.repository.get(new.game_id)
    rng = random.Random(seed)
    for _ in range(MOVES[key]):
        player = rng.choice(game.to_act)
        game.execute(player, rng.choice(game.legal_moves(player)))
    games.save(game)
    return new, game


def main(out: Path, docs: bool = False) -> list[Path]:
    """Write the screenshots to `out` (and docs/play.png); the paths written."""
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="gruft-play-shot-"))
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(root / "g.sqlite"),
           "GRUFT_DATA_DIR": str(root / "data")}
    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    games = app.extensions["gruft"].games
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for key in available_games():
                new, game = played(games, key)
                me = game.to_act[0]
                for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
                    page = browser.new_page(viewport=viewport)
                    page.goto(f"{base}/games/{new.game_id}/play?token={new.player_tokens[me]}")
                    page.wait_for_selector('#moves[data-state="ready"]')
                    if key == "vampiring":  # a move being tried: its landings on the ring
                        page.click('[data-pick="metamorphosis"][data-value="b"]')
                        page.click('[data-pick="direction"][data-value="cw"]')
                    path = out / f"play-{key}-{name}.png"
                    page.screenshot(path=str(path), full_page=name == "phone")
                    written.append(path)
                    if docs and key == "voodoo-prince" and name == "desktop":
                        page.screenshot(path=str(DOCS))
                        written.append(DOCS)
                    page.close()
            finished, _ = played(games, "vampir", seed=5)
            rest = games.repository.get(finished.game_id)
            rng = random.Random(5)
            while not rest.finished:
                player = rng.choice(rest.to_act)
                rest.execute(player, rng.choice(rest.legal_moves(player)))
            games.save(rest)
            page = browser.new_page(viewport=PHONE)
            page.goto(f"{base}/games/{finished.game_id}/viewer?step=25")
            page.wait_for_selector('#table[data-step="25"]')
            path = out / "viewer-phone-step25.png"
            page.screenshot(path=str(path))
            written.append(path)
            browser.close()
    finally:
        server.shutdown()
    return written


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--docs"]
    for p in main(Path(args[0]) if args else Path("screenshots"), docs="--docs" in sys.argv):
        print(p)
