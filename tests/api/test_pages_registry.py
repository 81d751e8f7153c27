"""The pages hand the game registry (domain.GAMES) to their scripts; no script names a game key."""

from __future__ import annotations

import json
import re
from pathlib import Path

from domain import GAMES

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"
TEMPLATES = STATIC.parent / "templates"


def game_kinds(html: bytes) -> dict:
    found = re.search(rb'<script type="application/json" id="game-kinds">(.*?)</script>', html, re.S)
    assert found, "the page carries no game registry"
    return json.loads(found.group(1))


def test_every_page_carries_every_game_key_with_its_class_name(client):
    key, cls = next(iter(GAMES.items()))
    players = [f"P{i}" for i in range(cls.MIN_PLAYERS)]
    answer = client.post("/games", json={"game": key, "players": players, "seed": 3,
                                         "options": dict(cls.SHORT_OPTIONS)})
    assert answer.status_code == 201, answer.get_json()
    game = answer.get_json()
    pages = ["/", f"/games/{game['game_id']}/play",
             f"/games/{game['game_id']}/viewer?token={game['host_token']}"]
    expected = {key: cls.__name__ for key, cls in GAMES.items()}
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert game_kinds(answer.data) == expected, url


def test_no_script_or_template_writes_a_game_key():
    # A key as a string ("vampir", 'vampir', `vampir`) or as an object key (vampir: …).
    keys = "|".join(re.escape(key) for key in GAMES)
    literal = re.compile(rf"""["'`]({keys})["'`]|^\s*({keys})\s*[:,]|[{{,]\s*({keys})\s*:""", re.M)
    files = sorted(STATIC.glob("*.js")) + sorted(TEMPLATES.glob("*.html"))
    assert len(files) >= 4
    found = [f"{path.name}: {m.group(0).strip()}" for path in files
             for m in literal.finditer(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_scripts_draw_every_registered_game_by_its_class_name():
    tables = (STATIC / "tables.js").read_text(encoding="utf-8")
    drawn = re.search(r"const TABLES = \{(.*?)\};", tables, re.S).group(1)
    assert set(re.findall(r"^\s*(\w+):", drawn, re.M)) == {cls.__name__ for cls in GAMES.values()}
